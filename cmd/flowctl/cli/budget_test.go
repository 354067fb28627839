package cli

import (
	"strings"
	"testing"
)

// TestThinkBudgetStop: with --max-tokens (or FLOWCTL_MAX_TOKENS) too
// small for its first request, think sends nothing, writes nothing, says
// where it stopped and ends with the usage line, exit 1; a budget with
// room completes with the usage line. (Where a run stops midway is
// thinker's TestBudgetStop.)
func TestThinkBudgetStop(t *testing.T) {
	dir := thinkDir(t)
	script := func() map[string][]string {
		return map[string][]string{
			"decompose":    {decompose(decomposeRead, decomposeCount)},
			"create_block": {createReply("count_words", "js", countSource, `{"input": {"text": "a b c"}, "output": {"count": 3}}`)},
			"wire": {wireReply("note_words", []string{`read file path="notes.txt"`, `count count_words text=step.read.text`},
				"count=step.count.count")},
		}
	}
	srv := newThinkServer(t, script())
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--max-tokens", "100", "--sandbox", "inprocess", "Count the words of notes.txt")
	if code != 1 {
		t.Fatalf("think exited %d, want 1:\n%s%s", code, out, errOut)
	}
	if n := len(srv.recorded("")); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	for _, want := range []string{"stopped before decompose", "0 of the budget of 100 are used", "requests so far: none yet",
		"allow more with --max-tokens or FLOWCTL_MAX_TOKENS", "Nothing was written"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "Usage: 0 model calls, 0 prompt + 0 completion tokens.") {
		t.Errorf("no usage line:\n%s", out)
	}
	if got := filesIn(t, dir); strings.Join(got, " ") != "notes.txt" {
		t.Errorf("files written: %v", got)
	}

	// FLOWCTL_MAX_TOKENS with room: the flow, and the usage line by stage.
	srv = newThinkServer(t, script())
	t.Setenv("FLOWCTL_MAX_TOKENS", "100000")
	code, out, errOut = runCLI(t, "think", "--no-clarify", "--sandbox", "inprocess", "Count the words of notes.txt")
	if code != 0 || !strings.Contains(out, "Usage: 3 model calls, 30 prompt + 15 completion tokens: decompose 1 (10+5), create_block 1 (10+5), wire 1 (10+5).") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	t.Setenv("FLOWCTL_MAX_TOKENS", "many")
	if code, _, errOut = runCLI(t, "think", "--no-clarify", "x"); code != 2 || !strings.Contains(errOut, "FLOWCTL_MAX_TOKENS must be a whole number") {
		t.Errorf("a bad FLOWCTL_MAX_TOKENS: exit %d %s", code, errOut)
	}
}

// TestExplainBudgetStop: explain under a budget too small for its request
// sends nothing and exits 1, saying so.
func TestExplainBudgetStop(t *testing.T) {
	explainDir(t)
	srv := newThinkServer(t, map[string][]string{"explain": {explainReply(splitDiagnosis, "", "")}})
	code, out, errOut := runCLI(t, "explain", "--max-tokens", "50")
	if code != 1 || !strings.Contains(errOut, "stopped before explain") || len(srv.recorded("")) != 0 {
		t.Errorf("exit %d, %d requests:\n%s%s", code, len(srv.recorded("")), out, errOut)
	}
	if !strings.Contains(out, "Usage: 0 model calls") {
		t.Errorf("no usage line:\n%s", out)
	}
}
