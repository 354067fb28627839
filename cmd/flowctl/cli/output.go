package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newOutputCommand(s streams) *cobra.Command {
	var f stateFlags
	var jsonOut bool
	var namespace, runID string
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
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, flow, err := f.open(s)
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := runtime.OutputRun(st, flow, namespace, runID)
			if err != nil {
				return diagnosed(err)
			}
			if !jsonOut {
				writeOutputHeader(s.err, st, run, flow == "" && runID == "", len(args) == 1)
			}
			outputs, failed, err := runtime.RunOutputs(run)
			if err != nil {
				return err
			}
			var view outputView = outputHuman{s}
			if jsonOut {
				view = outputJSON{s}
			}
			if len(args) == 1 {
				v, err := runtime.OutputValue(run, args[0], outputs, failed)
				if err != nil {
					return diagnosed(err)
				}
				return view.One(v)
			}
			return view.All(outputs, failed)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	cmd.Flags().StringVar(&namespace, "namespace", "default", "the namespace of the run")
	cmd.Flags().StringVar(&runID, "run", "", "read the outputs of this run (an id or a unique prefix), whatever its status")
	return cmd
}

// writeOutputHeader says whose outputs follow (one output's: one): the
// run, its flow and when it finished; when output chose the flow (picked)
// and the state has runs of others, which they are and how to choose one.
func writeOutputHeader(w io.Writer, st *state.Store, run *state.Run, picked, one bool) {
	when := ""
	if !run.FinishedAt.IsZero() {
		when = ", finished " + run.FinishedAt.Local().Format("2006-01-02 15:04:05")
	}
	what := "Outputs"
	if one {
		what = "Output"
	}
	fmt.Fprintf(w, "%s of run %s of flow %q (%s%s):\n", what, run.ID, run.Flow, run.Status, when)
	if !picked {
		return
	}
	flows, err := st.RunFlows(run.Namespace)
	if err != nil || len(flows) < 2 {
		return
	}
	others := slices.DeleteFunc(flows, func(f string) bool { return f == run.Flow })
	fmt.Fprintf(w, "(the newest successful run; the state has runs of %s too: choose one with --flow FLOW, or a run with --run RUN_ID)\n",
		strings.Join(others, ", "))
}
