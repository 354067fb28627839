package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recordingModel is an OpenAI-compatible server that answers every chat
// completion with reply and records each request's body and
// Authorization header.
type recordingModel struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	keys   []string
}

func newRecordingModel(t *testing.T, reply string) *recordingModel {
	m := &recordingModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(raw, &body)
		m.mu.Lock()
		m.bodies = append(m.bodies, body)
		m.keys = append(m.keys, r.Header.Get("Authorization"))
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *recordingModel) requests() ([]map[string]any, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.bodies...), append([]string(nil), m.keys...)
}

// TestTwoProviders applies a flow whose two llm steps name two
// providers: each step's request reaches its own server, with its own
// key (from its secret) and model, and none reaches the environment's;
// plan names each step's provider and model.
func TestTwoProviders(t *testing.T) {
	local, remote, env := newRecordingModel(t, "from local"), newRecordingModel(t, "from remote"), newRecordingModel(t, "from env")
	t.Setenv("OPENAI_BASE_URL", env.URL)
	t.Setenv("OPENAI_API_KEY", "env-key-0123456789")
	t.Setenv("FLOWCTL_MODEL", "env-model")
	t.Setenv("LOCAL_KEY", "local-key-0123456789")
	t.Setenv("REMOTE_KEY", "remote-key-0123456789")
	dir := t.TempDir()
	flow := `flow "two" {}

secret "local_key" {
  env = "LOCAL_KEY"
}
secret "remote_key" {
  env = "REMOTE_KEY"
}

provider "local" {
  base_url    = "` + local.URL + `/v1"
  api_key     = secret.local_key
  concurrency = 2
  prices = {
    "llama3.1:8b" = { input = 0, output = 0 }
  }
}

provider "remote" {
  base_url = "` + remote.URL + `/v1"
  api_key  = secret.remote_key
  rpm      = 600
}

step "classify" {
  use      = "llm"
  provider = provider.local
  model    = "llama3.1:8b"
  prompt   = "Classify: a ticket"
}

step "summarize" {
  use      = "llm"
  provider = provider.remote
  prompt   = "Summarize: ${step.classify.text}"
}

step "plain" {
  use    = "llm"
  prompt = "Say hi"
}

output "both" {
  value = "${step.classify.text} / ${step.summarize.text} / ${step.plain.text}"
}
`
	if err := os.WriteFile(filepath.Join(dir, "two.flow.hcl"), []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "plan", dir)
	if code != 0 {
		t.Fatalf("plan exited %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		`calls model "llama3.1:8b" of provider local`,
		`calls model "env-model" of provider remote`,
		`calls model "env-model" of the environment's provider (OPENAI_BASE_URL)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan does not say %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, "plan", "--json", dir)
	if code != 0 || !strings.Contains(out, `"provider": "local"`) || !strings.Contains(out, `"model": "llama3.1:8b"`) {
		t.Errorf("plan --json: %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = runCLI(t, "docs", dir)
	if code != 0 || !strings.Contains(out, "| `local` | `"+local.URL+"/v1` | `secret.local_key` | concurrency 2 | `classify` |") ||
		!strings.Contains(out, "| `remote` | `"+remote.URL+"/v1` | `secret.remote_key` | rpm 600 | `summarize` |") {
		t.Errorf("docs: %d\n%s%s", code, out, errOut)
	}

	log := filepath.Join(t.TempDir(), "prompts.jsonl")
	code, out, errOut = runCLI(t, "apply", "--auto-approve", "--json", "--log-prompts", log, dir)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, `"both":"from local / from remote / from env"`) {
		t.Errorf("outputs:\n%s", out)
	}
	b, _ := os.ReadFile(log)
	if !strings.Contains(string(b), `"step":"classify","attempt":1,"try":1,"provider":"local"`) || !strings.Contains(string(b), `"step":"summarize","attempt":1,"try":1,"provider":"remote"`) ||
		strings.Contains(string(b), "key-0123456789") {
		t.Errorf("prompt log:\n%s", b)
	}
	for _, c := range []struct {
		name  string
		m     *recordingModel
		key   string
		model string
		text  string
	}{
		{"local", local, "Bearer local-key-0123456789", "llama3.1:8b", "Classify: a ticket"},
		{"remote", remote, "Bearer remote-key-0123456789", "env-model", "Summarize: from local"},
		{"env", env, "Bearer env-key-0123456789", "env-model", "Say hi"},
	} {
		bodies, keys := c.m.requests()
		if len(bodies) != 1 {
			t.Errorf("server %s got %d requests; want 1", c.name, len(bodies))
			continue
		}
		if keys[0] != c.key {
			t.Errorf("server %s got the key %q; want %q", c.name, keys[0], c.key)
		}
		if bodies[0]["model"] != c.model {
			t.Errorf("server %s got the model %v; want %s", c.name, bodies[0]["model"], c.model)
		}
		msgs, _ := json.Marshal(bodies[0]["messages"])
		if !strings.Contains(string(msgs), c.text) {
			t.Errorf("server %s got the messages %s; want the prompt %q", c.name, msgs, c.text)
		}
	}
}
