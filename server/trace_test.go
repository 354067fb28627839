package server

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTraceparent: a request's span is a child of the caller's
// (traceparent) and is named after its route, and the run it starts is a
// child of it: one trace from the caller to the steps.
func TestTraceparent(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })

	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, nil)
	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	id := ts.start("greet", `{"inputs": {"name": "x"}}`, "traceparent", "00-"+traceID+"-"+parent+"-01")
	ts.wait(id, "ok")
	var server, run sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(time.Minute); (server == nil || run == nil) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, s := range rec.Ended() {
			switch s.Name() {
			case "POST /v1/flows/{flow}/runs":
				server = s
			case "run greet":
				run = s
			}
		}
	}
	if server == nil || run == nil {
		var names []string
		for _, s := range rec.Ended() {
			names = append(names, s.Name())
		}
		t.Fatalf("spans: %v", names)
	}
	if server.SpanContext().TraceID().String() != traceID || server.Parent().SpanID().String() != parent {
		t.Errorf("the request's span: trace %s, parent %s", server.SpanContext().TraceID(), server.Parent().SpanID())
	}
	if run.SpanContext().TraceID().String() != traceID || run.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Errorf("the run's span: trace %s, parent %s (the request's %s)", run.SpanContext().TraceID(), run.Parent().SpanID(), server.SpanContext().SpanID())
	}
}
