package cli

import (
	"fmt"
	"os"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
)

func newPlanCommand(s streams) *cobra.Command {
	var a arguments.Plan
	cmd := &cobra.Command{
		Use:   "plan [FLOW] | plan --resume RUN_ID",
		Short: "Show what applying a flow would do",
		Long: `Plan compiles a flow (FLOW is a flow file or a directory holding one;
the current directory by default),
resolves its inputs, looks up the result cache and shows each step with its
stage and what apply would do with it:

  + run      the step would run
  = cached   its result is in the cache and would be reused
  ~ unknown  it depends on values known only at run time
  - skip     its when condition is already known to be false

A step with for_each says how many of its instances would run, and why, and
how many are cached ("1 of 5,000 instances to run (not in the cache), 4,999
cached"); --json has "instances" and "instances_to_run" for every step.

--resume RUN_ID plans resuming a recorded run (apply --resume RUN_ID), with
its flow (the file it recorded, or --flow) and its inputs: the instances that
keep what the run recorded are kept ("= kept"), and those that run say why
("1 of 5,000 instances to run (failed), 4,999 kept"). --keep-succeeded
step.NAME keeps the instances of a changed step that succeeded, as it does
for apply.

A go step shows its engine when it runs compiled (--go-engine, as for apply,
or FLOWCTL_GO_ENGINE, may make every go block run either way; --json has
every go step's "engine"). A step that uses a flow is one step; --expand shows the flow's steps under
it, planned with the step's arguments as far as they are known. It ends with
the counts and the critical path. --out saves the plan, pinning
the flow's source and its inputs, for apply PLAN.json. With
--detailed-exitcode it exits 0 when no step would run, 1 on errors and 2 when
steps would run.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			f := &a.Run
			var l *flowLoader
			var prog *compiler.Program
			var opts runtime.Options
			switch {
			case a.Resume != "":
				sf := &arguments.State{Dir: f.State, Flow: a.Flow}
				st, _, err := openStateOf(s, sf)
				if err != nil {
					return err
				}
				defer closeState(st)
				run, err := st.Run(a.Resume)
				if err != nil {
					return runLookupError(err)
				}
				var secrets map[string]string
				var inputs map[string]cty.Value
				if l, secrets, prog, inputs, err = prepareResume(s, f, sf, st, run); err != nil {
					return err
				}
				opts = runtime.Options{Inputs: inputs, Secrets: secrets, Namespace: run.Namespace, NoCache: f.NoCache, Targets: f.Targets,
					ResetCorruptMemory: f.ResetMemory, Store: st, RunID: run.ID, Resume: true, KeepSucceeded: f.KeepSucceeded}
				f.Namespace = run.Namespace
			default:
				var secrets map[string]string
				var given map[string]compiler.InputValue
				var err error
				if l, secrets, given, err = startRun(s, f); err != nil {
					return err
				}
				if prog, err = l.compile(a.Path); err != nil {
					return err
				}
				vals, diags := prog.ResolveInputs(given)
				if err := l.check(diags); err != nil {
					return err
				}
				opts = runtime.Options{Inputs: vals, Secrets: secrets, Namespace: f.Namespace, NoCache: f.NoCache, Targets: f.Targets,
					ResetCorruptMemory: f.ResetMemory}
				// A state that exists: a directory, or a database (which
				// is always there to be looked in).
				if dir := stateDirFor(f, prog); state.IsURL(dir) || dirExists(dir) {
					st, err := openState(s.err, f, prog)
					if err != nil {
						return err
					}
					defer st.Close()
					opts.Store = st
				}
			}
			// Plan runs nothing: the executors give the cache keys of the
			// blocks whose results depend on more than their inputs.
			ex, release, err := executors(engine.Options{Sandbox: engine.SandboxIsolated, GoEngine: f.GoEngine, Warnings: s.err})
			if err != nil {
				return err
			}
			defer release()
			opts.Executors = ex
			plan, diags := runtime.Plan(prog, opts)
			if err := l.check(diags); err != nil {
				return err
			}
			plan.CriticalTime = timeCriticalPath(prog, opts.Store, f.Namespace)
			if out := a.Out; out != "" {
				if err := writeSavedPlan(out, plan, f.Namespace, f.NoCache); err != nil {
					return err
				}
				defer fmt.Fprintf(s.err, "Saved the plan to %s; run it with: flowctl apply %s\n", out, out)
			}
			view := views.NewPlan(s.out, a.JSON, a.Expand, defaultModel())
			if err := view.Plan(plan); err != nil {
				return err
			}
			if a.Detailed && plan.WouldRun() {
				return exitError{exitUsage}
			}
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func dirExists(dir string) bool {
	info, err := os.Stat(dir)
	return err == nil && info.IsDir()
}
