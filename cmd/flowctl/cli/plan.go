package cli

import (
	"fmt"
	"os"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
)

func newPlanCommand(s streams) *cobra.Command {
	var f runFlags
	var jsonOut, detailed, expand bool
	var out, resume, flowFile string
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
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var l *flowLoader
			var prog *compiler.Program
			var opts runtime.Options
			switch {
			case resume != "":
				if len(args) > 0 {
					return usagef("plan --resume takes no FLOW: the run names its flow (use --flow to give its file)")
				}
				if out != "" {
					return usagef("plan --resume cannot be saved (--out): apply --resume RUN_ID resumes the run as planned")
				}
				sf := &stateFlags{dir: f.stateDir, flow: flowFile}
				st, _, err := sf.open(s)
				if err != nil {
					return err
				}
				defer closeState(st)
				run, err := st.Run(resume)
				if err != nil {
					return runLookupError(err)
				}
				var secrets map[string]string
				var inputs map[string]cty.Value
				if l, secrets, prog, inputs, err = prepareResume(s, &f, sf, st, run); err != nil {
					return err
				}
				opts = runtime.Options{Inputs: inputs, Secrets: secrets, Namespace: run.Namespace, NoCache: f.noCache, Targets: f.targets,
					ResetCorruptMemory: f.resetMemory, Store: st, RunID: run.ID, Resume: true, KeepSucceeded: f.keepSucceeded}
				f.namespace = run.Namespace
			case len(f.keepSucceeded) > 0:
				return usagef("--keep-succeeded keeps the instances that succeeded in a run being resumed: use it with --resume RUN_ID")
			case flowFile != "":
				return usagef("--flow names the flow file of a run being resumed: use it with --resume RUN_ID, or give FLOW")
			default:
				args = flowArg(args)
				var secrets map[string]string
				var given map[string]compiler.InputValue
				var err error
				if l, secrets, given, err = f.start(s); err != nil {
					return err
				}
				if prog, err = l.compile(args[0]); err != nil {
					return err
				}
				vals, diags := prog.ResolveInputs(given)
				if err := l.check(diags); err != nil {
					return err
				}
				opts = runtime.Options{Inputs: vals, Secrets: secrets, Namespace: f.namespace, NoCache: f.noCache, Targets: f.targets,
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
			}
			// Plan runs nothing: the executors give the cache keys of the
			// blocks whose results depend on more than their inputs.
			ex, release, err := executors(engine.Options{Sandbox: sandboxIsolated, GoEngine: f.goEngine, Warnings: s.err})
			if err != nil {
				return err
			}
			defer release()
			opts.Executors = ex
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
			view := views.NewPlan(s.out, jsonOut, expand, defaultModel())
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
	f.registerKeep(cmd)
	cmd.Flags().StringVar(&resume, "resume", "", "plan resuming this recorded run: which instances keep their results, which run and why")
	cmd.Flags().StringVar(&flowFile, "flow", "", "with --resume: the run's flow file (default: the file the run recorded)")
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
