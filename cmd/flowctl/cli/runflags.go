package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// registryFlags are the --registry directories of a command: the
// *.block.hcl files in them are blocks, beside the built-in ones.
type registryFlags []string

// register adds --registry to cmd, with the help of most commands.
func (r *registryFlags) register(cmd *cobra.Command) { r.registerTo(cmd, "add to the registry") }

// registerTo adds --registry to cmd, whose help says what the blocks are
// for: to add to the registry, to search and use, ….
func (r *registryFlags) registerTo(cmd *cobra.Command, what string) {
	cmd.Flags().StringArrayVar((*[]string)(r), "registry", nil, "a directory of *.block.hcl files to "+what+" (repeatable)")
}

// runFlags are the flags of the commands that evaluate a flow with values:
// plan, apply and watch.
type runFlags struct {
	inputs     inputFlags
	registries registryFlags
	stateDir   string
	namespace  string
	secrets    []string
	noCache    bool
	// resetMemory starts memories whose stored values cannot be read
	// over from their defaults.
	resetMemory bool
	logPrompts  string
	sandbox     string
	goEngine    string
	httpAllow   []string
	// httpConns is --http-conns-per-host; FLOWCTL_HTTP_CONNS_PER_HOST,
	// then blocks.DefaultConnsPerHost, when 0.
	httpConns int
	// parallelism is --parallelism: an overall cap on step instances
	// running at once; 0, the default, is none.
	parallelism int
	targets     []string // --target
	// keepSucceeded is --keep-succeeded: with --resume, steps whose
	// instances that succeeded keep their results although the step
	// changed.
	keepSucceeded []string
	verbose       bool          // --verbose: step logs as they come
	unconfined    bool          // --unconfined
	timeout       time.Duration // --timeout; 0: the flow's
	store         storeFlags    // --migrate, --state-wait
}

func (f *runFlags) register(cmd *cobra.Command) {
	f.inputs.register(cmd)
	f.registries.register(cmd)
	cmd.Flags().StringVar(&f.stateDir, "state", "", stateHelp)
	cmd.Flags().StringVar(&f.namespace, "namespace", "default", "the memory namespace, e.g. one per user")
	cmd.Flags().StringArrayVar(&f.secrets, "secret", nil, "set a secret: NAME=VALUE (repeatable; default: from its environment variable)")
	cmd.Flags().BoolVar(&f.noCache, "no-cache", false, "run every step; reuse no cached result")
	cmd.Flags().StringArrayVar(&f.targets, "target", nil, "run only this step (step.NAME) and the steps it depends on (repeatable)")
	cmd.Flags().BoolVar(&f.resetMemory, "reset-corrupt-memory", false, "start a memory whose stored value cannot be read over from its default (a warning), instead of refusing to run")
	f.store.register(cmd)
}

// registerRun adds the flags of the commands that run steps.
func (f *runFlags) registerRun(cmd *cobra.Command) {
	f.register(cmd)
	cmd.Flags().StringVar(&f.logPrompts, "log-prompts", "", "append one JSON line per LLM round trip (request, response, duration, tokens, error) to this file, sensitive values redacted")
	cmd.Flags().StringArrayVar(&f.httpAllow, "http-allow", nil, "where http and scrape steps may connect: host names, *.domain patterns, addresses or networks such as 10.0.0.0/8 (repeatable, or comma-separated; default: "+envHTTPAllow+", else anywhere but link-local addresses)")
	cmd.Flags().IntVar(&f.httpConns, "http-conns-per-host", 0, fmt.Sprintf("how many connections http and scrape steps may have open to one host (default: %s, else %d)", envHTTPConns, blocks.DefaultConnsPerHost))
	cmd.Flags().DurationVar(&f.timeout, "timeout", 0, "fail the run when it has not finished after this long, cancelling its running steps (default: the flow's timeout, else none)")
	cmd.Flags().IntVar(&f.parallelism, "parallelism", 0, "at most this many step instances at once (default: no overall cap; code, llm and http steps have limits of their own)")
	cmd.Flags().StringVar(&f.sandbox, "sandbox", sandboxIsolated, "where go and js blocks run: isolated (confined worker processes) or inprocess (in flowctl itself, with the same allowlists and timeouts, for reviewed code)")
	cmd.Flags().StringVar(&f.goEngine, "go-engine", "", goEngineUsage)
	cmd.Flags().BoolVar(&f.unconfined, "unconfined", false, unconfinedUsage)
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "print what code steps log (console.log, print) as it comes; without it, a failed step shows its last lines")
}

// registerKeep adds --keep-succeeded, of the commands that resume a run
// (apply --resume) or plan resuming it (plan --resume).
func (f *runFlags) registerKeep(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.keepSucceeded, "keep-succeeded", nil, "with --resume: the instances of this step (step.NAME) that succeeded keep their results although the step changed since; only the others run (repeatable)")
}

// stateDirFor is the state of a flow: a directory, or a database URL
// (project.State, for the flow's project).
func (f *runFlags) stateDirFor(prog *compiler.Program) string {
	return project.State(f.stateDir, project.Base(prog.Filename, "."))
}

// openState opens the state of a flow's project; it warns, on w, of a
// state of the flow's own left from before (warnOldState).
func (f *runFlags) openState(w io.Writer, prog *compiler.Program) (*state.Store, error) {
	dir := f.stateDirFor(prog)
	if f.stateDir == "" {
		warnOldState(w, prog.Filename, dir)
	}
	return f.store.open(w, dir)
}

// openStateDir opens the state in a directory, or the PostgreSQL
// database of a postgres:// URL.
func openStateDir(dir string) (*state.Store, error) {
	return openStateWith(dir, state.Options{})
}

// secretValues are the --secret values (runtime.GivenSecrets).
func (f *runFlags) secretValues() (map[string]string, error) {
	secrets, err := runtime.GivenSecrets(f.secrets)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return secrets, nil
}

// start checks the flags that plan, apply and watch share and returns the flow
// loader, the --secret values and the given inputs.
func (f *runFlags) start(s streams) (*flowLoader, map[string]string, map[string]compiler.InputValue, error) {
	if f.parallelism < 0 {
		return nil, nil, nil, usagef("--parallelism must be 0 (no cap) or more")
	}
	secrets, err := f.secretValues()
	if err != nil {
		return nil, nil, nil, err
	}
	if f.goEngine, err = resolveGoEngine(f.goEngine); err != nil {
		return nil, nil, nil, err
	}
	l := newFlowLoader(s, f.registries)
	l.goEngine = f.goEngine
	given, diags, err := f.inputs.values(l.parser)
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
func (f *runFlags) runExecutors(s streams) (*blocks.Executors, func(), error) {
	return f.runExecutorsFor(s, nil)
}

// runExecutorsFor is runExecutors for a program about to run, whose
// sandbox workers start meanwhile (engine.Options.Warm); nil for none.
func (f *runFlags) runExecutorsFor(s streams, prog *compiler.Program) (*blocks.Executors, func(), error) {
	ex, release, err := engine.ExecutorsLogging(engine.Options{Sandbox: f.sandbox, GoEngine: f.goEngine, HTTPAllow: f.httpAllow, HTTPConns: f.httpConns, Warnings: s.err, Unconfined: f.unconfined, Warm: prog}, f.logPrompts)
	return ex, release, fromBelow(err)
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

// stateDirName is the name of a project's state directory.
const stateDirName = project.DirName

// stateHelp is the help of a command's --state flag.
const stateHelp = "the state directory, or a postgres:// URL (default: " + project.EnvState + ", else the project's .flowctl: the nearest from the working directory up to the top of its git repository, else the one at that top, else the working directory's)"

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
// open, the location of a database shown without its password.
func openError(dir string, err error) error {
	if state.IsURL(dir) {
		dir = state.RedactURL(dir)
	}
	return stateError(dir, err)
}

// warnOldState says where the runs of a flow are when a state next to the
// flow file is not the state in use (project.OldState). It says nothing
// when that is the state in use, or there is none.
func warnOldState(w io.Writer, flowFile, inUse string) {
	if old := project.OldState(flowFile, inUse); old != "" {
		fmt.Fprintf(w, "Warning: %s, next to this flow, is a state other than the project's, which is %s: the runs, memory and cache in %s are not read. Read them with --state %s, or move that directory to %s when the project has no state yet (see docs/runtime.md, \"Where the state lives\").\n",
			old, inUse, old, old, inUse)
	}
}

// warnOtherStates says, for serve DIR and mcp DIR, where the states next
// to the flows under dir are that are not the state in use
// (project.OtherStates): their runs are not listed.
func warnOtherStates(w io.Writer, dir, inUse string) {
	if state.IsURL(inUse) {
		return
	}
	flows, _ := project.Find([]string{dir}, lang.IsFlowFile)
	for _, other := range project.OtherStates(flows, inUse) {
		fmt.Fprintf(w, "Warning: %s, next to flows served here, is a state other than the project's, which is %s: its runs are not listed, nor its memory and cache used. Read them with --state %s, or move that directory to %s when the project has no state yet (see docs/runtime.md, \"Where the state lives\").\n",
			other, inUse, other, inUse)
	}
}
