package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeModel is an OpenAI-compatible server: structured requests get an
// object with a value for each property of the schema, others a sentence.
// Every reply uses 10 prompt and 5 completion tokens.
func fakeModel(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat *struct {
				JSONSchema *struct {
					Schema struct {
						Properties map[string]struct {
							Type any `json:"type"`
						} `json:"properties"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.Error(w, "bad request", 400)
			return
		}
		content := "An overview in two sentences. It is short."
		if req.ResponseFormat != nil && req.ResponseFormat.JSONSchema != nil {
			obj := map[string]any{}
			for name, p := range req.ResponseFormat.JSONSchema.Schema.Properties {
				switch p.Type {
				case "array":
					obj[name] = []string{"search", "cache"}
				default:
					obj[name] = "summary of a note"
				}
			}
			b, _ := json.Marshal(obj)
			content = "```json\n" + string(b) + "\n```"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(args, streams{in: &bytes.Buffer{}, out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// TestSummarizeExample applies examples/summarize against a local
// OpenAI-compatible server and checks outputs, token usage in the events,
// the run's totals in runs show, and the prompt log.
func TestSummarizeExample(t *testing.T) {
	srv, calls := fakeModel(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "summarize")
	if err := os.CopyFS(dir, os.DirFS("../../../examples/summarize")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".flowctl"))
	log := filepath.Join(t.TempDir(), "prompts.jsonl")
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "--log-prompts", log, dir)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	events := parseEvents(t, []byte(out))
	last := events[len(events)-1]
	if last.Type != "run_finished" || last.Status != "ok" {
		t.Fatalf("run ended with %+v", last)
	}
	if calls.Load() != 3 {
		t.Errorf("%d model calls; want 3 (two summaries, one overview)", calls.Load())
	}
	var finished struct {
		Outputs map[string]any `json:"outputs"`
		Usage   struct {
			Total int `json:"total_tokens"`
		} `json:"usage"`
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	json.Unmarshal([]byte(lines[len(lines)-1]), &finished)
	if finished.Usage.Total != 45 {
		t.Errorf("run usage %d; want 45", finished.Usage.Total)
	}
	if got := finished.Outputs["topics"]; len(got.([]any)) != 2 {
		t.Errorf("topics: %v", got)
	}
	if !strings.Contains(out, `"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"unpriced_calls":1,"calls":1}`) {
		t.Errorf("step_finished events carry no usage:\n%s", out)
	}
	b, err := os.ReadFile(log)
	if err != nil || strings.Count(string(b), "\n") != 3 {
		t.Errorf("prompt log: %v\n%s", err, b)
	}
	var started struct {
		RunID string `json:"run_id"`
	}
	json.Unmarshal([]byte(lines[0]), &started)
	code, out, _ = runCLI(t, "runs", "show", started.RunID, "--flow", dir, "--json")
	if code != 0 || !strings.Contains(out, `"total_tokens": 45`) {
		t.Errorf("runs show: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "plan", dir)
	if code != 0 || !strings.Contains(out, "LLM calls: 3") {
		t.Errorf("plan: %d\n%s", code, out)
	}
}

// TestLLMSecretsAndMissingServer checks that a secret in a prompt never
// reaches the prompt log, and that without a server the step fails saying
// what to set.
func TestLLMSecretsAndMissingServer(t *testing.T) {
	const secret = "tok-9f8e7d6c5b"
	srv, _ := fakeModel(t)
	dir := t.TempDir()
	flow := `
flow "secret_prompt" {}

secret "token" {
  env = "FLOWCTL_TEST_LLM_TOKEN"
}

step "ask" {
  use    = "llm"
  prompt = "Check this token: ${secret.token}"
}

output "reply" {
  value     = step.ask.text
  sensitive = true
}
`
	os.WriteFile(filepath.Join(dir, "s.flow.hcl"), []byte(flow), 0o644)
	t.Setenv("FLOWCTL_TEST_LLM_TOKEN", secret)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	log := filepath.Join(t.TempDir(), "prompts.jsonl")
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--log-prompts", log, dir)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	b, _ := os.ReadFile(log)
	if len(b) == 0 || bytes.Contains(b, []byte(secret)) {
		t.Errorf("prompt log is empty or holds the secret:\n%s", b)
	}

	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	code, out, errOut = runCLI(t, "apply", "--auto-approve", "--no-cache", dir)
	if code != 1 || !strings.Contains(out+errOut, "OPENAI_API_KEY") {
		t.Errorf("without a server: exit %d\n%s%s", code, out, errOut)
	}
}
