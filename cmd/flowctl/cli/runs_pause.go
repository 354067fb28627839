package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/terminal"
)

// runsPause is runs pause RUN_ID and runs resume RUN_ID (runtime/pause.go).
func runsPause(s streams, f *arguments.State, id string, pause bool) error {
	st, flow, err := openStateOf(s, f)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := findRun(st, flow, id)
	if err != nil {
		return err
	}
	was, err := runtime.SetPaused(st, run.ID, pause, terminal.User())
	if err != nil {
		return fromBelow(err)
	}
	views.WritePause(s.out, run.ID, pause, was)
	return nil
}
