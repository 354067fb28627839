package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// No step runs whose result could not be recorded: before an instance
// starts its block, the run asks the state whether what it records can be
// written (state.Store.WaitWritable), and so does each attempt after the
// first, and a block before it sends a request that waited for a
// connection or a place under a limit (blocks.Proceed, gate). While a shared database is away the
// instance waits for it — and so, one by one, does every instance about
// to start, so the run starts nothing — up to the store's wait; then it
// fails without running, and so does the run. A run that another process
// took over (this one lost the state for longer than its lease) starts
// nothing more either.

// waitState returns "" when an instance about to start may start, else
// why it may not (and the run has an error saying so).
func (r *run) waitState(ctx context.Context) string {
	st := r.opts.Store
	if st == nil {
		return ""
	}
	err := st.WaitWritable(ctx, r.id)
	if err == nil || ctx.Err() != nil {
		return ""
	}
	if errors.Is(err, state.ErrNotRecorded) {
		// The instance fails unstarted, and so does the run, with the
		// write's own error ("Results not recorded", FlushRun's).
		return "not started: " + err.Error()
	}
	detail := fmt.Sprintf("The state database did not answer for longer than the wait (%s, or --state-wait), so no step was started once it stopped answering: a step whose result cannot be recorded is not run. Resume the run when the state is back: flowctl apply --resume %s.", state.EnvWait, r.id)
	if errors.Is(err, state.ErrRunTaken) {
		detail = "This process lost the state for longer than its lease, and another process took the run over (it was recorded as interrupted, and may have been resumed). This process starts no more of its steps."
	}
	r.addDiags(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "State unreachable", Detail: detail}})
	return "not started: " + err.Error()
}

// settle waits, before an instance is reported finished, while the state
// is known to be away (up to the store's wait): a result is reported ok
// once it can be recorded, not while it may yet be lost.
func (r *run) settle() {
	if st := r.opts.Store; st != nil {
		st.WaitWritable(context.Background(), "")
	}
}

// gate is ctx with the run's gate (blocks.WithGate): a block that waited
// before it makes a side effect asks the state again whether it may
// (WaitWritable), so that a process stopped for longer than its lease
// sends nothing for a run it may no longer own.
func (r *run) gate(ctx context.Context) context.Context {
	st := r.opts.Store
	if st == nil {
		return ctx
	}
	return blocks.WithGate(ctx, func(ctx context.Context) error { return st.WaitWritable(ctx, r.id) })
}
