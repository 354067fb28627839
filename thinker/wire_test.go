package thinker

import (
	"context"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/hashicorp/hcl/v2"
)

// TestAttemptDiagnostics: when an expression of the reply does not parse,
// the rest of the flow is still compiled. What repair is sent and what
// --force reports are the diagnostics of validate on the written file
// (here: the flow's invalid name) plus the expression's, all of them in
// every round.
func TestAttemptDiagnostics(t *testing.T) {
	dir := t.TempDir()
	bad := strings.Replace(wire("step.read.text +"), `"name": "note_words"`, `"name": "Note Words"`, 1)
	m := newFakeModel(map[string][]string{
		StageDecompose:   {decomposeNotes},
		StageCreateBlock: {createCountWords},
		StageWire:        {bad},
		StageRepair:      {bad, bad, bad},
	})
	var rounds [][]string
	res, err := Think(context.Background(), Options{
		Intent: "count", Model: m, Dir: dir, Executors: testExecutors(), NoClarify: true, Force: true,
		Observe: func(e Event) {
			if cf, ok := e.(CompileFailed); ok {
				rounds = append(rounds, summaries(cf.Diagnostics))
			}
		},
	})
	if err == nil || res.File == "" || res.Valid {
		t.Fatalf("%+v, %v", res, err)
	}
	want := []string{
		`Invalid expression: The argument "text" of step "count", "step.read.text +", is not a valid HCL expression`,
		`Invalid name: The flow name "Note Words" is not valid`,
	}
	if len(rounds) != 1+MaxRepairs {
		t.Fatalf("%d compile failures", len(rounds))
	}
	for i, got := range rounds {
		if !containsAll(got, want) {
			t.Errorf("round %d:\n%s", i, strings.Join(got, "\n"))
		}
	}
	if got := summaries(res.Diagnostics); !containsAll(got, want) {
		t.Errorf("result:\n%s", strings.Join(got, "\n"))
	}
	for _, r := range m.requestsFor(StageRepair) {
		msg := lastMessage(r)
		for _, w := range []string{`"summary": "Invalid expression"`, `"summary": "Invalid name"`} {
			if !strings.Contains(msg, w) {
				t.Errorf("repair message lacks %s", w)
			}
		}
	}
	// Validate on the written file reports what the result says, but for
	// the expression that is not in the file.
	_, vdiags := compiler.Compile(res.File, compiler.Options{})
	validate := summaries(compiler.Normalize(vdiags))
	var rest []string
	for _, s := range summaries(res.Diagnostics) {
		if !strings.HasPrefix(s, "Invalid expression: ") {
			rest = append(rest, s)
		}
	}
	if strings.Join(rest, "\n") != strings.Join(validate, "\n") {
		t.Errorf("result:\n%s\nvalidate:\n%s", strings.Join(rest, "\n"), strings.Join(validate, "\n"))
	}
}

func summaries(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return out
}

func containsAll(got, prefixes []string) bool {
	for _, p := range prefixes {
		found := false
		for _, g := range got {
			if strings.HasPrefix(g, p) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
