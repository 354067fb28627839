package cli

import (
	"bufio"
	"fmt"
	"io"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/planfile"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/terminal"
	"github.com/flowctl/flowctl/runtime/tracing"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
)

func newApplyCommand(s streams) *cobra.Command {
	var a arguments.Apply
	cmd := &cobra.Command{
		Use:        "apply [FLOW|PLAN.json] | apply --resume RUN_ID",
		SuggestFor: []string{"run", "exec", "execute", "start"},
		Short:      "Run a flow",
		Long: `Apply runs a flow (FLOW, a flow file or a directory holding one; the current
directory by default): each step starts as soon as the steps it depends on have
finished (--parallelism N caps how many run at once). Results are recorded in the
project's state as they finish (the nearest .flowctl from the working directory up
to the top of its git repository, else the one at that top, else the working
directory's; the first run says where it made it; see --state), and
cached results are reused. On a terminal apply shows the plan and asks for confirmation unless
--auto-approve is given; elsewhere it needs --auto-approve or a plan saved with
plan --out, which it refuses when the flow changed since. Ctrl-C cancels the
running steps and keeps what finished.

An approval step asks its question on a terminal; elsewhere (or with --json)
the run stops, waiting, once nothing else can run: apply prints how to decide
(flowctl approve) and exits with code 3.

--resume RUN_ID continues a run that failed, was cancelled or interrupted, or
waits: steps that finished ok keep their recorded results, the others run.
The flow (the file the run recorded, or --flow) may have changed since: fix
the failing step, then resume. The steps the change reaches run again, all
their instances, but those whose block and inputs are as they were; with
--keep-succeeded step.NAME the instances of that step that succeeded keep
their results, and only its failed ones run with the fixed code. Before it
runs, the resumption says which instances run and why (plan --resume shows
the same). With --engine temporal the run starts again on Temporal's
workers, keeping those steps too (a change to a step that finished is
resumed in this process only).
A run on Temporal that its server lost (or whose workflow ended without
recording its end) is recorded as interrupted, and can be resumed either way.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			f := &a.Run
			engine, err := resolveEngine(&a.Engine)
			if err != nil {
				return err
			}
			if a.Resume != "" {
				return applyResume(s, f, &a.Engine, a.Resume, a.Flow, a.JSON)
			}
			jsonOut, autoApprove, path := a.JSON, a.AutoApprove, a.Path
			l, secrets, given, err := startRun(s, f)
			if err != nil {
				return err
			}
			fromPlan := planfile.Is(path)
			var prog *compiler.Program
			var inputs map[string]cty.Value
			var sp *planfile.File
			if fromPlan {
				if prog, inputs, sp, err = readSavedPlan(l, path, given); err != nil {
					return err
				}
				f.GoEngine = l.goEngine // the plan's, when it has one
				if !f.NamespaceSet {
					f.Namespace = sp.Namespace
				}
				f.NoCache = f.NoCache || sp.NoCache
			} else {
				if prog, err = l.compile(path); err != nil {
					return err
				}
				var diags hcl.Diagnostics
				inputs, diags = prog.ResolveInputs(given)
				if err := l.check(diags); err != nil {
					return err
				}
			}
			interactive := terminal.Is(s.in) && terminal.Is(s.out)
			if !fromPlan && !autoApprove && (jsonOut || !interactive) {
				return usagef("apply needs --auto-approve, or a plan saved with plan --out, when it cannot ask for confirmation")
			}
			stopTraces := tracing.Start(s.err)
			defer stopTraces()
			// On Temporal, the workers run the blocks.
			var ex *blocks.Executors
			if engine == engineLocal {
				var closeLog func()
				if ex, closeLog, err = runExecutorsFor(s, f, prog); err != nil {
					return err
				}
				defer closeLog()
			}
			st, err := openState(s.err, f, prog)
			if err != nil {
				return err
			}
			defer closeState(st)
			opts := runtime.Options{
				Inputs: inputs, InputsJSON: prog.GivenJSON(given), Secrets: secrets, Parallelism: f.Parallelism, Namespace: f.Namespace,
				NoCache: f.NoCache, Store: st, Executors: ex, ResetCorruptMemory: f.ResetMemory,
				Timeout: f.Timeout, Targets: f.Targets, MaxTokens: f.MaxTokens, MaxCostUSD: f.MaxCost,
			}
			if fromPlan {
				opts.RunID = state.NewRunID()
				if err := claimPlan(st, path, sp, opts.RunID); err != nil {
					return err
				}
			}
			ctx, stop := interruptible()
			defer stop()
			if !fromPlan && !autoApprove {
				plan, diags := runtime.Plan(prog, opts)
				if err := l.check(diags); err != nil {
					return err
				}
				views.WriteHumanPlan(s.out, plan, false, defaultModel())
				line, err := terminal.Line(ctx, bufio.NewReader(s.in), s.out, "\nDo you want to run these steps? Only 'yes' will be accepted: ")
				switch {
				case ctx.Err() != nil:
					fmt.Fprintln(s.err, "\nApply cancelled.")
					return exitError{exitFailure}
				case err != nil || line != "yes":
					fmt.Fprintln(s.err, "Apply cancelled.")
					return exitError{exitFailure}
				}
			}
			stop()
			if engine == engineTemporal {
				return applyOnTemporal(s, l, &a.Engine, st, prog, opts, jsonOut, f.Verbose)
			}
			return runInForeground(s, l, prog, opts, jsonOut, f.Verbose)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// executors are the executors of this build (engine.Executors).
func executors(o engine.Options) (*blocks.Executors, func(), error) {
	ex, release, err := engine.Executors(o)
	return ex, release, fromBelow(err)
}

// httpOptions reads the HTTP options from the flags and the environment
// (engine.HTTPOptions).
func httpOptions(allow []string, conns int, lookup func(string) (string, bool)) (blocks.HTTPOptions, error) {
	o, err := engine.HTTPOptions(allow, conns, lookup)
	return o, fromBelow(err)
}

// resolveGoEngine is the engine of a --go-engine flag's value
// (engine.ResolveGoEngine).
func resolveGoEngine(flag string) (string, error) {
	e, err := engine.ResolveGoEngine(flag)
	return e, fromBelow(err)
}

// writerOrNil avoids handing on a typed nil io.WriteCloser as a non-nil
// io.Writer.
func writerOrNil(w io.WriteCloser) io.Writer {
	if w == nil {
		return nil
	}
	return w
}
