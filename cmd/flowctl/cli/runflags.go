package cli

import (
	"errors"
	"io"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
)

// stateDirFor is the state of a flow: a directory, or a database URL
// (stateIn, for the flow's project).
func stateDirFor(f *arguments.Run, prog *compiler.Program) string {
	return stateIn(f.State, projectBase(prog.Filename))
}

// openState opens the state of a flow's project; it warns, on w, of a
// state of the flow's own left from before (warnOldState).
func openState(w io.Writer, f *arguments.Run, prog *compiler.Program) (*state.Store, error) {
	dir := stateDirFor(f, prog)
	if f.State == "" {
		warnOldState(w, prog.Filename, dir)
	}
	return openStore(w, &f.Store, dir)
}

// openStateDir opens the state in a directory, or the PostgreSQL
// database of a postgres:// URL.
func openStateDir(dir string) (*state.Store, error) {
	return openStateWith(dir, state.Options{})
}

// startRun returns the flow loader of plan, apply and watch, the --secret
// values and the given inputs.
func startRun(s streams, f *arguments.Run) (*flowLoader, map[string]string, map[string]compiler.InputValue, error) {
	secrets := f.SecretValues
	if secrets == nil { // a Run not read from a command line (runs retry)
		secrets = map[string]string{}
	}
	var err error
	if f.GoEngine, err = resolveGoEngine(f.GoEngine); err != nil {
		return nil, nil, nil, err
	}
	l := newFlowLoader(s, f.Registries)
	l.goEngine = f.GoEngine
	given, diags, err := inputValues(&f.Inputs, l.parser)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := l.check(diags); err != nil {
		return nil, nil, nil, err
	}
	return l, secrets, given, nil
}

// runExecutors opens the --log-prompts file, if any, and returns the
// executors and a function that releases them and closes the log.
func runExecutors(s streams, f *arguments.Run) (*blocks.Executors, func(), error) {
	return runExecutorsFor(s, f, nil)
}

// runExecutorsFor is runExecutors for a program about to run, whose
// sandbox workers start meanwhile (execOptions.warm); nil for none.
func runExecutorsFor(s streams, f *arguments.Run, prog *compiler.Program) (*blocks.Executors, func(), error) {
	logFile, err := openPromptLog(f.LogPrompts)
	if err != nil {
		return nil, nil, err
	}
	closeLog := func() {
		if logFile != nil {
			logFile.Close()
		}
	}
	ex, release, err := executors(execOptions{logPrompts: writerOrNil(logFile), sandbox: f.Sandbox, goEngine: f.GoEngine, httpAllow: f.HTTPAllow, httpConns: f.HTTPConns, warnings: s.err, unconfined: f.Unconfined, warm: prog})
	if err != nil {
		closeLog()
		return nil, nil, err
	}
	return ex, func() { release(); closeLog() }, nil
}

// stateError is the diagnostic of a state that cannot be opened: a
// directory that cannot be made, a damaged or newer database, or one that
// another process keeps locked.
func stateError(dir string, err error) error {
	if se := schemaError(dir, err); se != nil {
		return se
	}
	if errors.Is(err, state.ErrLocked) {
		return failf("State locked", "The state in %s cannot be opened: %s. Another flowctl (or another program) is writing to it; try again when it has finished.", dir, trimStop(err.Error()))
	}
	return failf("Cannot open the state", "The state in %s cannot be opened: %s.", dir, trimStop(err.Error()))
}

func trimStop(s string) string { return strings.TrimRight(s, ".") }
