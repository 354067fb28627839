package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// scriptedModel is an OpenAI-compatible server that gives its replies in
// order (the last again once they run out) and keeps every request.
type scriptedModel struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []map[string]any // each a choice's message
	requests []map[string]any
}

func newScriptedModel(t *testing.T, replies ...map[string]any) *scriptedModel {
	m := &scriptedModel{replies: replies}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "bad request", 400)
			return
		}
		m.mu.Lock()
		n := len(m.requests)
		m.requests = append(m.requests, req)
		msg := m.replies[min(n, len(m.replies)-1)]
		m.mu.Unlock()
		reason := "stop"
		if msg["tool_calls"] != nil {
			reason = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": reason, "message": msg}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *scriptedModel) got() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.requests...)
}

// toolCalls is an assistant message calling tools: name, arguments pairs.
func toolCalls(first int, pairs ...string) map[string]any {
	var calls []any
	for i := 0; i+1 < len(pairs); i += 2 {
		calls = append(calls, map[string]any{
			"id": fmt.Sprintf("call_%d", first+i/2), "type": "function",
			"function": map[string]any{"name": pairs[i], "arguments": pairs[i+1]},
		})
	}
	return map[string]any{"role": "assistant", "content": "", "tool_calls": calls}
}

// toolMessages are the tool results a request carries, by call id.
func toolMessages(req map[string]any) map[string]string {
	out := map[string]string{}
	for _, m := range req["messages"].([]any) {
		m := m.(map[string]any)
		if m["role"] == "tool" {
			out[m["tool_call_id"].(string)] = m["content"].(string)
		}
	}
	return out
}

const toolsMainFlow = `
flow "main" {
  description = "Answers with the help of tools"
}

step "answer" {
  use    = "llm"
  prompt = "How many words are in 'one two three', and what is 'hi' shouted?"
  tools  = [flow.shout, block.word_count]
  output "answer" {
    type = string
  }
}

output "answer" {
  value = step.answer.answer
}

block "word_count" {
  description = "Counts the words of a text"
  runtime     = "js"
  input "text" {
    type        = string
    description = "The text"
  }
  output "count" {
    type = number
  }
  source = <<-JS
    function execute(input) {
      console.log("counting")
      return { count: input.text.split(/\s+/).filter(Boolean).length }
    }
  JS
}
`

const toolsShoutFlow = `
flow "shout" {
  description = "Upper-cases a text"
}

input "text" {
  type = string
}

step "up" {
  use   = "value"
  value = upper(input.text)
}

output "text" {
  value = step.up.value
}
`

// TestLLMToolCalls applies a flow whose llm step may call a flow and a
// block, against a model that calls a parallel pair, then a malformed
// call, an unknown tool and a call with a wrong argument, then answers:
// each round's request carries the results and errors of the last.
func TestLLMToolCalls(t *testing.T) {
	m := newScriptedModel(t,
		toolCalls(1, "word_count", `{"text": "one two three"}`, "shout", `{"text": "hi"}`),
		toolCalls(3, "word_count", `{not json`, "nope", `{}`, "word_count", `{"txt": "x"}`),
		map[string]any{"role": "assistant", "content": `{"answer": "3 words; HI"}`},
	)
	t.Setenv("OPENAI_BASE_URL", m.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.flow.hcl"), toolsMainFlow)
	writeFile(t, filepath.Join(dir, "shout.flow.hcl"), toolsShoutFlow)
	main := filepath.Join(dir, "main.flow.hcl")

	code, out, errOut := runCLI(t, "plan", main)
	if code != 0 || !strings.Contains(out, "may call flow.shout, block.word_count (at most 10 times)") {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = runCLI(t, "apply", "--auto-approve", "--json", "--sandbox", "inprocess", main)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	reqs := m.got()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	// Every request offers both tools with their schemas.
	for i, req := range reqs {
		tools, _ := req["tools"].([]any)
		var names []string
		for _, tl := range tools {
			f := tl.(map[string]any)["function"].(map[string]any)
			names = append(names, f["name"].(string))
			if f["name"] == "word_count" {
				params, _ := json.Marshal(f["parameters"])
				if want := `{"additionalProperties":false,"properties":{"text":{"description":"The text","type":"string"}},"required":["text"],"type":"object"}`; string(params) != want {
					t.Errorf("request %d: word_count's parameters = %s, want %s", i+1, params, want)
				}
			}
		}
		if strings.Join(names, ",") != "shout,word_count" {
			t.Errorf("request %d offers tools %v", i+1, names)
		}
	}
	second := toolMessages(reqs[1])
	if second["call_1"] != `{"count":3}` || second["call_2"] != `{"text":"HI"}` || len(second) != 2 {
		t.Errorf("second request's tool results = %v", second)
	}
	third := toolMessages(reqs[2])
	for id, want := range map[string]string{
		"call_3": "must be a JSON object",
		"call_4": `there is no tool named "nope"; the tools are shout, word_count`,
		"call_5": `block word_count has no input "txt"; its inputs are text`,
	} {
		if !strings.HasPrefix(third[id], "Error: ") || !strings.Contains(third[id], want) {
			t.Errorf("third request, %s: %q, want an error saying %q", id, third[id], want)
		}
	}
	if len(third) != 5 {
		t.Errorf("the third request carries %d tool results, want all 5 so far", len(third))
	}

	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("apply --json printed %q: %v", line, err)
		}
		events = append(events, e)
	}
	var started, ok, failed int
	var shoutRun string
	for _, e := range events {
		switch e["type"] {
		case "tool_call_started":
			started++
		case "tool_call_finished":
			if e["status"] == "ok" {
				ok++
			} else {
				failed++
			}
			if e["tool"] == "flow.shout" {
				shoutRun, _ = e["run_id"].(string)
			}
		case "run_finished":
			if got := e["outputs"].(map[string]any)["answer"]; got != "3 words; HI" {
				t.Errorf("output answer = %v", got)
			}
		}
	}
	if started != 5 || ok != 2 || failed != 3 || shoutRun == "" {
		t.Errorf("tool call events: %d started, %d ok, %d failed, shout's run %q; want 5, 2, 3 and a run", started, ok, failed, shoutRun)
	}
	code, out, _ = runCLI(t, "runs", "show", shoutRun, "--json", "--state", filepath.Join(dir, ".flowctl"))
	if code != 0 || !strings.Contains(out, `"HI"`) || !strings.Contains(out, `"origin": "tool"`) {
		t.Errorf("runs show of the flow tool's run: exit %d\n%s", code, out)
	}
	// The parent run's runs show nests the tool's run under the llm step.
	code, out, _ = runCLI(t, "runs", "show", "latest", "--flow", filepath.Join(dir, "main.flow.hcl"))
	if code != 0 || !strings.Contains(out, "run "+shoutRun+` of flow "shout" (tool)`) {
		t.Errorf("runs show of the parent run: exit %d\n%s", code, out)
	}
}

// TestLLMToolCallLimit: once max_tool_calls are used, the calls of a
// reply past them are not run, the next request forbids tool calls, and
// a model that still calls tools fails the step.
func TestLLMToolCallLimit(t *testing.T) {
	m := newScriptedModel(t,
		toolCalls(1, "word_count", `{"text": "a"}`, "word_count", `{"text": "a b"}`, "word_count", `{"text": "a b c"}`),
		toolCalls(4, "word_count", `{"text": "again"}`),
	)
	t.Setenv("OPENAI_BASE_URL", m.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	dir := t.TempDir()
	src := strings.Replace(toolsMainFlow, "tools  = [flow.shout, block.word_count]", "tools  = [block.word_count]\n  max_tool_calls = 2", 1)
	writeFile(t, filepath.Join(dir, "main.flow.hcl"), src)
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--sandbox", "inprocess", dir)
	if code != 1 || !strings.Contains(out+errOut, "the model kept calling tools after its 2 tool calls (max_tool_calls) were used") {
		t.Fatalf("apply: exit %d, want 1 with the limit's error\n%s%s", code, out, errOut)
	}
	reqs := m.got()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	second := toolMessages(reqs[1])
	if second["call_1"] != `{"count":1}` || second["call_2"] != `{"count":2}` || !strings.Contains(second["call_3"], "all are used") {
		t.Errorf("second request's tool results = %v", second)
	}
	if reqs[0]["tool_choice"] != nil || reqs[1]["tool_choice"] != "none" {
		t.Errorf("tool_choice: first %v, second %v; want none only once the calls are used", reqs[0]["tool_choice"], reqs[1]["tool_choice"])
	}
}

func writeFile(t *testing.T, path, src string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
