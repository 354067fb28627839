package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/lang"
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
			run, err := outputRun(st, flow, a.Namespace, runID)
			if err != nil {
				return err
			}
			if !jsonOut {
				writeOutputHeader(s.err, st, run, flow == "" && runID == "", a.Name != "")
			}
			outputs, failed, err := runOutputs(run)
			if err != nil {
				return err
			}
			var view outputView = outputHuman{s}
			if jsonOut {
				view = outputJSON{s}
			}
			if a.Name != "" {
				v, err := oneOutput(run, a.Name, outputs, failed)
				if err != nil {
					return err
				}
				return view.One(v)
			}
			return view.All(outputs, failed)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// outputRun is the run whose outputs output prints: the one given by id,
// else the newest successful one.
func outputRun(st *state.Store, flow, namespace, id string) (*state.Run, error) {
	if id != "" {
		run, err := st.Run(id)
		if err != nil {
			return nil, runLookupError(err)
		}
		if run.Status == "running" {
			return nil, failf("Run not finished", "Run %s of flow %q is still running (or its process was killed); its outputs are recorded when it ends.", run.ID, run.Flow)
		}
		return run, nil
	}
	runs, err := st.ListRuns(state.RunFilter{Flow: flow, Namespace: namespace, Status: "ok", TopLevel: true}, 1)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, failf("No successful run", "The state holds no successful run yet; outputs are recorded when a run succeeds. Name a failed run with --run RUN_ID to see the outputs it has.")
	}
	return runs[0], nil
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

// runOutputs reads a run's stored outputs and the outputs it has no value
// for.
func runOutputs(run *state.Run) (map[string]any, []runtime.FailedOutput, error) {
	outputs := map[string]any{}
	var failed []runtime.FailedOutput
	if len(nonEmpty(run.Outputs)) > 0 {
		if err := json.Unmarshal(run.Outputs, &outputs); err != nil {
			return nil, nil, fmt.Errorf("reading the outputs of run %s: %w", run.ID, err)
		}
	}
	if len(nonEmpty(run.FailedOutputs)) > 0 {
		if err := json.Unmarshal(run.FailedOutputs, &failed); err != nil {
			return nil, nil, fmt.Errorf("reading the outputs of run %s: %w", run.ID, err)
		}
	}
	return outputs, failed, nil
}

// oneOutput is the value of one output of a run, or the error that says
// why there is none.
func oneOutput(run *state.Run, name string, outputs map[string]any, failed []runtime.FailedOutput) (any, error) {
	v, ok := outputs[name]
	if !ok {
		for _, f := range failed {
			if f.Name == name {
				return nil, failf("Output without a value", "Run %s of flow %q (%s) has no value for output %q: %s.", run.ID, run.Flow, run.Status, name, trimStop(f.Reason))
			}
		}
		names := lang.SortedKeys(outputs)
		for _, f := range failed {
			names = append(names, f.Name)
		}
		slices.Sort(names)
		return nil, failf("Unknown output", "Run %s of flow %q has no output %q.%s", run.ID, run.Flow, name, lang.Suggest(name, names))
	}
	return v, nil
}
