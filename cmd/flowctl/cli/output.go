package cli

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
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
				views.WriteOutputHeader(s.err, run, a.Name != "", otherFlows(st, run, flow == "" && runID == ""))
			}
			outputs, failed, err := runOutputs(run)
			if err != nil {
				return err
			}
			view := views.NewOutput(s.out, s.err, jsonOut)
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

// runOutputs reads a run's stored outputs and the outputs it has no value
// for.
func runOutputs(run *state.Run) (map[string]any, []runtime.FailedOutput, error) {
	outputs := map[string]any{}
	var failed []runtime.FailedOutput
	if len(views.NonEmpty(run.Outputs)) > 0 {
		if err := json.Unmarshal(run.Outputs, &outputs); err != nil {
			return nil, nil, fmt.Errorf("reading the outputs of run %s: %w", run.ID, err)
		}
	}
	if len(views.NonEmpty(run.FailedOutputs)) > 0 {
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
