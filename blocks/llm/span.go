package llm

import (
	"context"
	"net"
	"net/url"
	"strconv"

	"github.com/flowctl/flowctl/blocks"
	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// A model call is a span of OpenTelemetry's GenAI semantic conventions
// (docs/runtime.md, "Traces"), a child of the step attempt's span, so that
// Langfuse, Phoenix or Datadog show the model, its tokens and cost with no
// configuration. It carries no prompt or reply: those are the run's call
// traces, redacted, in the state.

func tracer() trace.Tracer { return otel.Tracer("github.com/flowctl/flowctl/blocks/llm") }

// genAISystemKey is gen_ai.provider.name's older name, which tools that
// predate it still read.
const genAISystemKey = attribute.Key("gen_ai.system")

// startSpan starts the span of one model call of r through t.
func startSpan(ctx context.Context, call *blocks.Call, t *transport, r *request) (context.Context, trace.Span) {
	provider := providerSystem(call, t.baseURL)
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		semconv.GenAIProviderNameKey.String(provider),
		genAISystemKey.String(provider),
		semconv.GenAIRequestModel(r.model),
	}
	if call != nil && call.Provider != nil {
		attrs = append(attrs, attribute.String("flowctl.provider", call.Provider.Name))
	}
	if u, err := url.Parse(t.baseURL); err == nil && u.Host != "" {
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil {
			host, port = u.Host, map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		attrs = append(attrs, semconv.ServerAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.ServerPort(p))
		}
	}
	if r.temperature != nil {
		attrs = append(attrs, semconv.GenAIRequestTemperature(*r.temperature))
	}
	if r.topP != nil {
		attrs = append(attrs, semconv.GenAIRequestTopP(*r.topP))
	}
	if r.seed != nil {
		attrs = append(attrs, semconv.GenAIRequestSeed(int(*r.seed)))
	}
	if r.maxTokens > 0 {
		attrs = append(attrs, semconv.GenAIRequestMaxTokens(r.maxTokens))
	}
	return tracer().Start(ctx, "chat "+r.model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endSpan ends the span of a call that got resp and spent u, or failed
// with err (its message redacted by redact).
func endSpan(span trace.Span, resp openai.ChatCompletionResponse, u *blocks.Usage, err error, redact func(string) string) {
	defer span.End()
	if err != nil {
		span.SetStatus(codes.Error, redact(err.Error()))
		return
	}
	if resp.ID != "" {
		span.SetAttributes(semconv.GenAIResponseID(resp.ID))
	}
	if resp.Model != "" {
		span.SetAttributes(semconv.GenAIResponseModel(resp.Model))
	}
	var reasons []string
	for _, c := range resp.Choices {
		if c.FinishReason != "" {
			reasons = append(reasons, string(c.FinishReason))
		}
	}
	if len(reasons) > 0 {
		span.SetAttributes(semconv.GenAIResponseFinishReasons(reasons...))
	}
	if u != nil {
		span.SetAttributes(semconv.GenAIUsageInputTokens(u.PromptTokens), semconv.GenAIUsageOutputTokens(u.CompletionTokens))
		if u.CostUSD != nil {
			span.SetAttributes(attribute.Float64("flowctl.cost_usd", *u.CostUSD))
		}
	}
}

// providerSystem is gen_ai.provider.name: openai for OpenAI's API, else
// the provider block's name, else openai_compatible for the environment's
// server.
func providerSystem(call *blocks.Call, baseURL string) string {
	if u, err := url.Parse(baseURL); baseURL == "" || (err == nil && u.Hostname() == "api.openai.com") {
		return "openai"
	}
	if call != nil && call.Provider != nil {
		return call.Provider.Name
	}
	return "openai_compatible"
}
