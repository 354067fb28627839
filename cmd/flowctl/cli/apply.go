package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/tracing"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/term"
)

func newApplyCommand(s streams) *cobra.Command {
	var f runFlags
	var ef engineFlags
	var jsonOut, autoApprove bool
	var resume, flowFile string
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
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			engine, err := ef.resolve()
			if err != nil {
				return err
			}
			if resume != "" {
				if len(args) > 0 {
					return usagef("apply --resume takes no FLOW: the run names its flow (use --flow to give its file)")
				}
				return applyResume(s, &f, &ef, resume, flowFile, jsonOut)
			}
			if len(f.keepSucceeded) > 0 {
				return usagef("--keep-succeeded keeps the instances that succeeded in a run being resumed: use it with --resume RUN_ID")
			}
			args = flowArg(args)
			l, secrets, given, err := f.start(s)
			if err != nil {
				return err
			}
			fromPlan := isSavedPlan(args[0])
			var prog *compiler.Program
			var inputs map[string]cty.Value
			var sp *savedPlan
			if fromPlan {
				if prog, inputs, sp, err = readSavedPlan(l, args[0], given); err != nil {
					return err
				}
				f.goEngine = l.goEngine // the plan's, when it has one
				if !cmd.Flags().Changed("namespace") {
					f.namespace = sp.Namespace
				}
				f.noCache = f.noCache || sp.NoCache
			} else {
				if prog, err = l.compile(args[0]); err != nil {
					return err
				}
				var diags hcl.Diagnostics
				inputs, diags = prog.ResolveInputs(given)
				if err := l.check(diags); err != nil {
					return err
				}
			}
			interactive := isTerminal(s.in) && isTerminal(s.out)
			if !fromPlan && !autoApprove && (jsonOut || !interactive) {
				return usagef("apply needs --auto-approve, or a plan saved with plan --out, when it cannot ask for confirmation")
			}
			stopTraces := tracing.Start(s.err)
			defer stopTraces()
			// On Temporal, the workers run the blocks.
			var ex *blocks.Executors
			if engine == engineLocal {
				var closeLog func()
				if ex, closeLog, err = f.runExecutorsFor(s, prog); err != nil {
					return err
				}
				defer closeLog()
			}
			st, err := f.openState(s.err, prog)
			if err != nil {
				return err
			}
			defer closeState(st)
			opts := runtime.Options{
				Inputs: inputs, InputsJSON: prog.GivenJSON(given), Secrets: secrets, Parallelism: f.parallelism, Namespace: f.namespace,
				NoCache: f.noCache, Store: st, Executors: ex, ResetCorruptMemory: f.resetMemory,
				Timeout: f.timeout, Targets: f.targets,
			}
			if fromPlan {
				opts.RunID = state.NewRunID()
				if err := claimPlan(st, args[0], sp, opts.RunID); err != nil {
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
				line, err := terminalLine(ctx, bufio.NewReader(s.in), s.out, "\nDo you want to run these steps? Only 'yes' will be accepted: ")
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
				return applyOnTemporal(s, l, &ef, st, prog, opts, jsonOut, f.verbose)
			}
			return runInForeground(s, l, prog, opts, jsonOut, f.verbose)
		},
	}
	f.registerRun(cmd)
	f.registerKeep(cmd)
	ef.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the run's events as JSON lines")
	cmd.Flags().BoolVar(&autoApprove, "auto-approve", false, "run without asking for confirmation")
	cmd.Flags().StringVar(&resume, "resume", "", "continue this recorded run: steps that finished ok keep their results")
	cmd.Flags().StringVar(&flowFile, "flow", "", "with --resume: the run's flow file (default: the file the run recorded)")
	return cmd
}

// applyResume is apply --resume RUN_ID: in this process, or on Temporal
// with --engine temporal (engine.go).
func applyResume(s streams, f *runFlags, ef *engineFlags, id, flowFile string, jsonOut bool) error {
	sf := &stateFlags{dir: f.stateDir, flow: flowFile}
	st, _, err := sf.open(s)
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
	if ef.engine == engineTemporal {
		return resumeOnTemporal(s, f, ef, sf, st, run, jsonOut)
	}
	return resumeRun(s, f, sf, st, run, jsonOut)
}

// execOptions choose how the executors run blocks.
type execOptions struct {
	// logPrompts, when set, receives a JSON line per LLM round trip.
	logPrompts io.Writer
	sandbox    string   // sandboxIsolated or sandboxInProcess
	goEngine   string   // --go-engine: "" (each block's own), interpreted or compiled
	httpAllow  []string // --http-allow; FLOWCTL_HTTP_ALLOW when empty
	httpConns  int      // --http-conns-per-host; FLOWCTL_HTTP_CONNS_PER_HOST when 0
	// warnings receives the sandbox's notices of the confinement layers
	// this system lacks.
	warnings io.Writer
	// unconfined is --unconfined: python and compiled go blocks run where
	// their workers cannot be confined (also FLOWCTL_UNCONFINED=1).
	unconfined bool
	// warm, when set, is the program about to run: the sandbox starts the
	// workers its js and interpreted go blocks need (warmWorkers) while
	// the run is being set up.
	warm *compiler.Program
}

// Environment variables of the http and scrape blocks.
const (
	envHTTPTimeout = "FLOWCTL_HTTP_TIMEOUT"
	envHTTPAllow   = "FLOWCTL_HTTP_ALLOW"
	envHTTPConns   = "FLOWCTL_HTTP_CONNS_PER_HOST"
)

// httpOptions reads the HTTP options from the flags and the environment.
func httpOptions(allow []string, conns int, lookup func(string) (string, bool)) (blocks.HTTPOptions, error) {
	var o blocks.HTTPOptions
	switch {
	case conns < 0:
		return o, usagef("--http-conns-per-host must be at least 1")
	case conns > 0:
		o.ConnsPerHost = conns
	default:
		if v, ok := lookup(envHTTPConns); ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return o, usagef("%s must be a whole number of at least 1, not %q", envHTTPConns, v)
			}
			o.ConnsPerHost = n
		}
	}
	if v, ok := lookup(envHTTPTimeout); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return o, usagef("%s must be a duration such as 60s or 2m, not %q", envHTTPTimeout, v)
		}
		o.Timeout = d
	}
	spec := strings.Join(allow, ",")
	if len(allow) == 0 {
		spec, _ = lookup(envHTTPAllow)
	}
	if spec != "" {
		e, err := blocks.ParseEgress(spec)
		if err != nil {
			return o, usagef("the HTTP allow list (--http-allow or %s): %s", envHTTPAllow, err)
		}
		o.Egress = e
	}
	return o, nil
}

// executors are the executors of this build: the built-ins, and one LLM
// executor (configured from the environment) for the llm built-in and llm
// blocks, so that they share its concurrency and rate limits. The returned
// function releases what the executors hold (sandbox worker processes);
// call it when the run is over.
func executors(o execOptions) (*blocks.Executors, func(), error) {
	cfg, err := llm.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return nil, nil, usagef("%s", err)
	}
	cfg.LogPrompts = o.logPrompts
	model := llm.NewExecutor(cfg)
	hopts, err := httpOptions(o.httpAllow, o.httpConns, os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	b := blocks.BuiltinExecutorsWith(hopts)
	b["llm"] = model
	ex := &blocks.Executors{Builtins: b, Runtimes: map[string]blocks.Executor{lang.RuntimeLLM: model}}
	if o.sandbox != sandboxIsolated && o.sandbox != sandboxInProcess {
		return nil, nil, usagef("unknown --sandbox %q: use isolated or inprocess", o.sandbox)
	}
	if err := checkGoEngine(o.goEngine); err != nil {
		return nil, nil, err
	}
	size, err := sandboxWorkers(os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	// The pool starts no worker until a call needs one; compiled go
	// blocks run there whatever --sandbox says.
	unconfined := o.unconfined || os.Getenv(isolate.EnvUnconfined) == "1"
	if missing := isolate.Unconfinable(); unconfined && len(missing) > 0 && o.warnings != nil {
		fmt.Fprintf(o.warnings, "Warning: python and compiled go blocks run unconfined on %s (--unconfined), with no %s: their code can use your files, the network and other processes.\n",
			isolate.Platform(), isolate.JoinOr(missing))
	}
	pool := isolate.New(isolate.Options{Size: size, Unconfined: unconfined, Notice: func(msg string) {
		if o.warnings != nil {
			fmt.Fprintf(o.warnings, "Warning: %s.\n", msg)
		}
	}})
	ro := isolate.RouteOptions{GoEngine: o.goEngine, InProcess: o.sandbox == sandboxInProcess}
	ex.Runtimes[lang.RuntimeGo] = isolate.Route(pool, inProcess(gorun.NewExecutor()), ro)
	ex.Runtimes[lang.RuntimeJS] = isolate.Route(pool, inProcess(jsrun.NewExecutor()), ro)
	ex.Runtimes[lang.RuntimePython] = isolate.Route(pool, nil, ro) // always in the pool
	if o.warm != nil && !ro.InProcess {
		pool.Prestart(warmWorkers(o.warm, o.goEngine))
	}
	return ex, func() { pool.Close() }, nil
}

// warmWorkers is how many sandbox workers a program's js and interpreted
// go blocks want at once: none without such a step, as many as the pool
// may have for a for_each of them, else one. Subflows' steps count too.
func warmWorkers(prog *compiler.Program, goEngine string) int {
	n := 0
	for _, s := range prog.Steps {
		if s.Flow != nil {
			n = max(n, warmWorkers(s.Flow, goEngine))
			continue
		}
		def := s.Block.Def
		if def == nil || !(def.Runtime == lang.RuntimeJS || def.Runtime == lang.RuntimeGo && !def.Compiled(goEngine)) {
			continue
		}
		if s.ForEach != nil {
			return math.MaxInt32 // Prestart keeps to the pool's size
		}
		n = 1
	}
	return n
}

// unconfinedUsage is the help of --unconfined.
const unconfinedUsage = "run python and compiled go blocks even where flowctl cannot confine their workers (macOS, Windows), with your user's access to files, the network and processes (default: " + isolate.EnvUnconfined + "=1)"

// checkGoEngine checks a --go-engine value ("" is each block's own).
func checkGoEngine(engine string) error {
	if engine != "" && engine != lang.EngineInterpreted && engine != lang.EngineCompiled {
		return usagef("unknown --go-engine %q: use interpreted or compiled", engine)
	}
	return nil
}

// envGoEngine is the default of --go-engine.
const envGoEngine = "FLOWCTL_GO_ENGINE"

// resolveGoEngine is the engine of a --go-engine flag's value: the value,
// else $FLOWCTL_GO_ENGINE, else "" (each block's own), checked.
func resolveGoEngine(flag string) (string, error) {
	if flag == "" {
		flag = os.Getenv(envGoEngine)
		if err := checkGoEngine(flag); err != nil {
			return "", usagef("%s must be interpreted or compiled, not %q", envGoEngine, flag)
		}
	}
	return flag, checkGoEngine(flag)
}

// goEngineUsage is the help of --go-engine.
const goEngineUsage = "run every go block interpreted (by yaegi) or compiled (built by the Go toolchain on PATH), whatever its engine argument says (default: " + envGoEngine + ", else each block's own)"

// inProcess bounds code run in flowctl's own process to one call per
// processor, as the sandbox's pool bounds its workers: code computes, and
// more calls at once than processors only add interpreters.
func inProcess(e blocks.Executor) blocks.Executor {
	return blocks.Limit(e, goruntime.GOMAXPROCS(0))
}

// envSandboxWorkers sets how many sandbox worker processes run code at
// once (default: the number of CPUs, at least 2).
const envSandboxWorkers = "FLOWCTL_SANDBOX_WORKERS"

func sandboxWorkers(lookup func(string) (string, bool)) (int, error) {
	v, ok := lookup(envSandboxWorkers)
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, usagef("%s must be a whole number of at least 1, not %q", envSandboxWorkers, v)
	}
	return n, nil
}

// Sandbox modes for code blocks (--sandbox).
const (
	sandboxIsolated  = lang.SandboxIsolated
	sandboxInProcess = lang.SandboxInProcess
)

// openPromptLog opens the --log-prompts file for appending.
func openPromptLog(path string) (io.WriteCloser, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the prompt log: %w", err)
	}
	return f, nil
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalLine prints a prompt and reads one line, trimmed. It returns
// io.EOF when the input ends before a line, and ctx's error when ctx ends
// first (the read goes on in the background).
func terminalLine(ctx context.Context, r *bufio.Reader, w io.Writer, prompt string) (string, error) {
	fmt.Fprint(w, prompt)
	type read struct {
		line string
		err  error
	}
	done := make(chan read, 1)
	go func() {
		line, err := r.ReadString('\n')
		if err != nil && line != "" {
			err = nil // a last line without a newline
		}
		done <- read{strings.TrimSpace(line), err}
	}()
	select {
	case got := <-done:
		return got.line, got.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// writerOrNil avoids handing on a typed nil io.WriteCloser as a non-nil
// io.Writer.
func writerOrNil(w io.WriteCloser) io.Writer {
	if w == nil {
		return nil
	}
	return w
}
