package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The flow of the explain tests: a js block that fails on its input (it
// reads a field the value lacks), a step before it and one after it.
const explainFlow = `flow "shout_words" {
  description = "Split a text into words and shout them"
}

secret "api_token" {
  description = "A token the split checks"
}

step "text" {
  use   = "value"
  value = { body = "flowctl wires typed blocks" }
}

step "split" {
  use   = "split_words"
  text  = step.text.value
  token = secret.api_token
}

step "shout" {
  use   = "value"
  value = upper(join(" ", step.split.words))
}

output "shouted" {
  value     = step.shout.value
  sensitive = true
}

output "words" {
  value = length(step.text.value.body)
}
`

func splitBlock(body string) string {
	return `block "split_words" {
  description = "Split a text into words"
  runtime     = "js"
  input "text" {
    type = any
  }
  input "token" {
    type = string
  }
  output "words" {
    type = list(string)
  }
  source = <<-JS
    function execute(input) {
` + body + `
    }
  JS
}
`
}

// The failing block logs and throws; the secret's value is in what it
// logs and in its error.
var (
	brokenSplit = splitBlock(`      console.log("splitting with token " + input.token)
      return { words: input.text.split(" ") }`)
	stillBroken = splitBlock(`      return { words: input.text.content.split(" ") }`)
	fixedSplit  = splitBlock(`      return { words: input.text.body.split(" ") }`)
)

const explainSecret = "tok-9f8e7d6c5b4a"

// explainDir is a project with the flow and its block, and a failed run
// of it; it returns the run's ID.
func explainDir(t *testing.T) (string, string) {
	t.Helper()
	dir := thinkDir(t)
	os.MkdirAll(filepath.Join(dir, "blocks"), 0o755)
	os.WriteFile(filepath.Join(dir, "shout.flow.hcl"), []byte(explainFlow), 0o644)
	os.WriteFile(filepath.Join(dir, "blocks", "split_words.block.hcl"), []byte(brokenSplit), 0o644)
	t.Setenv("FLOWCTL_SECRET_API_TOKEN", explainSecret)
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "--sandbox=inprocess", "shout.flow.hcl")
	if code != 1 {
		t.Fatalf("apply exited %d, want 1 (the js block fails):\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`"run_id":"([^"]+)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no run id in:\n%s", out)
	}
	return dir, m[1]
}

func explainReply(diagnosis, summary, block string) string {
	if block == "" {
		return fmt.Sprintf(`{"diagnosis": %q, "fix": null}`, diagnosis)
	}
	b, _ := json.Marshal(block)
	return fmt.Sprintf(`{"diagnosis": %q, "fix": {"summary": %q, "files": [{"path": "blocks/split_words.block.hcl", "content": %s}]}}`,
		diagnosis, summary, b)
}

const splitDiagnosis = "Step split failed: the block calls split on input.text, which is an object with a body field, not a string."

// noSecret checks that no request the model got holds the secret's value.
func noSecret(t *testing.T, srv *thinkServer) {
	t.Helper()
	for i, r := range srv.recorded("") {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, explainSecret) {
				t.Errorf("request %d (%s) holds the secret's value", i, r.stage())
			}
		}
	}
}

// TestExplainStagesVerifiedFix: a run failing in a js block is explained;
// the model's fix is checked (the failed step and the step after it run
// again on a copy of the run) and staged as a proposal; accepting it and
// resuming the run succeeds. The model got the flow, the step's error,
// its block's source and its log — with the secret redacted.
func TestExplainStagesVerifiedFix(t *testing.T) {
	dir, runID := explainDir(t)
	srv := newThinkServer(t, map[string][]string{
		"explain": {explainReply(splitDiagnosis, "Split the text's body field.", fixedSplit)},
	})
	code, out, errOut := runCLI(t, "explain", "--sandbox=inprocess")
	if code != 0 {
		t.Fatalf("explain exited %d:\n%s%s", code, out, errOut)
	}
	if got := strings.Join(srv.stages(), " "); got != "explain" {
		t.Errorf("requests: %s", got)
	}
	msg := srv.recorded("explain")[0].lastMessage()
	for _, want := range []string{`"run_id": "` + runID + `"`, `step \"split\"`, "input.text.split", "has no member 'split'", "splitting with token (sensitive)",
		`"block_file": "blocks/split_words.block.hcl"`, `"flow_changed_since_run": false`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the explain request lacks %q:\n%s", want, msg)
		}
	}
	noSecret(t, srv)
	m := regexp.MustCompile(`Proposed fix: (\S+) \(accept with flowctl proposals accept (\S+)\)`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] || !strings.Contains(out, splitDiagnosis) || !strings.Contains(out, "checked: split failed in the run and succeeds with it") ||
		!strings.Contains(out, "Usage: 1 model call, 10 prompt + 5 completion tokens: explain 1 (10+5).") {
		t.Fatalf("explain's output:\n%s", out)
	}
	// Nothing written yet.
	if b, _ := os.ReadFile(filepath.Join(dir, "blocks", "split_words.block.hcl")); string(b) != brokenSplit {
		t.Fatal("explain changed the block file")
	}
	code, out, errOut = runCLI(t, "proposals", "show", "--json", m[1])
	if code != 0 || !strings.Contains(out, `"run_id": "`+runID+`"`) || !strings.Contains(out, `"succeeded_now": [`) || !strings.Contains(out, "input.text.body.split") {
		t.Errorf("proposals show exited %d:\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "proposals", "accept", m[1]); code != 0 {
		t.Fatalf("accept exited %d:\n%s%s", code, out, errOut)
	}
	// Its evidence in sentences, not as JSON.
	for _, want := range []string{"In the run, step split failed.\n", "With the fix, run again on a copy of the run, step split succeeds.\n",
		"The fix is verified: the run's copy ended ok with it.\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("proposals accept does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"failed_before"`) || strings.Contains(out, "Evidence: {") {
		t.Errorf("proposals accept prints the evidence as JSON:\n%s", out)
	}
	code, out, errOut = runCLI(t, "apply", "--resume", runID, "--upgrade", "--json", "--sandbox=inprocess")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; code != 0 || !strings.Contains(last, `"type":"run_finished"`) || !strings.Contains(last, `"status":"ok"`) ||
		!strings.Contains(out, `"step":"shout"`) {
		t.Fatalf("apply --resume exited %d:\n%s%s", code, out, errOut)
	}
}

// TestExplainRepairsFix: a first fix that still fails goes back to the
// model with the new error; the second passes and is staged.
func TestExplainRepairsFix(t *testing.T) {
	explainDir(t)
	srv := newThinkServer(t, map[string][]string{
		"explain": {explainReply(splitDiagnosis, "Split the text's content.", stillBroken),
			explainReply(splitDiagnosis, "Split the text's body field.", fixedSplit)},
	})
	code, out, errOut := runCLI(t, "explain", "--json", "--sandbox=inprocess")
	if code != 0 {
		t.Fatalf("explain exited %d:\n%s%s", code, out, errOut)
	}
	events := thinkEvents(t, out)
	var checks []string
	for _, e := range events {
		if e["type"] == "fix_checked" {
			checks = append(checks, fmt.Sprintf("%v:%v", e["ok"], e["phase"]))
		}
	}
	if strings.Join(checks, " ") != "false:run true:run" {
		t.Errorf("fix_checked: %v", checks)
	}
	reqs := srv.recorded("explain")
	if len(reqs) != 2 || !strings.Contains(reqs[1].lastMessage(), "step split failed again") || !strings.Contains(reqs[1].lastMessage(), "Cannot read property 'split'") {
		t.Fatalf("the second request does not give the new error:\n%s", reqs[len(reqs)-1].lastMessage())
	}
	done := findEvent(events, "explain_done")
	if done == nil || done["proposal"] == nil || done["diagnosis"] != splitDiagnosis {
		t.Fatalf("explain_done: %v", done)
	}
	if u := findEvent(events, "usage"); u == nil || u["calls"] != float64(2) {
		t.Errorf("usage: %v", u)
	}
	noSecret(t, srv)
}

// TestExplainNoVerifiableFix: fixes that never pass (one does not
// compile) give the diagnosis and why no fix was staged, exit 0.
func TestExplainNoVerifiableFix(t *testing.T) {
	explainDir(t)
	bad := explainReply(splitDiagnosis, "Rewrite the block.", `block "split_words" { runtime = `)
	srv := newThinkServer(t, map[string][]string{
		"explain": {bad, bad, bad, explainReply(splitDiagnosis, "Split the text's content.", stillBroken)},
	})
	code, out, errOut := runCLI(t, "explain", "--sandbox=inprocess")
	if code != 0 {
		t.Fatalf("explain exited %d:\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, splitDiagnosis) || !strings.Contains(out, "No fix could be verified: the last fix proposed (Split the text's content) did not pass: step split failed again") {
		t.Errorf("output:\n%s", out)
	}
	if strings.Contains(out, "Proposed fix") {
		t.Errorf("a fix was proposed:\n%s", out)
	}
	if n := len(srv.recorded("explain")); n != 4 {
		t.Errorf("%d requests, want 4 (the first and 3 repairs)", n)
	}
	if msg := srv.recorded("explain")[1].lastMessage(); !strings.Contains(msg, `"fix_failed": "compile"`) {
		t.Errorf("the compile failure was not sent back:\n%s", msg)
	}
	code, out, _ = runCLI(t, "proposals", "list", "--json")
	if code != 0 || strings.Contains(out, "split_words") {
		t.Errorf("proposals: %s", out)
	}
	// --no-fix: the diagnosis only, one request.
	srv2 := newThinkServer(t, map[string][]string{"explain": {explainReply(splitDiagnosis, "", "")}})
	code, out, errOut = runCLI(t, "explain", "--no-fix")
	if code != 0 || !strings.Contains(out, splitDiagnosis) || strings.Contains(out, "No fix") || len(srv2.recorded("explain")) != 1 {
		t.Errorf("--no-fix exited %d:\n%s%s", code, out, errOut)
	}
	if !strings.Contains(srv2.recorded("explain")[0].lastMessage(), "Give the diagnosis only") {
		t.Error("--no-fix did not ask for the diagnosis only")
	}
	noSecret(t, srv)
	noSecret(t, srv2)
}
