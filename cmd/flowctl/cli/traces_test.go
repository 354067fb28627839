package cli

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestTraces: with OTEL_EXPORTER_OTLP_ENDPOINT set, apply exports a span
// for the run and a child span per step instance, with the step's
// attributes, and an http step's request carries the trace context.
func TestTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	var mu sync.Mutex
	var spans []*tracepb.Span
	var traceparent string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Errorf("collector: %v", err)
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(nil)
	}))
	defer collector.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		traceparent = r.Header.Get("traceparent")
		mu.Unlock()
		fmt.Fprint(w, "pong")
	}))
	defer target.Close()
	dir := t.TempDir()
	flow := fmt.Sprintf("flow \"traced\" {}\n\nstep \"ping\" {\n  use = \"http\"\n  url = %q\n}\n\nstep \"echo\" {\n  use   = \"value\"\n  value = step.ping.body\n}\n", target.URL)
	os.WriteFile(filepath.Join(dir, "traced.flow.hcl"), []byte(flow), 0o644)
	cmd := flowctl(t, dir, "apply", "--auto-approve", "--json", ".")
	cmd.Env = append(cmd.Env, "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	byName := map[string]*tracepb.Span{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	run, ping, echo := byName["run traced"], byName["step ping"], byName["step echo"]
	if run == nil || ping == nil || echo == nil {
		t.Fatalf("spans: %v", names(spans))
	}
	for _, s := range []*tracepb.Span{ping, echo} {
		if string(s.ParentSpanId) != string(run.SpanId) || string(s.TraceId) != string(run.TraceId) {
			t.Errorf("span %s is not a child of the run's", s.Name)
		}
	}
	attrs := map[string]string{}
	for _, a := range ping.Attributes {
		attrs[a.Key] = a.Value.String()
	}
	if !strings.Contains(attrs["flowctl.block"], "http") || !strings.Contains(attrs["flowctl.status"], "ok") || !strings.Contains(attrs["flowctl.attempt"], "1") {
		t.Errorf("ping's attributes: %v", attrs)
	}
	if want := "00-" + hex.EncodeToString(ping.TraceId) + "-" + hex.EncodeToString(ping.SpanId) + "-01"; traceparent != want {
		t.Errorf("traceparent %q, want %q", traceparent, want)
	}
}

func names(spans []*tracepb.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// TestGenAITraces: with OTEL_TRACES_EXPORTER=console, a model call is a
// span "chat MODEL" with the GenAI semantic conventions' attributes,
// tokens and cost, and without its prompt.
func TestGenAITraces(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	model := streamingModel(t, "A secret-free ", "reply.")
	dir := t.TempDir()
	flow := fmt.Sprintf(`flow "traced" {}

provider "local" {
  base_url = "%s/v1"
  prices = {
    "m" = { input = 1000, output = 10000 }
  }
}

step "ask" {
  use         = "llm"
  provider    = provider.local
  model       = "m"
  temperature = 0
  prompt      = "A prompt that stays out of traces"
}
`, model.URL)
	os.WriteFile(filepath.Join(dir, "traced.flow.hcl"), []byte(flow), 0o644)
	cmd := flowctl(t, dir, "apply", "--auto-approve", ".")
	cmd.Env = append(cmd.Env, "OTEL_TRACES_EXPORTER=console")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{`"Name":"chat m"`, `"gen_ai.operation.name"`, `"gen_ai.provider.name"`, `"gen_ai.system"`,
		`"gen_ai.request.model"`, `"gen_ai.response.model"`, `"gen_ai.request.temperature"`, `"gen_ai.usage.input_tokens"`,
		`"gen_ai.usage.output_tokens"`, `"flowctl.cost_usd"`, `"Name":"step ask"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the console's spans lack %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "stays out of traces") {
		t.Error("a span carries the prompt")
	}
}
