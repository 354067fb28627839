package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	openai "github.com/sashabaranov/go-openai"
)

// promptLog writes --log-prompts: one JSON line per round trip with the
// server. Lines from parallel steps never interleave.
type promptLog struct {
	mu sync.Mutex
	w  io.Writer
}

type logEntry struct {
	Time       string        `json:"time"`
	Step       string        `json:"step"`
	Provider   string        `json:"provider,omitempty"` // the provider block the step names; absent: the environment's
	Model      string        `json:"model"`
	Request    logRequest    `json:"request"`
	Response   *string       `json:"response"`
	ToolCalls  []logToolCall `json:"tool_calls,omitempty"` // in the response
	DurationMS int64         `json:"duration_ms"`
	Usage      *blocks.Usage `json:"usage"`
	Error      *string       `json:"error"`
}

type logRequest struct {
	Messages       []logMessage `json:"messages"`
	ResponseFormat any          `json:"response_format"`
	Temperature    *float64     `json:"temperature"`
	TopP           *float64     `json:"top_p,omitempty"`
	Seed           *int64       `json:"seed,omitempty"`
	Stop           []string     `json:"stop,omitempty"`
	MaxTokens      *int         `json:"max_tokens"`
	Tools          []string     `json:"tools,omitempty"` // their names
}

type logMessage struct {
	Role       string        `json:"role"`
	Content    string        `json:"content"`
	ToolCalls  []logToolCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

type logToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func logToolCalls(calls []openai.ToolCall, redact func(string) string) []logToolCall {
	var out []logToolCall
	for _, c := range calls {
		out = append(out, logToolCall{ID: c.ID, Name: c.Function.Name, Arguments: redact(c.Function.Arguments)})
	}
	return out
}

// write logs one round trip; f is nil when it succeeded. Every string goes
// through the call's redactor, so sensitive values never reach the log.
func (l *promptLog) write(call *blocks.Call, r *request, start time.Time, dur time.Duration, resp openai.ChatCompletionResponse, f *failure) {
	if l == nil {
		return
	}
	redact := redactor(call)
	e := logEntry{
		Time:       start.UTC().Format(time.RFC3339Nano),
		Step:       redact(call.Step),
		Model:      redact(r.model),
		DurationMS: dur.Milliseconds(),
		Provider:   providerName(call),
		Request:    logRequest{Temperature: r.temperature, TopP: r.topP, Seed: r.seed, Messages: make([]logMessage, len(r.messages))},
	}
	for i, m := range r.messages {
		e.Request.Messages[i] = logMessage{Role: m.Role, Content: redact(m.Content),
			ToolCalls: logToolCalls(m.ToolCalls, redact), ToolCallID: m.ToolCallID}
	}
	for _, t := range r.tools {
		e.Request.Tools = append(e.Request.Tools, t.Function.Name)
	}
	if r.format != nil {
		// Through JSON, so that the strings of the schema (descriptions)
		// are redacted too.
		if raw, err := json.Marshal(r.format); err == nil {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				e.Request.ResponseFormat = redactAll(v, redact)
			}
		}
	}
	if r.maxTokens > 0 {
		e.Request.MaxTokens = &r.maxTokens
	}
	for _, st := range r.stop {
		e.Request.Stop = append(e.Request.Stop, redact(st))
	}
	if f == nil {
		if len(resp.Choices) > 0 {
			text := redact(resp.Choices[0].Message.Content)
			e.Response = &text
			e.ToolCalls = logToolCalls(resp.Choices[0].Message.ToolCalls, redact)
		}
		e.Usage = usageOf(resp)
	} else {
		msg := redact(f.msg)
		e.Error = &msg
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(buf.Bytes()) // a prompt log that cannot be written does not fail the step
}

// redactor is the call's redactor, or none.
func redactor(call *blocks.Call) func(string) string {
	if call == nil || call.Redact == nil {
		return func(s string) string { return s }
	}
	return call.Redact
}

// redactAll applies redact to every string inside a decoded JSON value.
func redactAll(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		return redact(v)
	case []any:
		for i := range v {
			v[i] = redactAll(v[i], redact)
		}
	case map[string]any:
		for k, x := range v {
			v[k] = redactAll(x, redact)
		}
	}
	return v
}

// usageOf is the token usage of a reply.
func usageOf(resp openai.ChatCompletionResponse) *blocks.Usage {
	u := &blocks.Usage{
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
		TotalTokens:      resp.Usage.TotalTokens,
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u
}

func providerName(call *blocks.Call) string {
	if call.Provider == nil {
		return ""
	}
	return call.Provider.Name
}
