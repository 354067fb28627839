package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
)

// stateDirFor is the state of a flow: a directory, or a database URL
// (project.State, for the flow's project).
func stateDirFor(f *arguments.Run, prog *compiler.Program) string {
	return project.State(f.State, project.Base(prog.Filename, "."))
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
	st, _, err := project.Open(dir, state.Options{})
	if err != nil {
		return nil, openError(dir, err)
	}
	return st, nil
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
// sandbox workers start meanwhile (engine.Options.Warm); nil for none.
func runExecutorsFor(s streams, f *arguments.Run, prog *compiler.Program) (*blocks.Executors, func(), error) {
	ex, release, err := engine.ExecutorsLogging(engine.Options{Sandbox: f.Sandbox, GoEngine: f.GoEngine, HTTPAllow: f.HTTPAllow, HTTPConns: f.HTTPConns, Warnings: s.err, Unconfined: f.Unconfined, Warm: prog}, f.LogPrompts)
	return ex, release, fromBelow(err)
}

func trimStop(s string) string { return strings.TrimRight(s, ".") }

// stateDirName is the name of a project's state directory.
const stateDirName = project.DirName

// openRunState opens the state where runs are recorded (apply, plan,
// watch, serve, mcp, worker); when it makes the state directory, it says
// where on w, once (project.Made).
func openRunState(w io.Writer, dir string, o state.Options) (*state.Store, error) {
	st, made, err := project.Open(dir, o)
	if err != nil {
		return nil, openError(dir, err)
	}
	if made {
		fmt.Fprintln(w, project.Made(dir))
	}
	return st, nil
}

// openError is the diagnostic of a state that project.Open could not
// open (project.OpenDiagnostics).
func openError(dir string, err error) error { return failDiags(nil, project.OpenDiagnostics(dir, err)) }

// warnOldState says where the runs of a flow are when a state next to the
// flow file is not the state in use (project.OldState). It says nothing
// when that is the state in use, or there is none.
func warnOldState(w io.Writer, flowFile, inUse string) {
	if old := project.OldState(flowFile, inUse); old != "" {
		fmt.Fprintf(w, "Warning: %s, next to this flow, is a state other than the project's, which is %s: the runs, memory and cache in %s are not read. Read them with --state %s, or move that directory to %s when the project has no state yet (see docs/runtime.md, \"Where the state lives\").\n",
			old, inUse, old, old, inUse)
	}
}

// openStateOf opens the state of the runs and output commands and names
// the flow to filter by ("" for all).
func openStateOf(s streams, f *arguments.State) (*state.Store, string, error) {
	base, flowName := ".", ""
	if f.Flow != "" {
		l := newFlowLoader(s, nil)
		l.skipCode = true // for its name
		prog, err := l.compile(f.Flow)
		if err != nil {
			return nil, "", err
		}
		flowName = prog.Flow.Name
		base = project.Base(prog.Filename, ".")
		if f.Dir == "" {
			warnOldState(s.err, prog.Filename, project.State("", base))
		}
	}
	dir := project.State(f.Dir, base)
	if !state.IsURL(dir) && !dirExists(dir) {
		return nil, "", failf("No state", "There is no state in %s: apply a flow first, or name a state with --state DIR. The state of a project is the nearest %s from the working directory up to the top of its git repository, else the one at that top, else the working directory's (docs/runtime.md, \"Where the state lives\").", dir, stateDirName)
	}
	st, err := openStateDir(dir)
	if err != nil {
		return nil, "", err
	}
	return st, flowName, nil
}
