package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/llm/llmtest"
)

// streamingModel is an OpenAI-compatible server that streams each reply
// as the given chunks when asked to stream, and answers whole otherwise.
func streamingModel(t *testing.T, chunks ...string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "text/event-stream" {
			t.Errorf("a request that does not stream")
		}
		st := llmtest.NewStream(w, "m")
		for _, c := range chunks {
			st.Chunk(c)
		}
		st.End(llmtest.Usage{Prompt: 4, Completion: 6})
	}))
	t.Cleanup(srv.Close)
	return srv
}

const streamFlow = `
flow "talk" {}

secret "token" {
  env = "TALK_TOKEN"
}

provider "plain" {
  base_url = "%s/v1"
  prices = {
    "m" = { input = 1000, output = 10000 }
  }
}

provider "echo" {
  base_url = "%s/v1"
}

step "say" {
  use      = "llm"
  provider = provider.plain
  model    = "m"
  prompt   = "Say hello"
}

step "leak" {
  use      = "llm"
  provider = provider.echo
  model    = "m"
  prompt   = "Repeat ${secret.token}"
}

output "text" {
  value = step.say.text
}
`

// TestApplyStreams: apply --json writes a streaming step's text as
// step_delta events, in order and before its step_finished; their
// concatenation is the step's reply; a secret split across two chunks
// appears in no event.
func TestApplyStreams(t *testing.T) {
	plain := streamingModel(t, "Hel", "lo, ", "world.")
	echo := streamingModel(t, "Hello, the key is s3c", "r3t-v4lue", " and", " more.")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "talk.flow.hcl"), fmt.Appendf(nil, streamFlow, plain.URL, echo.URL), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TALK_TOKEN", "s3cr3t-v4lue")
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "--state", filepath.Join(dir, ".flowctl"), dir)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "s3cr3t") || strings.Contains(out, "r3t-v4lue") || strings.Contains(errOut, "r3t-v4lue") {
		t.Fatalf("a secret in the output:\n%s", out)
	}
	texts := map[string]string{}
	finished := map[string]bool{}
	var outputs map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Type, Step, Text string
			Outputs          map[string]any
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch e.Type {
		case "step_delta":
			if finished[e.Step] {
				t.Errorf("a step_delta of %s after its step_finished", e.Step)
			}
			texts[e.Step] += e.Text
		case "step_finished":
			finished[e.Step] = true
		case "run_finished":
			outputs = e.Outputs
		}
	}
	if texts["say"] != "Hello, world." || texts["say"] != outputs["text"] {
		t.Errorf("say streamed %q; its output is %q", texts["say"], outputs["text"])
	}
	if texts["leak"] != "Hello, the key is (sensitive) and more." {
		t.Errorf("leak streamed %q", texts["leak"])
	}
}

// TestRunsShowCalls: runs show --calls lists each model call of a run with
// its step, model, tokens, cost, message and reply; --step keeps one
// step's; --json has each call whole, redacted.
func TestRunsShowCalls(t *testing.T) {
	plain := streamingModel(t, "Hel", "lo, ", "world.")
	echo := streamingModel(t, "the key is s3cr3t-v4lue")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "talk.flow.hcl"), fmt.Appendf(nil, streamFlow, plain.URL, echo.URL), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TALK_TOKEN", "s3cr3t-v4lue")
	state := filepath.Join(dir, ".flowctl")
	if code, out, errOut := runCLI(t, "apply", "--auto-approve", "--state", state, dir); code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "runs", "show", "--calls", "--state", state)
	if code != 0 {
		t.Fatalf("runs show --calls exited %d: %s", code, errOut)
	}
	for _, want := range []string{"Model calls of run ", ": 2", "plain/m", "10 ($0.0640)", "user: Say hello", "reply: Hello, world.", "reply: the key is (sensitive)", "Cost: $0.0640 for 1 call. 1 call of a model without a price has no cost."} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show --calls lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cr3t") {
		t.Errorf("a secret in runs show --calls:\n%s", out)
	}
	code, out, _ = runCLI(t, "runs", "show", "--calls", "--step", "say", "--json", "--state", state)
	var got struct {
		Calls []struct {
			Seq  int64
			Step string
			Call struct {
				Model    string
				Response string
				Request  struct{ Stream bool }
				Usage    struct {
					CostUSD *float64 `json:"cost_usd"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("--json: %d %v\n%s", code, err, out)
	}
	if len(got.Calls) != 1 || got.Calls[0].Step != "say" || got.Calls[0].Call.Response != "Hello, world." || !got.Calls[0].Call.Request.Stream ||
		got.Calls[0].Call.Usage.CostUSD == nil || *got.Calls[0].Call.Usage.CostUSD != 0.064 {
		t.Errorf("--step say --json: %s", out)
	}
	if code, _, errOut := runCLI(t, "runs", "list", "--calls", "--state", state); code != 2 || !strings.Contains(errOut, "--calls lists a run's model calls") {
		t.Errorf("runs list --calls: %d %s", code, errOut)
	}
}
