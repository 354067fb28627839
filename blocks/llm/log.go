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

func logToolCalls(calls []openai.ToolCall, redact func(string) string) []blocks.ModelToolCall {
	var out []blocks.ModelToolCall
	for _, c := range calls {
		out = append(out, blocks.ModelToolCall{ID: c.ID, Name: c.Function.Name, Arguments: redact(c.Function.Arguments)})
	}
	return out
}

// try is one round trip with the server: the request, when it was
// sent, how long it took, its reply (f nil) or failure, which round trip
// of the request it was (from 1) and when the first chunk came (zero:
// not streamed).
type try struct {
	call  *blocks.Call
	r     *request
	start time.Time
	dur   time.Duration
	reply streamReply
	f     *failure
	n     int
}

// record is the round trip as a blocks.ModelCall. Every string goes
// through the call's redactor, so sensitive values never reach a log or
// a trace. cost prices the reply's usage (nil: no price).
func (tr try) record(cost func(blocks.Usage) *float64) blocks.ModelCall {
	call, r, resp := tr.call, tr.r, tr.reply.resp
	redact := redactor(call)
	e := blocks.ModelCall{
		Time:       tr.start.UTC().Format(time.RFC3339Nano),
		Step:       redact(call.Step),
		Attempt:    call.Attempt,
		Try:        tr.n,
		Model:      redact(r.model),
		DurationMS: tr.dur.Milliseconds(),
		Provider:   providerName(call),
		Request: blocks.ModelRequest{Temperature: r.temperature, TopP: r.topP, Seed: r.seed, Stream: r.stream,
			Messages: make([]blocks.ModelMessage, len(r.messages))},
	}
	for i, m := range r.messages {
		e.Request.Messages[i] = blocks.ModelMessage{Role: m.Role, Content: redact(m.Content),
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
	if !tr.reply.first.IsZero() {
		ms := tr.reply.first.Sub(tr.start).Milliseconds()
		e.FirstTokenMS = &ms
	}
	if tr.f == nil {
		e.Status = 200
		e.ResponseModel = redact(resp.Model)
		if len(resp.Choices) > 0 {
			text := redact(resp.Choices[0].Message.Content)
			e.Response = &text
			e.ToolCalls = logToolCalls(resp.Choices[0].Message.ToolCalls, redact)
			e.FinishReason = string(resp.Choices[0].FinishReason)
		}
		e.Usage = usageOf(resp)
		e.Usage.Calls = 1
		if cost != nil {
			e.Usage.CostUSD = cost(*e.Usage)
		}
		if e.Usage.CostUSD == nil {
			e.Usage.Unpriced = 1
		}
	} else {
		e.Status = tr.f.status
		msg := redact(tr.f.msg)
		e.Error = &msg
	}
	return e
}

// write logs a round trip.
func (l *promptLog) write(e blocks.ModelCall) {
	if l == nil {
		return
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
