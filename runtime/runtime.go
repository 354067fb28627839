package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/retrieval"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// DefaultCodeTimeout is the per-attempt timeout of a step whose go or js
// block sets no timeout (nor does the step): code that never returns
// would otherwise hold its worker, and the run, forever.
const DefaultCodeTimeout = 30 * time.Second

// ErrStopping is the cause of a run's context cancelled because the
// process stops (flowctl serve shutting down): an engine whose runs outlive
// the process (Temporal) stops following them and leaves them running,
// returning an error that wraps it.
var ErrStopping = errors.New("the process is stopping")

// Options configure a run.
type Options struct {
	// Inputs are the flow's input values, as compiler.Program.ResolveInputs
	// returns them.
	Inputs map[string]cty.Value
	// InputsJSON, when set, is the JSON text some of them were given as
	// (compiler.Program.GivenJSON): the run records it as it is rather
	// than encoding the value again (3.5 MB for a list of 100,000
	// records).
	InputsJSON map[string]json.RawMessage
	// Secrets given on the command line, by secret name; the others are read
	// from the environment through LookupEnv (os.LookupEnv when nil).
	Secrets   map[string]string
	LookupEnv func(string) (string, bool)

	// Parallelism, when above 0, caps how many step instances run at
	// once. There is no such cap by default: each kind of work is bounded
	// by what limits it — code by the sandbox's workers, llm calls by the
	// provider's limits, http by connections per host — and steps that
	// only wait do not hold a place (docs/design.md, "Scheduling").
	Parallelism int
	Namespace   string // memory scope; "default" when empty
	// NoCache runs every step, reusing no stored result; results are still
	// stored for later runs.
	NoCache bool
	// CacheAll makes every step cacheable (watch mode), whatever its cache
	// argument and its block's default.
	CacheAll bool
	// CacheTag, when set, is part of every cache key of the run and of
	// the runs of the flows it starts: runs with different tags share no
	// result (an evaluation's repetitions), runs with the same one share
	// them as runs without a tag do.
	CacheTag string
	// ResetCorruptMemory starts a memory whose stored value cannot be read
	// over from its default, with a warning, instead of refusing to run.
	ResetCorruptMemory bool

	Store     *state.Store
	Executors *blocks.Executors
	// Replace, when set, may give a step an executor of its own instead
	// of its block's, in this run and in the runs of the flows it starts:
	// flow tests' mocks and overrides.
	Replace Replacer
	// Offline runs no step and no tool call whose block calls a model or
	// the network (blocks.Block.Reaches) unless Replace gives the step an
	// executor, in this run and in the runs of the flows it starts: such
	// a step fails at once (a flow test without --live).
	Offline bool
	// Observe receives the run's events one at a time.
	Observe func(Event)
	// OnFileRead, when set, is told each local file a block reads.
	OnFileRead func(path string)
	RunID      string // a new id when empty
	// Resume continues the run RunID of the Store, which ended waiting,
	// failed, cancelled or interrupted (resume.go): step instances that
	// finished ok keep what they recorded; the others run. Inputs must
	// be the run's.
	Resume bool
	// KeepSucceeded, in a resumption, names steps (NAME or step.NAME)
	// whose instances that finished ok keep what they recorded although
	// the change since reaches the step: the user says they stand (a fix
	// for the items that failed). Its other instances run (resume.go).
	KeepSucceeded []string
	// Queued starts the run RunID of the Store that QueuedRun's record
	// was queued as (state.Store.QueueRun) by this process: it is started
	// rather than created. Inputs must be the run's.
	Queued bool
	// Recorded: the run RunID is recorded running by this process
	// (state.Store.QueueRun of a running record): it is neither created
	// nor started.
	Recorded bool
	// Ask, when set, asks a person for the decision of an approval step
	// that has none recorded, and returns it (or ErrNoAnswer to let the
	// step wait); its context ends at the step's deadline. Without it,
	// approval steps wait for a decision recorded in the Store.
	Ask func(context.Context, ApprovalRequest) (Decision, error)
	// Origin is recorded with the run: what started it ("" for apply).
	Origin string
	// ParentRun and ParentStep, recorded with the run, are the run and
	// step instance that started it: a step that uses a flow, or an llm
	// step's tool call.
	ParentRun, ParentStep string
	// Timeout, when above 0, bounds the run (instead of the flow's
	// timeout): after it the running steps are cancelled and the run
	// fails.
	Timeout time.Duration
	// MaxTokens and MaxCostUSD, when above 0, are the run's budget for
	// model calls, instead of the flow's max_tokens and max_cost_usd
	// (apply --max-tokens, --max-cost).
	MaxTokens  int
	MaxCostUSD float64
	// NoRecordPrompts keeps the run's model calls (their messages and
	// replies) out of the state (serve and mcp --no-record-prompts); a
	// flow's record_prompts = false does too.
	NoRecordPrompts bool
	// Ledger, when set, is the ledger the run's model calls count in:
	// the run that started this one (a step that uses a flow, a tool
	// call) shares its own, budget included.
	Ledger *blocks.Ledger
	// Targets, when set, are the steps to run (by name), with the steps
	// they depend on; the others neither run nor are recorded, and the
	// outputs that need them have no value (targets.go).
	Targets []string
	// Record, when set, receives the run's step results instead of
	// Store: a Machine records them through its engine.
	Record func(*state.StepResult)
	// StepValues fills Result.Steps. Without it, a run keeps a step's
	// value only until the steps, outputs and memories that refer to it
	// have been evaluated: the run's memory follows what is still to
	// run, not everything that ran (the values are in the state).
	StepValues bool

	// noSecrets: the run reads no secret (a Machine's).
	noSecrets bool
	// attempt, when above 0, makes each instance a single attempt with
	// this number: the engine that runs the instance retries it (Task).
	attempt int
}

// A Replacer gives steps executors of their own instead of their blocks'
// (Options.Replace).
type Replacer interface {
	// Executor is the executor of step s of the run, or nil for its
	// block's.
	Executor(s *compiler.Step) blocks.Executor
	// Flow is the Replacer of the run of a flow that step s starts: the
	// flow it uses, or, when tool is not "", the flow its model calls as
	// that tool. Nil replaces nothing there.
	Flow(s *compiler.Step, tool string) Replacer
}

// Result is the outcome of a run.
type Result struct {
	RunID  string
	Status Status
	// Outputs are the outputs the run could evaluate: all of them when it
	// succeeded; for a failed or cancelled run, those whose steps all
	// finished. FailedOutputs are the others, in declaration order.
	Outputs       map[string]cty.Value
	FailedOutputs []FailedOutput
	// Diagnostics are the problems that ended or failed the run: failed
	// steps' errors with the source range of the step, a missing secret, an
	// output that could not be evaluated.
	Diagnostics hcl.Diagnostics
	// Usage is the tokens of every LLM call of the run; nil when none was
	// made.
	Usage *blocks.Usage
	// Steps are the values step.NAME had at the end of the run, for every
	// step (null outputs for a step that did not finish); only with
	// Options.StepValues.
	Steps map[string]cty.Value
	// Waiting are the approval step instances a waiting run waits for.
	Waiting []Waiting
}

// Apply runs a compiled program. It returns an error only when the run
// could not be recorded; problems of the flow are in Result.Diagnostics.
// When the run cannot start (an input without a value, a missing secret),
// nothing is recorded or observed, Result.RunID is empty and Diagnostics
// say why. Cancelling ctx cancels running steps, which are recorded as
// cancelled, and keeps everything that finished.
func Apply(ctx context.Context, prog *compiler.Program, opts Options) (*Result, error) {
	opts, res, err := waitTurn(ctx, prog, opts)
	if res != nil || err != nil {
		return res, err
	}
	r, diags := newRun(prog, opts)
	if diags.HasErrors() {
		return &Result{Status: StatusFailed, Diagnostics: diags}, nil
	}
	if !opts.StepValues {
		r.releaseValues()
	}
	return r.apply(ctx)
}

type run struct {
	prog   *compiler.Program
	opts   Options
	id     string
	scope  *compiler.Scope
	redact *redactor

	inputs map[string]cty.Value
	// plainInputs are the inputs with nothing sensitive or unknown inside
	// (see forEachFacts).
	plainInputs map[string]bool
	secrets     map[string]cty.Value
	memory      map[string]cty.Value

	sem chan struct{} // the run's overall cap; nil when none
	mcp mcpPool       // the run's sessions with MCP servers
	// prior are the step results the run recorded before it was
	// resumed, by step and instance; nil when it was not.
	prior map[string]map[string]*state.StepResult
	// stale: in a resumed run, the steps whose fingerprint is not the
	// one they were recorded with; they run again.
	stale map[string]bool
	// keepSucceeded are the steps of Options.KeepSucceeded.
	keepSucceeded map[string]bool
	// targeted says, by step index, which steps run; nil: all of them.
	targeted []bool

	// halted: the engine that drives the run cancelled it
	// (Machine.Cancel).
	halted bool
	// release: the run drops step values nothing needs (releaseValues).
	release bool
	// cacheGroups holds, for each for_each step running, what the cache
	// held of its block's keys when it started (readCacheGroup).
	cacheGroups sync.Map // *compiler.Step → *state.CacheGroup
	// salt is the state's cache salt, read once (cacheSalt).
	salt struct {
		once sync.Once
		b    []byte
		err  error
	}

	mu      sync.Mutex // guards steps' results and the fields below
	steps   []*stepRun
	diags   hcl.Diagnostics
	failed  bool
	usage   *blocks.Usage
	waiting []Waiting
	// ledger counts the run's model calls under its budget.
	ledger *blocks.Ledger
	// calls numbers the run's recorded model calls (calls.go).
	calls atomic.Int64

	obsMu sync.Mutex
	wg    sync.WaitGroup
}

func newRun(prog *compiler.Program, opts Options) (*run, hcl.Diagnostics) {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Executors == nil {
		opts.Executors = &blocks.Executors{Builtins: retrieval.With(blocks.BuiltinExecutors())}
	}
	r := &run{
		prog:        prog,
		opts:        opts,
		id:          opts.RunID,
		redact:      &redactor{},
		inputs:      map[string]cty.Value{},
		plainInputs: map[string]bool{},
		secrets:     map[string]cty.Value{},
		memory:      map[string]cty.Value{},
	}
	if opts.Parallelism > 0 {
		r.sem = make(chan struct{}, opts.Parallelism)
	}
	if r.id == "" {
		r.id = state.NewRunID()
	}
	var diags hcl.Diagnostics
	for _, in := range prog.Inputs {
		v, ok := opts.Inputs[in.Name]
		if !ok {
			diags = append(diags, lang.Error(in.NameRange, "Missing input value",
				"Input %q has no value; resolve inputs before running.", in.Name)...)
			continue
		}
		sensitive, known := in.Sensitive, false
		if !sensitive {
			sensitive, known = lang.SensitiveAndKnown(v)
		}
		if sensitive {
			r.redact.addValue(v)
			v = v.Mark(lang.Sensitive)
		} else if known {
			r.plainInputs[in.Name] = true
		}
		r.inputs[in.Name] = v
	}
	known := prog.SecretNames()
	for _, name := range lang.SortedKeys(opts.Secrets) {
		if !known[name] {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Unknown secret",
				Detail: fmt.Sprintf("--secret %s sets a secret that neither flow %q nor a flow it uses declares.%s",
					name, prog.Flow.Name, lang.Suggest(name, lang.SortedKeys(known))),
			})
		}
	}
	// A missing secret is an error before any step runs (docs/design.md, "Secrets").
	// A Machine's run has none: its secrets are unknown (runValues.Secret),
	// resolved where its tasks run.
	for _, s := range prog.Secrets {
		if opts.noSecrets {
			break
		}
		val, ok := opts.Secrets[s.Name]
		if !ok {
			val, ok = opts.LookupEnv(s.Env)
		}
		if !ok {
			diags = append(diags, lang.Error(s.NameRange, "Missing secret",
				"Secret %q is read from the environment variable %s, which is not set. Set it, or pass --secret %s=VALUE.",
				s.Name, s.Env, s.Name)...)
			continue
		}
		r.redact.add(val)
		r.secrets[s.Name] = cty.StringVal(val).Mark(lang.Sensitive)
	}
	diags = append(diags, r.target()...)
	diags = append(diags, r.keepSucceededSteps()...)
	r.scope = compiler.NewScope(prog, (*runValues)(r))
	r.steps = make([]*stepRun, len(prog.Steps))
	for i, s := range prog.Steps {
		r.steps[i] = &stepRun{step: s, pending: len(s.Deps)}
	}
	return r, diags
}

func (r *run) apply(ctx context.Context) (*Result, error) {
	defer r.closeMCP()
	st := r.opts.Store
	started := time.Now()
	inputsJSON := r.inputsJSON()
	mdiags, err := r.loadMemory()
	if err != nil {
		return nil, err
	}
	if mdiags.HasErrors() {
		return &Result{Status: StatusFailed, Diagnostics: mdiags}, nil // the run does not start
	}
	switch {
	case r.opts.Resume:
		if err := r.reopen(); err != nil {
			return nil, err
		}
	case r.opts.Recorded:
	case r.opts.Queued:
		if st == nil {
			return nil, errors.New("starting a queued run needs the state")
		}
		if err := st.StartQueued(r.id, started, ""); err != nil {
			return nil, err
		}
	case st != nil:
		if err := st.CreateRun(&state.Run{
			ID: r.id, Flow: r.prog.Flow.Name, Namespace: r.opts.Namespace, FlowFile: r.prog.Filename,
			SourceHash: r.prog.SourceHash, Inputs: inputsJSON, Status: "running", StartedAt: started,
			Origin: r.opts.Origin, ParentRun: r.opts.ParentRun, ParentStep: r.opts.ParentStep,
		}); err != nil {
			return nil, fmt.Errorf("recording the run: %w", err)
		}
	}
	versionRecorded := r.recordVersion()
	defer versionRecorded()
	r.ledger = r.newLedger()
	r.startCalls()
	emit(r, RunStarted{Time: started, RunID: r.id, Flow: r.prog.Flow.Name, Steps: len(r.prog.Steps), Resumed: r.opts.Resume})

	ctx, span := tracer().Start(ctx, "run "+r.prog.Flow.Name, trace.WithTimestamp(started), trace.WithAttributes(
		attribute.String("flowctl.flow", r.prog.Flow.Name), attribute.String("flowctl.run_id", r.id)))
	defer span.End() // ended with the run's status below; this covers errors
	timeout, timeoutRange := r.opts.Timeout, (*hcl.Range)(nil)
	if timeout <= 0 && r.prog.Flow.Timeout != nil {
		timeout, timeoutRange = r.prog.Flow.Timeout.Duration, r.prog.Flow.Timeout.Range.Ptr()
	}
	runCtx, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	r.wg.Add(len(r.steps))
	var roots []*stepRun
	for _, s := range r.steps {
		if s.pending == 0 {
			roots = append(roots, s)
		}
	}
	for _, s := range roots {
		go r.runSteps(runCtx, s)
	}
	r.wg.Wait()

	res := &Result{RunID: r.id, Status: StatusOK, Outputs: map[string]cty.Value{}}
	switch {
	case ctx.Err() != nil:
		res.Status = StatusCancelled
	case runCtx.Err() == context.DeadlineExceeded:
		res.Status = StatusFailed
		r.addDiags(timeoutDiags(timeout, timeoutRange))
	case r.failed:
		res.Status = StatusFailed
	case len(r.waiting) > 0:
		res.Status = StatusWaiting
		res.Waiting = r.sortedWaiting()
	}
	r.evaluate(res)
	// A run whose step results could not all be recorded is not ok,
	// whatever its steps did: the state would say what did not happen.
	if st != nil {
		if err := st.FlushRun(r.id); err != nil {
			r.addDiags(hcl.Diagnostics{{
				Severity: hcl.DiagError, Summary: "Results not recorded",
				Detail: fmt.Sprintf("Step results of this run could not be recorded in the state, so the run is failed: %s.", trimDot(err.Error())),
			}})
			if res.Status == StatusOK {
				res.Status = StatusFailed
			}
		}
	}
	if res.Status == StatusOK && len(r.diags) == 0 && r.targeted == nil {
		r.saveMemory()
	}
	r.addDiags(mdiags) // warnings of memories that started over
	errText := r.conclude(res)
	if st != nil {
		outJSON, _ := json.Marshal(PlainOutputs(res.Outputs))
		var usageJSON, failedJSON json.RawMessage
		if res.Usage != nil {
			usageJSON, _ = json.Marshal(res.Usage)
		}
		if len(res.FailedOutputs) > 0 {
			failedJSON, _ = json.Marshal(res.FailedOutputs)
		}
		var fps json.RawMessage
		if res.Status != StatusOK {
			// What a resumption checks its program against (resume.go);
			// a run that succeeded is never resumed.
			fps = fingerprintsJSON(r.prog.StepFingerprints())
		}
		versionRecorded()
		if err := st.FinishRun(&state.Run{
			ID: r.id, Status: string(res.Status), FinishedAt: time.Now(), Outputs: outJSON, FailedOutputs: failedJSON,
			Error: errText, Usage: usageJSON, Fingerprints: fps,
		}); err != nil {
			// Record at least that it failed, and why, rather than leave
			// it running.
			st.FinishRun(&state.Run{ID: r.id, Status: string(StatusFailed), Error: "recording the run failed: " + r.redact.redact(err.Error())})
			return res, fmt.Errorf("recording the run: %w", err)
		}
	}
	end := time.Now()
	span.SetAttributes(attribute.String("flowctl.status", string(res.Status)))
	if res.Status != StatusOK {
		span.SetStatus(codes.Error, errText)
	}
	span.End(trace.WithTimestamp(end))
	if res.Status == StatusWaiting {
		emit(r, RunWaiting{Time: end, RunID: r.id, Waiting: res.Waiting, Outputs: res.Outputs, FailedOutputs: res.FailedOutputs})
		return res, nil
	}
	emit(r, RunFinished{
		Time: end, RunID: r.id, Status: res.Status, Outputs: res.Outputs, FailedOutputs: res.FailedOutputs,
		Error: errText, Diagnostics: res.Diagnostics, Usage: res.Usage,
	})
	return res, nil
}

// tracer makes the spans of runs and steps: a no-op until a tracer
// provider is installed (package runtime/tracing).
func tracer() trace.Tracer { return otel.Tracer("github.com/flowctl/flowctl/runtime") }

// redactDiags removes sensitive values from diagnostics' text: a function's
// error can quote the secret it was given.
func (r *run) redactDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		d.Summary = r.redact.redact(d.Summary)
		d.Detail = r.redact.redact(d.Detail)
	}
	return diags
}

// emit delivers an event to the run's observer. Events are stamped as
// they are delivered (At), so that their times never go backwards in the
// order observers see them. emit is generic so that an event is boxed
// into an Event once, and not at all when nothing observes the run.
func emit[E interface{ At(time.Time) Event }](r *run, e E) {
	if r.opts.Observe == nil {
		return
	}
	r.obsMu.Lock()
	defer r.obsMu.Unlock()
	r.opts.Observe(e.At(time.Now()))
}

func (r *run) addDiags(d hcl.Diagnostics) {
	r.mu.Lock()
	r.diags = append(r.diags, d...)
	r.mu.Unlock()
}

// runValues supplies real values to expressions.
type runValues run

func (v *runValues) Input(in *lang.Input) cty.Value { return v.inputs[in.Name] }

func (v *runValues) Secret(s *lang.Secret) cty.Value {
	if val, ok := v.secrets[s.Name]; ok {
		return val
	}
	return cty.UnknownVal(cty.String).Mark(lang.Sensitive)
}

func (v *runValues) Memory(m *lang.Memory) cty.Value { return v.memory[m.Name] }

func (v *runValues) Step(s *compiler.Step) cty.Value {
	v.mu.Lock()
	defer v.mu.Unlock()
	if val := v.steps[s.Index].value; val != cty.NilVal {
		return val
	}
	return cty.DynamicVal
}

func (v *runValues) RunID() cty.Value { return cty.StringVal(v.id) }

var errCancelled = errors.New("cancelled")
