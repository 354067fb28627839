package thinker

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const editBase = `# Counts the words of my notes.
flow "note_words" {
  description = "Count the words of notes.txt"
}

step "read" {
  use  = "file"
  path = "notes.txt" # the notes
  retry {
    attempts = 2
  }
}

output "text" {
  value = step.read.text
}
`

// TestEdit: think with Edit proposes a change of an existing flow —
// a step added with a block it creates, an argument changed, an output
// removed — applied in place (the comments and the retry block stay),
// with the change step by step and a unified diff; it writes nothing.
func TestEdit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "note_words.flow.hcl")
	if err := os.WriteFile(path, []byte(editBase), 0o644); err != nil {
		t.Fatal(err)
	}
	decompose := `{"blocks": [{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
		 "inputs": [{"name": "text", "type": "string", "description": "The text"}],
		 "outputs": [{"name": "count", "type": "number", "description": "How many words"}]}]}`
	wire := `{"name": "note_words", "description": "Count the words of notes.txt",
		"inputs": [],
		"steps": [
			{"name": "read", "use": "file", "args": {"path": "\"notes/all.txt\""}, "depends_on": []},
			{"name": "count", "use": "count_words", "args": {"text": "step.read.text"}, "depends_on": []}],
		"outputs": [{"name": "count", "value": "step.count.count"}]}`
	m := newFakeModel(map[string][]string{
		StageDecompose:   {decompose},
		StageCreateBlock: {createCountWords},
		StageWire:        {wire},
	})
	var staged *Proposal
	var last Event
	res, err := Think(context.Background(), Options{
		Intent: "also count the words, of notes/all.txt, and return only the count", Model: m, Edit: path,
		Executors: testExecutors(), NoClarify: true,
		Stage:   func(p *Proposal) (string, error) { staged = p; return "p1", nil },
		Observe: func(e Event) { last = e },
	})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Proposal
	if p == nil || staged != p || p.ID != "p1" {
		t.Fatalf("proposal %+v, staged %+v", p, staged)
	}
	if got, ok := last.(Proposed); !ok || got.ID != "p1" || got.Diff != p.Diff {
		t.Errorf("the last event: %#v", last)
	}
	want := Change{
		Added:   []string{"step count (count_words)", "output count"},
		Changed: []string{"step read: path"},
		Removed: []string{"output text"},
	}
	if !slices.Equal(p.Change.Added, want.Added) || !slices.Equal(p.Change.Changed, want.Changed) || !slices.Equal(p.Change.Removed, want.Removed) {
		t.Errorf("change: %+v, want %+v", p.Change, want)
	}
	if len(p.Files) != 2 || p.Files[0].Path != path || string(p.Files[0].Base) != editBase ||
		p.Files[1].Path != filepath.Join(dir, "blocks", "count_words.block.hcl") || p.Files[1].Base != nil {
		t.Fatalf("files: %+v", p.Files)
	}
	flow := string(p.Files[0].Content)
	for _, s := range []string{"# Counts the words of my notes.", "retry {", `path = "notes/all.txt"`, `step "count"`, "text = step.read.text", `output "count"`} {
		if !strings.Contains(flow, s) {
			t.Errorf("the proposed flow lacks %q:\n%s", s, flow)
		}
	}
	if strings.Contains(flow, `output "text"`) {
		t.Errorf("the removed output is still there:\n%s", flow)
	}
	for _, s := range []string{"--- a/note_words.flow.hcl\n+++ b/note_words.flow.hcl\n", `+step "count" {`, "--- /dev/null\n+++ b/blocks/count_words.block.hcl\n@@ -0,0 +1,", `-output "text" {`} {
		if !strings.Contains(p.Diff, s) {
			t.Errorf("the diff lacks %q:\n%s", s, p.Diff)
		}
	}
	if src, _ := os.ReadFile(path); string(src) != editBase {
		t.Error("the flow file was changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "blocks")); err == nil {
		t.Error("a block file was written")
	}
	reqs := m.requestsFor(StageWire)
	if len(reqs) != 1 || !strings.Contains(lastMessage(reqs[0]), "current_flow_json") || !strings.Contains(reqs[0].System, "existing flow") {
		t.Error("the wire request does not carry the current flow")
	}
}

// TestEditNoNewBlocks: an edit that needs no new block (decompose
// replies with none) and a reply that changes nothing is an error.
func TestEditNoChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "note_words.flow.hcl")
	os.WriteFile(path, []byte(editBase), 0o644)
	same := `{"name": "note_words", "description": "Count the words of notes.txt", "inputs": [],
		"steps": [{"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}, "depends_on": []}],
		"outputs": [{"name": "text", "value": "step.read.text"}]}`
	m := newFakeModel(map[string][]string{StageDecompose: {`{"blocks": []}`}, StageWire: {same}})
	_, err := Think(context.Background(), Options{Intent: "nothing", Model: m, Edit: path, NoClarify: true})
	if err == nil || !strings.Contains(err.Error(), "the reply changes nothing") {
		t.Errorf("error: %v", err)
	}
}
