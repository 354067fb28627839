package cli

import (
	"io"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/state"
)

// runsShowStep lists every instance of one step of a run, in the order of
// their keys: a table, or with --json one JSON array of the instances
// with their outputs, one a line.
func runsShowStep(w io.Writer, st *state.Store, run *state.Run, step string, jsonOut bool) error {
	rows, err := st.StepResults(run.ID, state.StepQuery{Step: step})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return failf("No such step", "Run %s recorded no step %q.", run.ID, step)
	}
	return views.NewRuns(w, jsonOut).Step(run.ID, step, rows)
}
