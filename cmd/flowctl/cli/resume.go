package cli

// Resuming a recorded run in the foreground: apply --resume, runs retry
// and approve.

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/tracing"
	"github.com/zclconf/go-cty/cty"
)

// applyResume is apply --resume RUN_ID: in this process, or on Temporal
// with --engine temporal (engine.go).
func applyResume(s streams, f *arguments.Run, ef *arguments.Engine, id, flowFile string, jsonOut bool) error {
	sf := &arguments.State{Dir: f.State, Flow: flowFile}
	st, _, err := openStateOf(s, sf)
	if err != nil {
		return err
	}
	defer closeState(st)
	run, err := st.Run(id)
	if err != nil {
		return runLookupError(err)
	}
	if run, err = reconcileTemporal(s, ef, st, run); err != nil {
		return err
	}
	if ef.Engine == engineTemporal {
		return resumeOnTemporal(s, f, ef, sf, st, run, jsonOut)
	}
	return resumeRun(s, f, sf, st, run, jsonOut)
}

// resumeRun continues a recorded run in the foreground, as apply runs one.
func resumeRun(s streams, f *arguments.Run, sf *arguments.State, st *state.Store, run *state.Run, jsonOut bool) error {
	l, secrets, prog, inputs, err := prepareResume(s, f, sf, st, run)
	if err != nil {
		return err
	}
	stopTraces := tracing.Start(s.err)
	defer stopTraces()
	ex, closeLog, err := runExecutors(s, f)
	if err != nil {
		return err
	}
	defer closeLog()
	opts := runtime.Options{
		Inputs: inputs, Secrets: secrets, Parallelism: f.Parallelism, Namespace: run.Namespace,
		NoCache: f.NoCache, Store: st, Executors: ex, ResetCorruptMemory: f.ResetMemory,
		Timeout: f.Timeout, Targets: f.Targets,
		RunID: run.ID, Resume: true, KeepSucceeded: f.KeepSucceeded, MaxTokens: f.MaxTokens, MaxCostUSD: f.MaxCost,
	}
	// What the resumption runs, and why, before it runs.
	plan, diags := runtime.Plan(prog, opts)
	if err := l.check(diags); err != nil {
		return err
	}
	if !jsonOut {
		steps, err := st.Steps(run.ID)
		if err != nil {
			return err
		}
		views.WriteResumePlan(s.out, run.ID, plan, runtime.ResumeChanged(prog, run, steps), f.KeepSucceeded)
	}
	return runInForeground(s, l, prog, opts, jsonOut, f.Verbose)
}

// prepareResume compiles the flow of a recorded run (its recorded file,
// or --flow), checks that it can resume the run, and returns it with the
// run's inputs and the --secret values (runtime.PrepareResume).
func prepareResume(s streams, f *arguments.Run, sf *arguments.State, st *state.Store, run *state.Run) (*flowLoader, map[string]string, *compiler.Program, map[string]cty.Value, error) {
	l, secrets, given, err := startRun(s, f)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	file, diags := runtime.ResumeFlowFile(run, sf.Flow)
	if diags.HasErrors() {
		return nil, nil, nil, nil, failDiags(nil, diags)
	}
	if rv, err := runtime.PinResume(l.parser, st, run.ID, file, f.Upgrade); err != nil {
		return nil, nil, nil, nil, err
	} else if rv != nil {
		views.WritePinned(s.err, run.ID, rv.Hash, rv.Commit)
	}
	prog, err := l.compile(file)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	inputs, diags, err := runtime.PrepareResume(prog, st, run, given)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := l.check(diags); err != nil {
		return nil, nil, nil, nil, err
	}
	return l, secrets, prog, inputs, nil
}
