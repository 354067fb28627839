package runtime

import (
	"context"
	"time"
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
