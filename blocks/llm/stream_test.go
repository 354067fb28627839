package llm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	openai "github.com/sashabaranov/go-openai"
	"github.com/zclconf/go-cty/cty"
)

// streamed replies as a streaming server does: one chunk per piece of
// text, then a chunk with the usage, then [DONE]; a request that does not
// ask to stream gets the whole reply.
func streamed(pieces ...string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "text/event-stream" {
			ok(strings.Join(pieces, ""))(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i, p := range pieces {
			c := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": p}}}}
			if i == 0 {
				c["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)["role"] = "assistant"
			}
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "data: %s\n\n", b)
			fl.Flush()
		}
		fmt.Fprintf(w, "data: %s\n\n", `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"test-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		fmt.Fprintf(w, "data: %s\n\n", `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"test-model","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

type deltas struct {
	mu    sync.Mutex
	texts []string
	reset []bool
}

func (d *deltas) add(text string, reset bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.texts = append(d.texts, text)
	d.reset = append(d.reset, reset)
}

// TestStreamDeltas: a step streams by default: the request asks for a
// stream with its usage, the text comes piece by piece, and the step's
// outputs and usage are what the whole reply says.
func TestStreamDeltas(t *testing.T) {
	s := newServer(t, streamed("Hel", "lo ", "world"))
	call := builtinCall(t, "hello")
	var d deltas
	call.Delta = d.add
	res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.texts, "|"); got != "Hel|lo |world" {
		t.Errorf("deltas %q", got)
	}
	if got := res.Outputs["text"].AsString(); got != "Hello world" {
		t.Errorf("text %q", got)
	}
	if res.Usage.PromptTokens != 7 || res.Usage.CompletionTokens != 3 {
		t.Errorf("usage %+v", res.Usage)
	}
	body := s.recorded()[0].body
	opts, _ := body["stream_options"].(map[string]any)
	if body["stream"] != true || opts["include_usage"] != true {
		t.Errorf("request: stream %v, stream_options %v", body["stream"], body["stream_options"])
	}
}

// TestStreamOff: stream = false, a provider's stream = false and
// FLOWCTL_LLM_STREAM=false send "stream": false; the reply is relayed whole.
func TestStreamOff(t *testing.T) {
	off := false
	for name, set := range map[string]func(*blocks.Call, *Config){
		"step": func(c *blocks.Call, _ *Config) { c.Inputs["stream"] = cty.False },
		"provider": func(c *blocks.Call, cfg *Config) {
			c.Provider = &blocks.Provider{Name: "p", BaseURL: cfg.BaseURL, Stream: &off}
		},
		"environment": func(_ *blocks.Call, cfg *Config) { cfg.NoStream = true },
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, streamed("a", "b"))
			call := builtinCall(t, "hello")
			var d deltas
			call.Delta = d.add
			cfg := testConfig(s)
			set(call, &cfg)
			if _, err := NewExecutor(cfg).Execute(testCtx(t), call); err != nil {
				t.Fatal(err)
			}
			if v := s.recorded()[0].body["stream"]; v != false {
				t.Errorf(`the request has "stream": %v`, v)
			}
			if strings.Join(d.texts, "|") != "ab" {
				t.Errorf("deltas %q", d.texts)
			}
		})
	}
}

// TestStreamRejected: a server that refuses to stream is asked again
// without, at once, and not asked to stream again.
func TestStreamRejected(t *testing.T) {
	refuse := func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == "text/event-stream" {
			fail(400, "stream is not supported")(w, r)
			return
		}
		ok("whole")(w, r)
	}
	s := newServer(t, refuse)
	e := NewExecutor(testConfig(s))
	for range 2 {
		res, err := e.Execute(testCtx(t), builtinCall(t, "hello"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Outputs["text"].AsString() != "whole" {
			t.Errorf("text %v", res.Outputs["text"])
		}
	}
	var streams int
	for _, r := range s.recorded() {
		if r.body["stream"] == true {
			streams++
		}
	}
	if n := len(s.recorded()); n != 3 || streams != 1 {
		t.Errorf("%d requests, %d asking to stream; want 3 and 1", n, streams)
	}
}

// TestStreamRetryAfter: a streaming request refused with 429 and
// Retry-After waits what the server says, as without streaming.
func TestStreamRetryAfter(t *testing.T) {
	s := newServer(t, fail(429, "slow down", "Retry-After", "0"), streamed("ok"))
	var said []blocks.Notice
	ctx := blocks.WithNotices(testCtx(t), func(n blocks.Notice) { said = append(said, n) })
	res, err := NewExecutor(testConfig(s)).Execute(ctx, builtinCall(t, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outputs["text"].AsString() != "ok" || len(said) != 1 || said[0].Wait != 0 {
		t.Errorf("text %v, notices %+v", res.Outputs["text"], said)
	}
}

// TestAssembleToolCalls: tool calls that come in pieces are put together
// by their index.
func TestAssembleToolCalls(t *testing.T) {
	i0, i1 := 0, 1
	var a assembler
	for _, c := range []openai.ChatCompletionStreamResponse{
		{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{Index: &i0, ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "search", Arguments: `{"q":`}}}}}}},
		{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{Index: &i1, ID: "c2", Function: openai.FunctionCall{Name: "fetch", Arguments: `{}`}}}}}}},
		{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{Index: &i0, Function: openai.FunctionCall{Arguments: `"go"}`}}}}, FinishReason: "tool_calls"}}},
	} {
		a.add(c)
	}
	m := a.reply().resp.Choices[0]
	if m.FinishReason != "tool_calls" || len(m.Message.ToolCalls) != 2 {
		t.Fatalf("%+v", m)
	}
	if c := m.Message.ToolCalls[0]; c.ID != "c1" || c.Function.Name != "search" || c.Function.Arguments != `{"q":"go"}` {
		t.Errorf("first call %+v", c)
	}
	if c := m.Message.ToolCalls[1]; c.ID != "c2" || c.Function.Name != "fetch" || c.Type != "function" {
		t.Errorf("second call %+v", c)
	}
}
