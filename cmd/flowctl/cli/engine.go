package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/hashicorp/hcl/v2"
	"go.temporal.io/sdk/client"
)

// Engines (docs/scale-out.md).
const (
	engineLocal    = engine.Local
	engineTemporal = engine.Temporal
	envEngine      = engine.EnvName
)

// temporalNamespaceFlag is the flag of the Temporal namespace.
const temporalNamespaceFlag = arguments.TemporalNamespaceFlag

// resolveEngine checks --engine, from FLOWCTL_ENGINE when not given
// (engine.Resolve).
func resolveEngine(e *arguments.Engine) (string, error) {
	name, err := engine.Resolve(e.Engine)
	if err != nil {
		return "", fromBelow(err)
	}
	e.Engine = name
	return name, nil
}

// temporalOf is where the flags say Temporal is.
func temporalOf(e *arguments.Engine) engine.OnTemporal {
	return engine.OnTemporal{Address: e.Address, Namespace: e.Namespace, TaskQueue: e.TaskQueue}
}

// dialTemporal connects to Temporal (engine.OnTemporal.Dial).
func dialTemporal(e *arguments.Engine, st *state.Store, logger *slog.Logger) (client.Client, bool, error) {
	c, encrypted, err := temporalOf(e).Dial(st, logger)
	return c, encrypted, fromBelow(err)
}

// fromBelow is how an error of the packages that run flows ends a
// command: a setting that cannot be used (engine.SettingError) is a
// mistake in the command line, diagnostics are the command's failure.
func fromBelow(err error) error {
	var se *engine.SettingError
	var diags hcl.Diagnostics
	switch {
	case errors.As(err, &se):
		return usagef("%s", se.Msg)
	case errors.As(err, &diags):
		return failDiags(nil, diags)
	}
	return err
}

// applyOnTemporal runs a flow on Temporal (or starts a recorded run
// again there, opts.Resume), printing what a local run prints: a run
// that waits for approvals says how to decide them, and goes on when
// they are decided.
func applyOnTemporal(s streams, l *flowLoader, ef *arguments.Engine, st *state.Store, prog *compiler.Program, opts runtime.Options, jsonOut, verbose bool) error {
	runner, err := temporalOf(ef).Runner(st)
	if err != nil {
		return fromBelow(err)
	}
	defer runner.Client.Close()
	ctx, stop := interruptible()
	defer stop()
	var view views.Apply
	newView := func() {
		if jsonOut {
			view = views.NewApplyJSON(s.out)
			return
		}
		view = views.NewApplyHuman(s.out, colorTerminal(s.out), views.LabelWidth(prog), verbose)
	}
	newView()
	opts.Observe = func(e runtime.Event) {
		switch e := e.(type) {
		case runtime.RunStarted:
			if e.Resumed { // after it waited: as a local run resumed
				view.Close()
				newView()
			}
		case runtime.RunWaiting:
			view.Event(e)
			if !jsonOut {
				views.WriteHowToDecide(s.err, e.RunID, e.Waiting)
				if ef.Address != "" || ef.Namespace != "" {
					fmt.Fprintf(s.err, "  (with the same --address %s --%s %s)\n", temporal.Address(ef.Address), temporalNamespaceFlag, temporal.Namespace(ef.Namespace))
				}
				fmt.Fprintln(s.err, "The run waits on Temporal; this command follows it until it ends (Ctrl-C cancels it).")
			}
			return
		}
		view.Event(e)
	}
	res, err := runner.Apply(ctx, prog, opts)
	view.Close()
	if err := runStarted(s, l, res, err, jsonOut); err != nil {
		return err
	}
	if res.Status != runtime.StatusOK {
		return exitError{exitFailure}
	}
	return nil
}

// reconcileTemporal checks a run of the temporal engine that the state
// says is running or waiting against Temporal (engine.OnTemporal.Reconcile),
// saying when it is recorded as interrupted.
func reconcileTemporal(s streams, ef *arguments.Engine, st *state.Store, run *state.Run) (*state.Run, error) {
	before := run.Status
	run, err := temporalOf(ef).Reconcile(context.Background(), st, run)
	if err != nil {
		return nil, fromBelow(err)
	}
	if run.Status == state.StatusInterrupted && before != run.Status {
		fmt.Fprintf(s.err, "Run %s will not finish on Temporal: %s. It is recorded as interrupted.\n", run.ID, trimStop(run.Error))
	}
	return run, nil
}

// resumeOnTemporal starts a recorded run again on Temporal (apply
// --engine temporal --resume): the steps that finished ok keep their
// results.
func resumeOnTemporal(s streams, f *arguments.Run, ef *arguments.Engine, sf *arguments.State, st *state.Store, run *state.Run, jsonOut bool) error {
	if len(f.KeepSucceeded) > 0 {
		return usagef("--keep-succeeded resumes a run in this process: leave out --engine temporal")
	}
	l, _, prog, inputs, err := prepareResume(s, f, sf, st, run)
	if err != nil {
		return err
	}
	opts := runtime.Options{
		Inputs: inputs, Parallelism: f.Parallelism, Namespace: run.Namespace, NoCache: f.NoCache, Store: st,
		Timeout: f.Timeout, Targets: f.Targets, RunID: run.ID, Resume: true,
	}
	return applyOnTemporal(s, l, ef, st, prog, opts, jsonOut, f.Verbose)
}

// approveOnTemporal sends a decision, recorded already, to the workflow
// of a run on Temporal (engine.OnTemporal.Approve).
func approveOnTemporal(ctx context.Context, ef *arguments.Engine, st *state.Store, run *state.Run, d temporal.ApprovalDecision) error {
	return fromBelow(temporalOf(ef).Approve(ctx, st, run, d))
}
