// Package llmtest writes what an OpenAI-compatible chat completions
// server answers, for the tests and benchmarks that stand one up on
// loopback: a whole reply, or a reply streamed as Server-Sent Events.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Usage is the tokens a reply says it used.
type Usage struct{ Prompt, Completion int }

// Reply writes a whole chat completion of model whose content is
// content, with its usage.
func Reply(w http.ResponseWriter, model, content string, u Usage) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   usageOf(u),
	})
}

// Stream starts a streamed reply of model; each Chunk sends a piece of
// its text at once, and End finishes it with its usage.
type Stream struct {
	w     http.ResponseWriter
	model string
}

// NewStream starts a streamed reply on w.
func NewStream(w http.ResponseWriter, model string) *Stream {
	w.Header().Set("Content-Type", "text/event-stream")
	return &Stream{w: w, model: model}
}

// Chunk sends a piece of the reply's text and flushes it.
func (s *Stream) Chunk(text string) {
	s.send(map[string]any{"index": 0, "delta": map[string]any{"content": text}}, nil)
}

// End sends the reply's end: its finish reason, its usage and [DONE].
func (s *Stream) End(u Usage) {
	s.send(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}, nil)
	s.send(nil, &u)
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	s.w.(http.Flusher).Flush()
}

func (s *Stream) send(choice map[string]any, u *Usage) {
	chunk := map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": s.model, "choices": []any{}}
	if choice != nil {
		chunk["choices"] = []any{choice}
	}
	if u != nil {
		chunk["usage"] = usageOf(*u)
	}
	b, _ := json.Marshal(chunk)
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	s.w.(http.Flusher).Flush()
}

func usageOf(u Usage) map[string]int {
	return map[string]int{"prompt_tokens": u.Prompt, "completion_tokens": u.Completion, "total_tokens": u.Prompt + u.Completion}
}
