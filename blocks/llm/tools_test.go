package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
)

// callTools replies with an assistant message calling tools: name,
// arguments pairs, with ids call_1, call_2, ….
func callTools(pairs ...string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		var calls []any
		for i := 0; i+1 < len(pairs); i += 2 {
			calls = append(calls, map[string]any{"id": "call_" + string(rune('1'+i/2)), "type": "function",
				"function": map[string]any{"name": pairs[i], "arguments": pairs[i+1]}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "test-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
				"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}
}

// TestToolCallsRunConcurrently: the calls of one reply run at the same
// time (each waits for the other to start), their results go back in the
// reply's order, and the model's answer is the step's text.
func TestToolCallsRunConcurrently(t *testing.T) {
	s := newServer(t, callTools("a", `{"n": 1}`, "b", `{"n": 2}`), ok("done"))
	e := NewExecutor(testConfig(s))
	call := builtinCall(t, "use the tools")
	var both sync.WaitGroup
	both.Add(2)
	call.Tools = &blocks.Tools{
		Max:  10,
		Defs: []blocks.ToolDef{{Name: "a", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "b", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Call: func(ctx context.Context, id, name, args string) (string, error) {
			both.Done()
			waited := make(chan struct{})
			go func() { both.Wait(); close(waited) }()
			select {
			case <-waited:
			case <-time.After(20 * time.Second):
				t.Errorf("call %s of %s waited in vain for the other call of its reply", id, name)
			}
			return `{"tool":"` + name + `"}`, nil
		},
	}
	res, err := e.Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs["text"].AsString(); got != "done" {
		t.Errorf("text = %q", got)
	}
	reqs := s.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].body["messages"].([]any)
	var got []string
	for _, m := range msgs[len(msgs)-2:] {
		m := m.(map[string]any)
		got = append(got, m["tool_call_id"].(string)+"="+m["content"].(string))
	}
	if got[0] != `call_1={"tool":"a"}` || got[1] != `call_2={"tool":"b"}` {
		t.Errorf("tool results = %v", got)
	}
	if res.Usage.TotalTokens != 30 {
		t.Errorf("usage = %+v, want both round trips", res.Usage)
	}
}
