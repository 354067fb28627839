package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
)

// runsCalls is runs show --calls: the model calls of a run, or of one of
// its steps.
func runsCalls(s streams, f *arguments.State, id, step string, jsonOut bool) error {
	st, flow, err := openStateOf(s, f)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := findRun(st, flow, id)
	if err != nil {
		return err
	}
	calls, err := st.Calls(run.ID, step, 0, 0)
	if err != nil {
		return err
	}
	return views.NewCalls(s.out, jsonOut).List(run, step, calls)
}
