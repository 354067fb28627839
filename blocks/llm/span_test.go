package llm

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestGenAISpan: a model call is a client span with the GenAI semantic
// conventions' attributes, tokens and cost included, and no prompt.
func TestGenAISpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	s := newServer(t, ok("hi"))
	call := pricedCall(t, s, nil)
	call.Inputs["temperature"] = cty.NumberIntVal(0)
	if _, err := NewExecutor(Config{}).Execute(testCtx(t), call); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans; want 1", len(spans))
	}
	sp := spans[0]
	if sp.Name() != "chat test-model" || sp.SpanKind() != trace.SpanKindClient {
		t.Errorf("span %q kind %v", sp.Name(), sp.SpanKind())
	}
	got := map[attribute.Key]attribute.Value{}
	for _, a := range sp.Attributes() {
		got[a.Key] = a.Value
	}
	want := map[attribute.Key]any{
		"gen_ai.operation.name":      "chat",
		"gen_ai.provider.name":       "p",
		"gen_ai.system":              "p",
		"gen_ai.request.model":       "test-model",
		"gen_ai.response.model":      "test-model",
		"gen_ai.request.temperature": 0.0,
		"gen_ai.usage.input_tokens":  int64(10),
		"gen_ai.usage.output_tokens": int64(5),
		"flowctl.provider":           "p",
		"flowctl.cost_usd":           0.06,
		"server.address":             "127.0.0.1",
	}
	for k, w := range want {
		v, ok := got[k]
		if !ok || v.AsInterface() != w {
			t.Errorf("%s = %v; want %v", k, v.AsInterface(), w)
		}
	}
	for k, v := range got {
		if s := v.Emit(); strings.Contains(s, "hello") {
			t.Errorf("%s carries the prompt: %s", k, s)
		}
	}
}
