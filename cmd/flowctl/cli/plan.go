package cli

import (
	"fmt"
	"os"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newPlanCommand(s streams) *cobra.Command {
	var f runFlags
	var jsonOut, detailed, expand bool
	var out string
	cmd := &cobra.Command{
		Use:   "plan [FLOW]",
		Short: "Show what applying a flow would do",
		Long: `Plan compiles a flow (FLOW is a flow file or a directory holding one;
the current directory by default),
resolves its inputs, looks up the result cache and shows each step with its
stage and what apply would do with it:

  + run      the step would run
  = cached   its result is in the cache and would be reused
  ~ unknown  it depends on values known only at run time
  - skip     its when condition is already known to be false

A go step shows its engine when it runs compiled (--go-engine, as for apply,
or FLOWCTL_GO_ENGINE, may make every go block run either way; --json has
every go step's "engine"). A step that uses a flow is one step; --expand shows the flow's steps under
it, planned with the step's arguments as far as they are known. It ends with
the counts and the critical path. --out saves the plan, pinning
the flow's source and its inputs, for apply PLAN.json. With
--detailed-exitcode it exits 0 when no step would run, 1 on errors and 2 when
steps would run.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			args = flowArg(args)
			l, secrets, given, err := f.start(s)
			if err != nil {
				return err
			}
			prog, err := l.compile(args[0])
			if err != nil {
				return err
			}
			vals, diags := prog.ResolveInputs(given)
			if err := l.check(diags); err != nil {
				return err
			}
			// Plan runs nothing: the executors give the cache keys of the
			// blocks whose results depend on more than their inputs.
			ex, release, err := executors(execOptions{sandbox: sandboxIsolated, goEngine: f.goEngine, warnings: s.err})
			if err != nil {
				return err
			}
			defer release()
			opts := runtime.Options{Inputs: vals, Secrets: secrets, Namespace: f.namespace, NoCache: f.noCache, Executors: ex, Targets: f.targets,
				ResetCorruptMemory: f.resetMemory}
			// A state that exists: a directory, or a database (which
			// is always there to be looked in).
			if dir := f.stateDirFor(prog); state.IsURL(dir) || dirExists(dir) {
				st, err := f.openState(s.err, prog)
				if err != nil {
					return err
				}
				defer st.Close()
				opts.Store = st
			}
			plan, diags := runtime.Plan(prog, opts)
			if err := l.check(diags); err != nil {
				return err
			}
			plan.CriticalTime = timeCriticalPath(prog, opts.Store, f.namespace)
			if out != "" {
				if err := writeSavedPlan(out, plan, f.namespace, f.noCache); err != nil {
					return err
				}
				defer fmt.Fprintf(s.err, "Saved the plan to %s; run it with: flowctl apply %s\n", out, out)
			}
			var view planView = planHuman{s.out, expand, defaultModel()}
			if jsonOut {
				view = planJSON{s.out, expand, defaultModel()}
			}
			if err := view.Plan(plan); err != nil {
				return err
			}
			if detailed && plan.WouldRun() {
				return exitError{exitUsage}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the plan as one JSON object")
	cmd.Flags().BoolVar(&detailed, "detailed-exitcode", false, "exit 2 when steps would run, 0 when none would")
	cmd.Flags().StringVar(&out, "out", "", "save the plan to this file for apply")
	cmd.Flags().StringVar(&f.goEngine, "go-engine", "", goEngineUsage)
	cmd.Flags().BoolVar(&expand, "expand", false, "show the steps of the flows that steps use (use = \"flow.NAME\")")
	return cmd
}

func dirExists(dir string) bool {
	info, err := os.Stat(dir)
	return err == nil && info.IsDir()
}
