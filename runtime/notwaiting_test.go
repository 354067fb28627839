package runtime

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// TestNotWaiting: a decision the state refused says which approvals the
// run waits for, or that the step's deadline passed; another error is
// returned as it is.
func TestNotWaiting(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now().Add(-time.Hour)
	run := &state.Run{ID: "r1", Flow: "f", StartedAt: t0, Status: "waiting"}
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	for _, a := range []*state.Approval{
		{RunID: "r1", Step: "review", Instance: "a", Message: "Send?", RequestedAt: t0},
		{RunID: "r1", Step: "late", Message: "Late?", RequestedAt: t0, Deadline: t0.Add(time.Minute)},
	} {
		if err := st.RequestApproval(a); err != nil {
			t.Fatal(err)
		}
	}
	detail := func(err error) string {
		var diags hcl.Diagnostics
		if !errors.As(err, &diags) || len(diags) != 1 || diags[0].Summary != "Not waiting" {
			t.Fatalf("not a diagnostic: %v", err)
		}
		return diags[0].Detail
	}
	if got := detail(NotWaiting(st, run, "other", "", state.ErrNotWaiting, time.Now())); got != "Step other of run r1 (waiting) is not waiting for a decision; it waits for late, review[a]." {
		t.Errorf("waiting for others: %q", got)
	}
	if got := detail(NotWaiting(st, run, "late", "", state.ErrNotWaiting, time.Now())); !strings.HasPrefix(got, "The deadline of step late of run r1 passed at ") {
		t.Errorf("past its deadline: %q", got)
	}
	if err := NotWaiting(st, run, "x", "", io.EOF, time.Now()); err != io.EOF {
		t.Errorf("another error: %v", err)
	}
}
