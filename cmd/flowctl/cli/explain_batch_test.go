package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker"
)

// The flow of the batch explain test: step parse runs its js block once
// per item, and the block cannot parse the item "bad".
const batchFlow = `flow "batch" {}

input "items" {
  type    = list(string)
  default = ["a", "bb", "bad", "cccc"]
}

step "parse" {
  use      = "parse"
  for_each = input.items
  s        = each.value
}

step "total" {
  use   = "value"
  value = sum(step.parse[*].n)
}

output "total" {
  value = step.total.value
}
`

func parseBlock(body string) string {
	return `block "parse" {
  description = "The length of an item"
  runtime     = "js"
  input "s" {
    type = string
  }
  output "n" {
    type = number
  }
  source = <<-JS
    function execute(input) {
` + body + `
    }
  JS
}
`
}

var (
	brokenParse = parseBlock(`      if (input.s == "bad") throw new Error("cannot parse " + input.s)
      return { n: input.s.length }`)
	// fixedParse counts "bad" as 10, the others by their length.
	fixedParse = parseBlock(`      if (input.s == "bad") return { n: 10 }
      return { n: input.s.length }`)
)

const parseDiagnosis = "Step parse failed on item 2: its block throws on the item \"bad\" instead of counting it."

// pythonBatchFlow is batchFlow with its block, in python, in the flow
// file.
func pythonBatchFlow(body string) string {
	return batchFlow + `
block "parse" {
  runtime = "python"
  input "s" {
    type = string
  }
  output "n" {
    type = number
  }
  source = <<-PY
    def execute(input, ctx):
` + body + `
  PY
}
`
}

// TestExplainVerifiesBatchFix: a for_each step fails on one of its four
// items. explain's fix changes the step's block, which the three
// instances that succeeded ran too: the check runs the step again, all
// its instances, on a copy of the run, and stages the fix as verified,
// its evidence naming the instances it ran. Accepting it and resuming the
// run finishes it with the fixed code. The block is a js block in a block
// file, or a python block in the flow file.
func TestExplainVerifiesBatchFix(t *testing.T) {
	t.Run("js", func(t *testing.T) {
		explainBatch(t, map[string]string{"batch.flow.hcl": batchFlow, "blocks/parse.block.hcl": brokenParse}, "blocks/parse.block.hcl", fixedParse)
	})
	t.Run("python", func(t *testing.T) {
		needPython(t)
		broken := pythonBatchFlow(`        if input["s"] == "bad":
            raise ValueError("cannot parse " + input["s"])
        return {"n": len(input["s"])}`)
		fixed := pythonBatchFlow(`        if input["s"] == "bad":
            return {"n": 10}
        return {"n": len(input["s"])}`)
		explainBatch(t, map[string]string{"batch.flow.hcl": broken}, "batch.flow.hcl", fixed)
	})
}

// explainBatch runs the batch flow of files, which fails on item 2, and
// explains the run with a model that replies with the fix fixed for the
// file fixPath; then accepts the fix and resumes the run.
func explainBatch(t *testing.T, files map[string]string, fixPath, fixed string) {
	dir := thinkDir(t)
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "batch.flow.hcl")
	if code != 1 || !strings.Contains(out, "cannot parse bad") {
		t.Fatalf("apply exited %d, want 1 (parse[2] fails):\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`"run_id":"([^"]+)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no run id in:\n%s", out)
	}
	runID := m[1]

	b, _ := json.Marshal(fixed)
	reply := `{"diagnosis": "` + strings.ReplaceAll(parseDiagnosis, `"`, `\"`) + `", "fix": {"summary": "Count the item bad as 10.", "files": [{"path": "` + fixPath + `", "content": ` + string(b) + `}]}}`
	srv := newThinkServer(t, map[string][]string{"explain": {reply}})
	code, out, errOut = runCLI(t, "explain", runID)
	if code != 0 {
		t.Fatalf("explain exited %d:\n%s%s", code, out, errOut)
	}
	if n := len(srv.recorded("explain")); n != 1 {
		t.Fatalf("%d requests to the model, want 1 (the first fix passes):\n%s", n, out)
	}
	// The model is told that three of the step's instances succeeded.
	if msg := srv.recorded("explain")[0].lastMessage(); !regexp.MustCompile(`"instances": \{\s*"failed": 1,\s*"ok": 3\s*\}`).MatchString(msg) {
		t.Errorf("the explain request does not count parse's instances:\n%s", msg)
	}
	m = regexp.MustCompile(`Proposed fix: (\S+) \(accept with flowctl proposals accept (\S+)\)`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] {
		t.Fatalf("no proposed fix in explain's output:\n%s", out)
	}
	for _, want := range []string{
		"    ✓ fix 1 (Count the item bad as 10.): the failed steps succeed with it",
		"  checked: parse[2] failed in the run and succeeds with it.",
		"  checked: parse[0], parse[1], parse[3] succeeded in the run and succeed again with it.",
		"Then: flowctl apply --resume " + runID + " --upgrade",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("explain's output lacks %q:\n%s", want, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, fixPath)); string(b) != files[fixPath] {
		t.Fatal("explain changed the file the fix changes")
	}

	// The proposal's evidence: what failed and succeeds now, and every
	// instance the check ran.
	code, out, errOut = runCLI(t, "proposals", "show", "--json", m[1])
	if code != 0 {
		t.Fatalf("proposals show exited %d:\n%s%s", code, out, errOut)
	}
	var shown struct {
		Evidence struct {
			Verified     bool     `json:"verified"`
			FailedBefore []string `json:"failed_before"`
			SucceededNow []string `json:"succeeded_now"`
			Ran          []string `json:"ran"`
			RanCount     int      `json:"ran_count"`
			Rechecked    []string `json:"rechecked"`
			Kept         []string `json:"kept"`
			Status       string   `json:"run_status_with_fix"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("proposals show --json: %v\n%s", err, out)
	}
	ev := shown.Evidence
	if !ev.Verified || ev.Status != "ok" || strings.Join(ev.FailedBefore, " ") != "parse[2]" || strings.Join(ev.SucceededNow, " ") != "parse[2]" ||
		strings.Join(ev.Ran, " ") != "parse[0] parse[1] parse[2] parse[3] total" || ev.RanCount != 5 ||
		strings.Join(ev.Rechecked, " ") != "parse[0] parse[1] parse[3]" || len(ev.Kept) != 0 {
		t.Errorf("evidence: %+v\n%s", ev, out)
	}

	if code, out, errOut = runCLI(t, "proposals", "accept", m[1], "--auto-approve"); code != 0 {
		t.Fatalf("accept exited %d:\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, fixPath)); string(b) != fixed {
		t.Fatalf("accept did not write the fix:\n%s", b)
	}
	code, out, errOut = runCLI(t, "apply", "--resume", runID, "--upgrade")
	if code != 0 || !regexp.MustCompile(`(?m)^total = 17$`).MatchString(out) {
		t.Fatalf("apply --resume exited %d, want 0 and total 1+2+10+4:\n%s%s", code, out, errOut)
	}
}

// TestExplainViewKept: a proposal whose check kept the instances that
// succeeded of a step says they were not checked, and why, and resumes
// the run as the check did.
func TestExplainViewKept(t *testing.T) {
	var out bytes.Buffer
	v := views.NewExplain(&out, false)
	kept := make([]string, 12)
	for i := range kept {
		kept[i] = fmt.Sprintf("ask[%d]", i)
	}
	ev, _ := json.Marshal(thinker.FixEvidence{Verified: true, FailedBefore: []string{"ask[12]"}, SucceededNow: []string{"ask[12]"},
		Ran: []string{"ask[12]", "all"}, RanCount: 2, Kept: kept, KeptCount: 1200, KeptBecause: map[string]string{"ask": "it calls a model"}, RunStatusWith: "ok"})
	v.Done(&state.Run{ID: "r1", Flow: "ask", Status: "failed"}, &thinker.ExplainResult{Diagnosis: "Item 12 is bad.", Proposal: "p1",
		Fix: &thinker.Fix{Summary: "Ask for good."}, Verification: &thinker.Verification{OK: true, Evidence: ev}})
	for _, want := range []string{
		"  checked: ask[12] failed in the run and succeeds with it.\n",
		"  not checked: ask[0], ask[1], ask[2], ask[3], ask[4], ask[5], ask[6], ask[7], ask[8], ask[9] and 1,190 more succeeded in the run and kept what they recorded (step ask: it calls a model).\n",
		"Then: flowctl apply --resume r1 --upgrade --keep-succeeded step.ask\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "succeed again") {
		t.Errorf("nothing was rechecked:\n%s", out.String())
	}
}
