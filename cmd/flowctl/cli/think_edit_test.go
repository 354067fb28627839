package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const editFlow = `# Reads my notes.
flow "notes" {
  description = "A flow"
}

step "read" {
  use  = "file"
  path = "notes.txt"
}

output "text" {
  value = step.read.text
}
`

// editServer scripts one think --edit: count_words is created and wired
// in after read.
func editServer(t *testing.T) *thinkServer {
	return newThinkServer(t, map[string][]string{
		"decompose":    {decompose(decomposeCount)},
		"create_block": {createReply("count_words", "js", countSource, `{"input": {"text": "a b c"}, "output": {"count": 3}}`)},
		"wire": {wireReply("notes", []string{`read file path="notes.txt"`, `count count_words text=step.read.text`},
			"text=step.read.text", "count=step.count.count")},
	})
}

// TestThinkEdit: think --edit stages a change of a flow as a proposal,
// printed step by step with its diff, writing nothing; proposals lists
// and shows it; accept refuses after the flow changed (drift) and writes
// nothing, then writes the files once the flow is as it was; reject drops
// one; --accept writes at once.
func TestThinkEdit(t *testing.T) {
	dir := thinkDir(t)
	flow := filepath.Join(dir, "notes.flow.hcl")
	writeFile(t, flow, editFlow)
	editServer(t)
	code, out, errOut := runCLI(t, "think", "--edit", "notes.flow.hcl", "--no-clarify", "--sandbox=inprocess", "Also count the words")
	if code != 0 {
		t.Fatalf("think --edit: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"+ step count (count_words)", "+ output count", "--- a/notes.flow.hcl", "+++ b/blocks/count_words.block.hcl", `+step "count" {`} {
		if !strings.Contains(out, want) {
			t.Errorf("think --edit output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "Staged as proposal ") {
		t.Fatalf("stderr: %s", errOut)
	}
	id := strings.Fields(strings.TrimPrefix(errOut[strings.Index(errOut, "Staged as proposal "):], "Staged as proposal "))[0]
	id = strings.TrimSuffix(id, ":")
	if src, _ := os.ReadFile(flow); string(src) != editFlow {
		t.Error("the flow file was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "blocks")); err == nil {
		t.Error("a block file was written")
	}

	code, out, _ = runCLI(t, "proposals")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "staged") || !strings.Contains(out, "+2 ~0 -0") {
		t.Errorf("proposals: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "proposals", "show", id, "--json")
	var shown struct {
		Status string   `json:"status"`
		Added  []string `json:"added"`
		Diff   string   `json:"diff"`
		Files  []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.Status != "staged" || len(shown.Files) != 2 ||
		shown.Files[0].Path != "notes.flow.hcl" || !strings.Contains(shown.Diff, "count_words") {
		t.Errorf("proposals show --json: exit %d\n%s", code, out)
	}

	// Drift: the flow changed since; accept writes nothing.
	writeFile(t, flow, editFlow+"# edited by hand\n")
	code, _, errOut = runCLI(t, "proposals", "accept", id)
	if code != 1 || !strings.Contains(strings.Join(strings.Fields(errOut), " "), "notes.flow.hcl changed since proposal "+id+" was made, so nothing was written") {
		t.Errorf("accept after drift: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "blocks")); err == nil {
		t.Error("a block file was written despite the drift")
	}
	writeFile(t, flow, editFlow)
	code, _, errOut = runCLI(t, "proposals", "accept", id)
	if code != 0 {
		t.Fatalf("accept: exit %d\n%s", code, errOut)
	}
	if src, _ := os.ReadFile(flow); !strings.Contains(string(src), `step "count"`) || !strings.Contains(string(src), "# Reads my notes.") {
		t.Errorf("the accepted flow:\n%s", src)
	}
	if code, _, errOut := runCLI(t, "validate", "."); code != 0 {
		t.Errorf("validate after accepting: exit %d\n%s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "proposals", "accept", id); code != 1 || !strings.Contains(errOut, "was accepted") {
		t.Errorf("accepting twice: exit %d\n%s", code, errOut)
	}

	// Reject, and --accept.
	writeFile(t, flow, editFlow)
	os.RemoveAll(filepath.Join(dir, "blocks"))
	editServer(t)
	code, out, _ = runCLI(t, "think", "--edit", ".", "--no-clarify", "--sandbox=inprocess", "--json", "Also count the words")
	events := thinkEvents(t, out)
	last := events[len(events)-1]
	if code != 0 || last["type"] != "proposal" || last["id"] == "" || !strings.Contains(last["diff"].(string), "count_words") {
		t.Fatalf("think --edit --json: exit %d, last event %v", code, last)
	}
	second := last["id"].(string)
	if code, out, _ := runCLI(t, "proposals", "reject", second, "--json"); code != 0 || !strings.Contains(out, `"status": "rejected"`) {
		t.Errorf("reject: exit %d\n%s", code, out)
	}
	editServer(t)
	code, _, errOut = runCLI(t, "think", "--edit", "notes.flow.hcl", "--no-clarify", "--sandbox=inprocess", "--accept", "Also count the words")
	if code != 0 || !strings.Contains(errOut, "Accepted proposal") {
		t.Fatalf("think --edit --accept: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "blocks", "count_words.block.hcl")); err != nil {
		t.Errorf("the block file: %v", err)
	}
	if code, _, errOut := runCLI(t, "think", "--edit", "notes.flow.hcl", "--force", "x"); code != 2 || !strings.Contains(errOut, "--out and --force do not apply") {
		t.Errorf("--edit --force: exit %d\n%s", code, errOut)
	}
}
