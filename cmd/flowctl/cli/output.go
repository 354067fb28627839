package cli

import (
	"slices"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newOutputCommand(s streams) *cobra.Command {
	var a arguments.Output
	cmd := &cobra.Command{
		Use:   "output [NAME]",
		Short: "Print the outputs of the last successful run, or of any run",
		Long: `Output prints the outputs of the newest successful run in the project's state
(of the flow given with --flow, else of any flow applied there; not the runs
of flows that steps use), or of the run given with --run, failed and
cancelled runs included: those have the outputs whose steps finished, and the
others are listed on standard error with the reason. Standard error first
says which run of which flow it is (with NAME too), and when the state has
runs of several flows, how to choose another. With NAME it prints that output
alone, so that standard output is the value: a string
as it is, anything else as JSON; an output the run has no value for is an
error that says why. Sensitive outputs show as (sensitive).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			jsonOut, runID := a.JSON, a.Run
			st, flow, err := openStateOf(s, &a.State)
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := runtime.OutputRun(st, flow, a.Namespace, runID)
			if err != nil {
				return diagnosed(err)
			}
			if !jsonOut {
				views.WriteOutputHeader(s.err, run, a.Name != "", otherFlows(st, run, flow == "" && runID == ""))
			}
			outputs, failed, err := runtime.RunOutputs(run)
			if err != nil {
				return err
			}
			view := views.NewOutput(s.out, s.err, jsonOut)
			if a.Name != "" {
				v, err := runtime.OutputValue(run, a.Name, outputs, failed)
				if err != nil {
					return diagnosed(err)
				}
				return view.One(v)
			}
			return view.All(outputs, failed)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// otherFlows are, when output chose the flow (picked), the flows other
// than run's that the state has runs of, in run's namespace.
func otherFlows(st *state.Store, run *state.Run, picked bool) []string {
	if !picked {
		return nil
	}
	flows, err := st.RunFlows(run.Namespace)
	if err != nil || len(flows) < 2 {
		return nil
	}
	return slices.DeleteFunc(flows, func(f string) bool { return f == run.Flow })
}
