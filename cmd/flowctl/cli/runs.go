package cli

import (
	"errors"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newRunsCommand(s streams) *cobra.Command {
	var a arguments.Runs
	cmd := &cobra.Command{
		Use:   "runs [list | show [RUN_ID] | logs [RUN_ID [STEP]] | retry RUN_ID | pause RUN_ID | resume RUN_ID | prune]",
		Short: "List recorded runs; show one run's steps or logs; retry, pause or resume a run; prune old runs",
		Long: `Runs lists the runs recorded in the project's state, newest first: the runs
of flows applied or served, not the runs their steps started (a step that
uses a flow, a tool call), which runs show lists under their step and --all
under their run. Runs show shows one run (a unique prefix of its id is
enough; none, or "latest", for the newest) with every step instance's status,
attempts, timing and error, in the flow's order; a step of more than 50
instances is shown as one row of counts by status, with the instances that
did not succeed, and --step STEP lists every instance of one step. runs logs [RUN_ID [STEP]] prints what the run's
code steps printed (console.log, print), by step instance (the newest run's
without RUN_ID, or with "latest"); --follow prints
each instance's log as it finishes, until the run ends. runs retry RUN_ID
continues a failed, cancelled, interrupted or waiting run, as apply --resume
does. runs pause RUN_ID pauses a run (its running steps finish, no step
starts) until runs resume RUN_ID, wherever it runs. runs prune deletes finished runs that started before --older-than
(30d, 12h) and are not among the --keep newest of their flow, with their
step results, events, logs and approvals and the runs they started, and the
blob files nothing refers to any more; never a running or waiting run.
--dry-run says what it would delete.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			f := &a.State
			switch a.Sub {
			case "show":
				if a.Calls {
					return runsCalls(s, f, a.RunID, a.Step, a.JSON)
				}
				return runsShow(s, f, a.RunID, a.Step, a.JSON)
			case "logs":
				return runsLogs(s, f, a.RunID, a.LogStep, a.Follow, a.JSON)
			case "retry":
				return applyResume(s, &arguments.Run{State: f.Dir, Sandbox: engine.SandboxIsolated}, &arguments.Engine{Engine: engineLocal}, a.RunID, f.Flow, a.JSON)
			case "prune":
				return runsPrune(s, f, &a.Prune, a.JSON)
			case "pause", "resume":
				return runsPause(s, f, a.RunID, a.Sub == "pause")
			}
			return runsList(s, f, a.Limit, a.All, a.JSON)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runsList(s streams, f *arguments.State, limit int, all, jsonOut bool) error {
	st, flow, err := openStateOf(s, f)
	if err != nil {
		return err
	}
	defer st.Close()
	top, err := st.ListRuns(state.RunFilter{Flow: flow, TopLevel: true}, limit)
	if err != nil {
		return err
	}
	// With --all, each run is followed by the runs it started, depth
	// first (depth is how far each is from its top-level run).
	below := 0
	if all {
		below = state.MaxRunDepth
	}
	runs, depth, err := st.RunsBelow(top, below)
	if err != nil {
		return err
	}
	waits, err := st.Waits()
	if err != nil {
		return err
	}
	return views.NewRuns(s.out, jsonOut).List(runs, depth, waits)
}

// findRun finds the run id names (a unique prefix is enough); "latest" is
// the newest top-level run (of flow's, when flow is set).
func findRun(st *state.Store, flow, id string) (*state.Run, error) {
	if id != "latest" {
		run, err := st.Run(id)
		if err != nil {
			return nil, runLookupError(err)
		}
		return run, nil
	}
	runs, err := st.ListRuns(state.RunFilter{Flow: flow, TopLevel: true}, 1)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, failf("No runs", "No run is recorded in %s.", st.Path())
	}
	return runs[0], nil
}

// runsShow shows a run; "latest" is the newest (of --flow's flow).
func runsShow(s streams, f *arguments.State, id, step string, jsonOut bool) error {
	st, flow, err := openStateOf(s, f)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := findRun(st, flow, id)
	if err != nil {
		return err
	}
	if step != "" {
		return runsShowStep(s.out, st, run, step, jsonOut)
	}
	tree, err := st.LoadRunTree(run, 0)
	if err != nil {
		return err
	}
	stateDir := st.Path()
	if state.IsURL(stateDir) {
		stateDir = ""
	}
	runtime.StepOrders{}.Sort(tree, stateDir)
	waits, err := st.RunWaits(run)
	if err != nil {
		return err
	}
	return views.NewRuns(s.out, jsonOut).Show(runTreeView(tree), waits)
}

// runTreeView is what runs show shows of a run's tree: the tree with each
// run's outputs, and those it has no value for.
func runTreeView(t *state.RunTree) *views.RunTree {
	v := &views.RunTree{Run: t.Run, Steps: t.Steps, Summaries: t.Summaries, Version: t.Version, Paused: t.Paused}
	if outputs, failed, err := runtime.RunOutputs(t.Run); err == nil {
		v.Outputs, v.FailedOutputs = outputs, failed
	}
	for label, kids := range t.Children {
		if v.Children == nil {
			v.Children = map[string][]*views.RunTree{}
		}
		for _, k := range kids {
			v.Children[label] = append(v.Children[label], runTreeView(k))
		}
	}
	return v
}

// runLookupError is the diagnostic of a run id that names no run, or
// several.
func runLookupError(err error) error {
	switch {
	case errors.Is(err, state.ErrAmbiguousRun):
		return failf("Ambiguous run ID", "%s", sentence(err.Error()))
	case errors.Is(err, state.ErrRunNotFound):
		return failf("Unknown run", "%s", sentence(err.Error()))
	}
	return err
}

// diagnosed is the error a command ends with for an error of a package
// below: its diagnostics (fromBelow), a run id's lookup (runLookupError),
// or the error as it is.
func diagnosed(err error) error { return runLookupError(fromBelow(err)) }

// runsLogs prints the logs of a run's step instances (of one step, or one
// instance as step[key], when step is set), in the order they started;
// with follow, it waits for the instances still to finish while the run
// is running (state's FollowLogs).
func runsLogs(s streams, f *arguments.State, id, step string, follow, jsonOut bool) error {
	st, flow, err := openStateOf(s, f)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := findRun(st, flow, id)
	if err != nil {
		return err
	}
	view := views.NewLogs(s.out, jsonOut)
	if err := st.FollowLogs(run, step, follow, view.Log); err != nil {
		return err
	}
	return view.Close()
}
