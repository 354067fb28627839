package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThinkShowsProblemsOnce: a flow whose one problem is at three places
// and that three repairs do not fix shows the problem once for the first
// attempt, says the others have the same problems, and ends with what is
// still wrong, once.
func TestThinkShowsProblemsOnce(t *testing.T) {
	thinkDir(t)
	bad := wireReply("note_words", []string{`read file path="notes.txt"`, `a value value=step.read.nothing`,
		`b value value=step.read.nothing`, `c value value=step.read.nothing`}, "count=step.a.value")
	newThinkServer(t, map[string][]string{
		"decompose": {decompose(decomposeRead)},
		"wire":      {bad},
		"repair":    {bad, bad, bad},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "Count my notes")
	if code != 1 {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if n := strings.Count(out+errOut, `no output named "nothing"`); n != 2 {
		t.Errorf("the problem is shown %d times, want twice (the first attempt, what is still wrong):\n%s%s", n, out, errOut)
	}
	if n := strings.Count(out, "note_words.flow.hcl has 3 errors, 1 problem: the same as the attempt before"); n != 3 {
		t.Errorf("%d repairs say they have the same problems, want 3:\n%s", n, out)
	}
	for _, want := range []string{"(and at 2 more places: note_words.flow.hcl:", "the flow still has 3 errors after 3 repairs"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("output lacks %q:\n%s%s", want, out, errOut)
		}
	}
}

// TestThinkNextWorks: the Next: command of a flow with a required input
// runs as written.
func TestThinkNextWorks(t *testing.T) {
	dir := thinkDir(t)
	reply := strings.Replace(wireReply("shouter", []string{`read file path="notes.txt"`, `loud value value=upper(input.text)`}, "loud=step.loud.value"),
		`"inputs": []`, `"inputs": [{"name": "text", "type": "string", "description": "What to shout"}]`, 1)
	newThinkServer(t, map[string][]string{
		"decompose": {decompose(decomposeRead)},
		"wire":      {reply},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "Shout a text")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	_, next, ok := strings.Cut(out, "Next: ")
	if !ok {
		t.Fatalf("no Next:\n%s", out)
	}
	next = strings.TrimSpace(next)
	if next != "flowctl plan shouter.flow.hcl --input text=TEXT" {
		t.Fatalf("Next: %s", next)
	}
	if _, err := os.Stat(filepath.Join(dir, "shouter.flow.hcl")); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, strings.Fields(next)[1:]...); code != 0 || !strings.Contains(out, "+ run") {
		t.Errorf("%s: exit %d\n%s%s", next, code, out, errOut)
	}
}
