package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
)

// TestStepOrders: a run's steps are sorted in the flow's order (a step
// after those it depends on, then as the file has them), instances in
// natural order, a summary's row before the instances it lists, and a
// step the file no longer has last, also in the runs the run started.
func TestStepOrders(t *testing.T) {
	dir := t.TempDir()
	src := `flow "f" {}

step "late" {
  use   = "value"
  value = step.early[0].value
}

step "early" {
  use      = "value"
  for_each = range(12)
  value    = each.value
}
`
	if err := os.WriteFile(filepath.Join(dir, "f.flow.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sr := func(step, instance string) *state.StepResult {
		return &state.StepResult{Step: step, Instance: instance}
	}
	summary := sr("early", "")
	kid := &state.RunTree{Run: &state.Run{ID: "k", FlowFile: "f.flow.hcl"}, Steps: []*state.StepResult{sr("late", ""), sr("early", "1")}}
	tree := &state.RunTree{
		Run:       &state.Run{ID: "r", FlowFile: "f.flow.hcl"},
		Steps:     []*state.StepResult{sr("gone", ""), sr("late", ""), sr("early", "10"), sr("early", "2"), summary},
		Summaries: map[*state.StepResult]*state.StepSummary{summary: {Step: "early"}},
		Children:  map[string][]*state.RunTree{"late": {kid}},
	}
	StepOrders{}.Sort(tree, filepath.Join(dir, ".flowctl"))
	label := func(steps []*state.StepResult) string {
		var out []string
		for _, s := range steps {
			if s == summary {
				out = append(out, "early[*]")
				continue
			}
			out = append(out, s.Label())
		}
		return strings.Join(out, " ")
	}
	if got, want := label(tree.Steps), "early[*] early[2] early[10] late gone"; got != want {
		t.Errorf("order: %s, want %s", got, want)
	}
	if got, want := label(kid.Steps), "early[1] late"; got != want {
		t.Errorf("the started run's order: %s, want %s", got, want)
	}
}
