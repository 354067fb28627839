package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
)

// TestPatternReuse: a flow think wrote is recorded as a pattern; a second
// think of a close intent is based on it — its blocks are the plan, its
// flow the worked example of wire — and needs fewer model calls (1
// against 3); flowctl patterns lists, shows and forgets it, and a pattern
// whose flow failed its runs is ranked down below the bar.
func TestPatternReuse(t *testing.T) {
	thinkDir(t)
	first := newThinkServer(t, map[string][]string{
		"decompose":    {decompose(decomposeRead, decomposeCount)},
		"create_block": {createReply("count_words", "js", countSource, `{"input": {"text": "a b c"}, "output": {"count": 3}}`)},
		"wire": {wireReply("note_words", []string{`read file path="notes.txt"`, `count count_words text=step.read.text`},
			"count=step.count.count")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--sandbox", "inprocess", "Count the words of notes.txt")
	if code != 0 {
		t.Fatalf("first think exited %d:\n%s%s", code, out, errOut)
	}
	firstCalls := len(first.recorded(""))

	code, out, _ = runCLI(t, "patterns", "--json")
	var ps []views.JSONPattern
	if code != 0 || json.Unmarshal([]byte(out), &ps) != nil || len(ps) != 1 || ps[0].Name != "note_words" || ps[0].Origin != "think" ||
		ps[0].Intent != "Count the words of notes.txt" {
		t.Fatalf("patterns: exit %d\n%s", code, out)
	}

	second := newThinkServer(t, map[string][]string{
		"wire": {wireReply("todo_words", []string{`read file path="todo.txt"`, `count count_words text=step.read.text`},
			"count=step.count.count")},
	})
	code, out, errOut = runCLI(t, "think", "--no-clarify", "--sandbox", "inprocess", "Count the words of todo.txt")
	if code != 0 {
		t.Fatalf("second think exited %d:\n%s%s", code, out, errOut)
	}
	secondCalls := len(second.recorded(""))
	t.Logf("model calls: first think %d, second think of a close intent %d", firstCalls, secondCalls)
	if firstCalls != 3 || secondCalls != 1 || !strings.Contains(out, "based on pattern note_words") {
		t.Errorf("calls %d then %d; output:\n%s", firstCalls, secondCalls, out)
	}
	if msg := second.recorded("wire")[0].lastMessage(); !strings.Contains(msg, `"worked_example"`) || !strings.Contains(msg, `"pattern": "note_words"`) {
		t.Errorf("the wire request has no worked example:\n%s", msg)
	}
	code, out, _ = runCLI(t, "patterns", "show", "note_words")
	if code != 0 || !strings.Contains(out, "used 1 times") || !strings.Contains(out, `step "count"`) {
		t.Errorf("patterns show: exit %d\n%s", code, out)
	}

	// Runs of the pattern's flow that fail rank it down: no longer used.
	if code, out, _ := runCLI(t, "patterns", "forget", "todo_words"); code != 0 {
		t.Fatalf("forget todo_words: %s", out)
	}
	os.Rename("notes.txt", "notes.bak")
	for i := 0; i < 2; i++ {
		if code, out, errOut := runCLI(t, "apply", "--auto-approve", "--sandbox=inprocess", "note_words.flow.hcl"); code != 1 {
			t.Fatalf("apply without notes.txt exited %d:\n%s%s", code, out, errOut)
		}
	}
	os.Rename("notes.bak", "notes.txt")
	code, out, _ = runCLI(t, "patterns", "--json")
	if json.Unmarshal([]byte(out), &ps) != nil || len(ps) != 1 || ps[0].RunsFailed != 2 {
		t.Errorf("patterns after two failed runs: %s", out)
	}
	third := newThinkServer(t, map[string][]string{
		"decompose": {decompose(decomposeRead, decomposeCount)},
		"wire": {wireReply("todo_words_2", []string{`read file path="todo.txt"`, `count count_words text=step.read.text`},
			"count=step.count.count")},
	})
	code, out, errOut = runCLI(t, "think", "--no-clarify", "--sandbox", "inprocess", "Count the words of todo.txt")
	if code != 0 || strings.Contains(out, "based on pattern") || len(third.recorded("decompose")) != 1 {
		t.Errorf("a failing pattern was used: exit %d\n%s%s", code, out, errOut)
	}

	code, out, _ = runCLI(t, "patterns", "forget", "note_words")
	if code != 0 || !strings.Contains(out, "Forgot pattern") {
		t.Errorf("forget: exit %d %s", code, out)
	}
	if code, _, errOut = runCLI(t, "patterns", "show", "note_words"); code != 1 || !strings.Contains(errOut, "Unknown pattern") {
		t.Errorf("show after forget: exit %d %s", code, errOut)
	}
}
