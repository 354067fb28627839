// Package tracing exports OpenTelemetry traces of runs when the
// environment asks for them, as OpenTelemetry's own tools read it:
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) for an
// OTLP collector, or OTEL_TRACES_EXPORTER (otlp, console, none), with the
// other OTEL_* variables for the protocol, headers and so on. The runtime
// makes one span per run and a child span per step instance and attempt
// (package runtime, through the global tracer provider, which is a no-op
// until Setup installs one), and http steps carry the trace context in a
// traceparent header.
package tracing

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// Enabled reports whether the environment asks for traces.
func Enabled() bool {
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" {
		return e != "none"
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs a tracer provider that exports as the environment says,
// and the W3C trace context propagator, when Enabled; the function it
// returns flushes and stops it. Without the environment it does nothing.
func Setup(ctx context.Context) (func(context.Context) error, error) {
	if !Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := autoexport.NewSpanExporter(ctx)
	if err != nil {
		return nil, err
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName("flowctl")))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return tp.Shutdown, nil
}

// Start exports the traces of runs when the environment asks for them
// (Setup); the function it returns flushes them. A setup or a flush that
// fails is a warning on w.
func Start(w io.Writer) func() {
	shutdown, err := Setup(context.Background())
	if err != nil {
		fmt.Fprintf(w, "Warning: traces are not exported: %v.\n", err)
		return func() {}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			fmt.Fprintf(w, "Warning: exporting traces: %v.\n", err)
		}
	}
}
