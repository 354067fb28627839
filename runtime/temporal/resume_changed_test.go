package temporal

import (
	"context"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

// TestResumeChangedRefused: a run started again on Temporal keeps every
// instance that finished ok, so a change that reaches one is refused
// there, naming the step and the way out (resuming in the process); a
// change to what failed only is not.
func TestResumeChangedRefused(t *testing.T) {
	const flow = `
flow "fix" {}

step "a" {
  use   = "value"
  value = 1
}

step "b" {
  use  = "file"
  path = "%s"
}
`
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := runtime.Apply(context.Background(), compile(t, strings.Replace(flow, "%s", "missing.txt", 1)), runtime.Options{Store: st, Inputs: nil})
	if err != nil || res.Status != runtime.StatusFailed {
		t.Fatalf("first run: %v %v", res.Status, err)
	}
	changed := compile(t, strings.Replace(strings.Replace(flow, "%s", "missing.txt", 1), "value = 1", "value = 2", 1))
	out, err := Runner{}.Apply(context.Background(), changed, runtime.Options{Store: st, RunID: res.RunID, Resume: true})
	if err != nil || out.RunID != "" || !strings.Contains(out.Diagnostics.Error(), "run "+res.RunID+" finished step a, which the change since reaches") ||
		!strings.Contains(out.Diagnostics.Error(), "flowctl apply --resume "+res.RunID+", without --engine temporal") {
		t.Errorf("changed a: %+v %v", out, err)
	}
	out, err = Runner{}.Apply(context.Background(), changed, runtime.Options{Store: st, RunID: res.RunID, Resume: true, KeepSucceeded: []string{"a"}})
	if err != nil || !strings.Contains(out.Diagnostics.Error(), "--keep-succeeded resumes a run in this process") {
		t.Errorf("--keep-succeeded: %+v %v", out, err)
	}
}
