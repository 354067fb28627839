package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// A run can be paused (state.Store.PauseRun: flowctl runs pause, the
// server's API): the steps running finish, and no step starts until it is
// resumed. The flag is in the state, so a run reads it before each step
// starts, wherever the pause was made; while paused it reads it again
// every PausePoll.

// PausePoll is how often a paused run reads whether it was resumed.
var PausePoll = 200 * time.Millisecond

// holdWhilePaused returns when the run is not paused (or ctx ends).
func (r *run) holdWhilePaused(ctx context.Context) {
	st := r.opts.Store
	if st == nil {
		return
	}
	for ctx.Err() == nil {
		p, err := st.Paused(r.id)
		if err != nil || p == nil {
			return // a state that cannot say holds nothing back
		}
		t := time.NewTimer(PausePoll)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// SetPaused pauses run id (by whom) or lifts its pause, and reports
// whether it was paused before. Pausing a finished run is a diagnostic.
func SetPaused(st *state.Store, id string, pause bool, by string) (was bool, err error) {
	if !pause {
		return st.ResumeRun(id)
	}
	p, err := st.Paused(id)
	if err != nil {
		return false, err
	}
	err = st.PauseRun(id, by)
	if errors.Is(err, state.ErrNotPausable) {
		return false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Run finished",
			Detail: fmt.Sprintf("Run %s has finished: there is nothing to pause.", id)}}
	}
	return p != nil, err
}
