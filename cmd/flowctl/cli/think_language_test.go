package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkTokenBlock is a registry js block that takes a credential.
const checkTokenBlock = `block "check_token" {
  description = "Check that an API token looks valid"
  runtime     = "js"
  input "token" {
    type = string
  }
  output "ok" {
    type = bool
  }
  source = "function execute(input) { if (input.token.length < 8) { throw new Error('token too short') } return { ok: true } }"
}
`

// wholeLanguageWire is a wire reply with a secret, a memory, a schedule,
// and steps with a retry, a timeout and on_error.
const wholeLanguageWire = `{"name": "morning_count", "description": "Count the words of my notes every weekday morning",
  "inputs": [],
  "secrets": [{"name": "api_token", "description": "The notes service's API token"}],
  "memory": [{"name": "runs", "type": "number", "default": "0", "value": "memory.runs + 1", "description": "Runs so far"},
             {"name": "last_count", "type": "number", "default": "0", "value": "step.count.count", "description": "The count of the last run"}],
  "steps": [
    {"name": "check", "use": "check_token", "args": {"token": "secret.api_token"}, "depends_on": [],
     "retry": null, "timeout": "10s", "on_error": "continue"},
    {"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}, "depends_on": [],
     "retry": {"attempts": 3, "backoff": "1s"}, "timeout": "30s", "on_error": null},
    {"name": "count", "use": "count_words", "args": {"text": "step.read.text"}, "depends_on": ["check"],
     "retry": null, "timeout": null, "on_error": null}],
  "outputs": [{"name": "count", "value": "step.count.count"}, {"name": "runs", "value": "memory.runs"},
              {"name": "previous", "value": "memory.last_count"}],
  "schedules": [{"name": "weekday_mornings", "cron": "0 7 * * 1-5", "timezone": "Europe/Paris", "inputs": null}]}`

// TestThinkWholeLanguage: an intent needing a credential, retries and a
// time limit, something remembered across runs and a schedule gets a
// flow with each as the language writes it (a secret block, retry and
// timeout, on_error, memory blocks, a schedule), which validates and
// applies: the secret is read from the environment, the memory counts
// the runs.
func TestThinkWholeLanguage(t *testing.T) {
	dir := thinkDir(t)
	reg := filepath.Join(t.TempDir(), "reg")
	os.MkdirAll(reg, 0o755)
	os.WriteFile(filepath.Join(reg, "check_token.block.hcl"), []byte(checkTokenBlock), 0o644)
	os.WriteFile(filepath.Join(reg, "count_words.block.hcl"), []byte(`block "count_words" {
  description = "Count the words of a text"
  runtime     = "js"
  input "text" {
    type = string
  }
  output "count" {
    type = number
  }
  source = "function execute(input) { return { count: input.text.split(/\\s+/).filter(w => w).length } }"
}
`), 0o644)
	srv := newThinkServer(t, map[string][]string{
		"decompose": {decompose(decomposeRead, decomposeCount, `{"id": "check_token", "description": "Check that an API token looks valid",
			"runtime": "js", "inputs": [{"name": "token", "type": "string", "description": "The token"}],
			"outputs": [{"name": "ok", "type": "bool", "description": "Whether it is valid"}]}`)},
		"wire": {wholeLanguageWire},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--registry", reg,
		"Every weekday at 7 count the words of my notes with my API token, retrying the read, and remember the last count")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	if got := strings.Join(srv.stages(), " "); got != "decompose wire" {
		t.Errorf("requests: %s", got)
	}
	// The prompt tells the model when to use each part.
	system := srv.recorded("wire")[0].Messages[0].Content
	for _, want := range []string{"a credential (an API key or token, a password) is always a secret", "memory: only for what a later run needs",
		"schedules: only when the intent names a time", "retry ({attempts"} {
		if !strings.Contains(system, want) {
			t.Errorf("the wire prompt lacks %q", want)
		}
	}
	src, err := os.ReadFile(filepath.Join(dir, "morning_count.flow.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`secret "api_token" {`, `memory "runs" {`, `value       = memory.runs + 1`, `memory "last_count" {`,
		`timeout  = "10s"`, `on_error = "continue"`, "retry {", "attempts = 3", `backoff  = "1s"`, `timeout = "30s"`,
		`schedule "weekday_mornings" {`, `cron     = "0 7 * * 1-5"`, `timezone = "Europe/Paris"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the flow lacks %q:\n%s", want, src)
		}
	}

	// validate (in applyOutputs) checks the schedule: its cron, its time
	// zone and its inputs against the flow's.
	// Applied twice: the secret comes from the environment, the memory
	// counts the runs and keeps the last count.
	t.Setenv("FLOWCTL_SECRET_API_TOKEN", "s3cret-token-value")
	first := applyOutputs(t, "morning_count.flow.hcl", "--registry", reg)
	if first["count"] != float64(6) || first["runs"] != float64(0) || first["previous"] != float64(0) {
		t.Errorf("first run's outputs: %v", first)
	}
	second := applyOutputs(t, "morning_count.flow.hcl", "--registry", reg)
	if second["runs"] != float64(1) || second["previous"] != float64(6) {
		t.Errorf("second run's outputs: %v", second)
	}
	// A token the check refuses: on_error = "continue" lets the run go on.
	t.Setenv("FLOWCTL_SECRET_API_TOKEN", "short")
	third := applyOutputs(t, "morning_count.flow.hcl", "--registry", reg)
	if third["count"] != float64(6) || third["runs"] != float64(2) {
		t.Errorf("third run's outputs: %v", third)
	}
}
