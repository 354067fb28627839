// Package temporal runs flows on Temporal (docs/scale-out.md): one generic
// workflow, Run, interprets a compiled program with a runtime.Machine —
// expressions, value steps and what is ready are decided inside the
// workflow — and every other step instance is an activity (sleep is a
// Temporal timer, an approval waits for a signal). Workers compile the
// flows under their directory; a run names its flow and the flow's source
// hash, which the worker's must match.
package temporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the workflow, its query and signal, and the activities.
const (
	WorkflowName   = "flowctl.run"
	EventsQuery    = "events"
	ApprovalSignal = "approval"

	stepActivity   = "flowctl.step"
	startActivity  = "flowctl.start"
	finishActivity = "flowctl.finish"
)

// DefaultTaskQueue is the task queue of workers and runs when none is
// given.
const DefaultTaskQueue = "flowctl"

// Origin is the origin the state records for runs on Temporal.
const Origin = "temporal"

// heartbeat is how often a step activity heartbeats; a worker that stops
// for heartbeatTimeout has its activities retried elsewhere.
const (
	heartbeat        = 2 * time.Second
	heartbeatTimeout = 10 * time.Second
	// lostAttempts are the attempts a step may lose with its workers
	// besides its own.
	lostAttempts = 5
	// noTimeout bounds an attempt of a step without a timeout.
	noTimeout = 24 * time.Hour
)

// RunInput is the workflow's input: which flow, at which source, with
// which inputs (typed JSON; sensitive inputs need the payload key).
type RunInput struct {
	RunID      string                     `json:"run_id"`
	Flow       string                     `json:"flow"`
	FlowFile   string                     `json:"flow_file"`
	SourceHash string                     `json:"source_hash"`
	Namespace  string                     `json:"namespace"`
	Inputs     map[string]json.RawMessage `json:"inputs"`
	NoCache    bool                       `json:"no_cache,omitempty"`
	Targets    []string                   `json:"targets,omitempty"`
	// Timeout, when above 0, bounds the run instead of the flow's timeout.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// RunOutput is the workflow's result.
type RunOutput struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// ApprovalDecision is the approval signal's payload.
type ApprovalDecision struct {
	Step     string `json:"step"`
	Instance string `json:"instance"` // the instance's key as text, "" for none
	Approved bool   `json:"approved"`
	Comment  string `json:"comment"`
	By       string `json:"by"`
}

// Run is the workflow: it runs the flow the input names with a
// runtime.Machine.
func (e *Engine) Run(ctx workflow.Context, in RunInput) (*RunOutput, error) {
	prog, err := e.program(in.Flow, in.SourceHash)
	if err != nil {
		return nil, err
	}
	inputs, err := decodeMap(in.Inputs)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("reading the run's inputs: "+err.Error(), "flowctl.bad_input", nil)
	}
	d := &driver{e: e, ctx: ctx, in: in, prog: prog, sel: workflow.NewSelector(ctx),
		approvals: map[string]ApprovalDecision{}, waiters: map[string]*runtime.Task{}}
	var records []*state.StepResult
	if err := workflow.SetQueryHandler(ctx, EventsQuery, func(after int) ([]Event, error) {
		return d.events[min(max(after, 0), len(d.events)):], nil
	}); err != nil {
		return nil, err
	}

	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	var memory map[string]json.RawMessage
	if err := workflow.ExecuteLocalActivity(lctx, startActivity, in).Get(ctx, &memory); err != nil {
		return nil, err
	}
	mem, err := decodeMap(memory)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("reading the flow's memory: "+err.Error(), "flowctl.bad_memory", nil)
	}
	m, diags := runtime.NewMachine(prog, runtime.MachineOptions{
		RunID: in.RunID, Namespace: in.Namespace, Inputs: inputs, Memory: mem, Targets: in.Targets,
		Observe: func(ev runtime.Event) {
			if w, ok, err := toWire(ev); ok && err == nil {
				d.add(w)
			}
		},
		Record: func(r *state.StepResult) { records = append(records, r) },
	})
	if diags.HasErrors() {
		return nil, temporal.NewNonRetryableApplicationError(runtime.DiagText(diags), "flowctl.bad_run", nil)
	}
	d.m = m
	// The steps run in a context the run's timeout cancels.
	runCtx, stopRun := workflow.WithCancel(ctx)
	d.ctx = runCtx
	timeout, timeoutRange := in.Timeout, (*hcl.Range)(nil)
	if timeout <= 0 && prog.Flow.Timeout != nil {
		timeout, timeoutRange = prog.Flow.Timeout.Duration, prog.Flow.Timeout.Range.Ptr()
	}
	if timeout > 0 {
		tctx, stopTimer := workflow.WithCancel(ctx)
		defer stopTimer()
		d.sel.AddFuture(workflow.NewTimer(tctx, timeout), func(f workflow.Future) {
			if f.Get(tctx, nil) == nil && !d.cancelled {
				m.TimedOut(timeout, timeoutRange)
				d.cancel()
				stopRun()
			}
		})
	}
	// Cancellation comes once, through a channel: ctx.Done() stays ready
	// once closed.
	cancelled := workflow.NewChannel(ctx)
	workflow.Go(ctx, func(gctx workflow.Context) {
		gctx.Done().Receive(gctx, nil)
		cancelled.SendAsync(true)
	})
	d.sel.AddReceive(cancelled, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		d.cancel()
	})
	d.sel.AddReceive(workflow.GetSignalChannel(ctx, ApprovalSignal), func(c workflow.ReceiveChannel, _ bool) {
		var a ApprovalDecision
		c.Receive(ctx, &a)
		d.decide(a)
	})
	d.launch(m.Start())
	for !m.Finished() {
		d.sel.Select(ctx)
	}
	res, saveMemory := m.Result()

	// The run's end is recorded even when it was cancelled.
	fctx, cancel := workflow.NewDisconnectedContext(lctx)
	defer cancel()
	fin := FinishInput{
		RunID: in.RunID, Flow: in.Flow, SourceHash: in.SourceHash, Namespace: in.Namespace, Status: string(res.Status),
		Records: records, Events: d.events,
	}
	if saveMemory {
		// The memories are evaluated where they are stored, with the
		// values of the steps they refer to, so that concurrent runs
		// lose no update.
		fin.SaveMemory, fin.Inputs, fin.Steps = true, in.Inputs, map[string]json.RawMessage{}
		for _, mem := range prog.Memories {
			for _, s := range prog.MemorySteps[mem] {
				if raw, sensitive, err := encodeValueOf(m.Value(s)); err == nil && !sensitive && raw != nil {
					fin.Steps[s.Name] = raw
				}
			}
		}
	}
	if err := workflow.ExecuteLocalActivity(fctx, finishActivity, fin).Get(fctx, nil); err != nil {
		return nil, err
	}
	out := &RunOutput{Status: string(res.Status)}
	if res.Diagnostics.HasErrors() {
		out.Error = runtime.RunError(res.Diagnostics)
	}
	return out, nil
}

// program is the worker's program of a flow, which must have the run's
// source hash: a worker with other flow files refuses the run rather
// than run something else.
func (e *Engine) program(flow, hash string) (*compiler.Program, error) {
	prog := e.programs[flow]
	switch {
	case prog == nil:
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("this worker has no flow %q (it has %s): start it in the directory of the flow", flow, strings.Join(lang.SortedKeys(e.programs), ", ")),
			"flowctl.unknown_flow", nil)
	case prog.SourceHash != hash:
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("flow %q on this worker (source %s) is not the flow the run was started with (source %s): run workers with the same flow files as the client",
				flow, short(prog.SourceHash), short(hash)),
			"flowctl.other_source", nil)
	}
	return prog, nil
}

func short(hash string) string { return hash[:min(12, len(hash))] }

// driver runs a Machine's tasks in the workflow.
type driver struct {
	e         *Engine
	ctx       workflow.Context
	in        RunInput
	m         *runtime.Machine
	prog      *compiler.Program
	sel       workflow.Selector
	cancelled bool
	events    []Event // the run's events so far

	// Decisions signalled before their step waits, and the approval
	// tasks that wait, by step and instance.
	approvals map[string]ApprovalDecision
	waiters   map[string]*runtime.Task
}

// cancel cancels the run: steps not started are cancelled, approvals
// stop waiting; activities and timers end cancelled by themselves.
func (d *driver) cancel() {
	if d.cancelled {
		return
	}
	d.cancelled = true
	d.m.Cancel()
	for _, k := range lang.SortedKeys(d.waiters) {
		t := d.waiters[k]
		delete(d.waiters, k)
		d.done(t, cancelledOutcome)
	}
}

// add adds an event, stamped with the workflow's time.
func (d *driver) add(ev Event) {
	ev.Time = workflow.Now(d.ctx)
	d.events = append(d.events, ev)
}

func (d *driver) launch(tasks []*runtime.Task) {
	for _, t := range tasks {
		switch {
		case isBuiltin(t, "sleep") && t.Inputs != nil:
			d.sleep(t)
		case isBuiltin(t, "approval") && t.Inputs != nil:
			d.approval(t)
		case isBuiltin(t, "approval"):
			// Its message is not known in the workflow: it uses a secret.
			d.done(t, runtime.Outcome{Status: runtime.StatusFailed, Attempts: 1,
				Error: "on the temporal engine, an approval's message may not use a secret or a sensitive value"})
		default:
			d.activity(t)
		}
	}
}

func isBuiltin(t *runtime.Task, name string) bool {
	return t.Step.Flow == nil && t.Step.Block.Builtin() && t.Step.Block.Name == name
}

// done reports a task's outcome and launches the tasks it made ready.
func (d *driver) done(t *runtime.Task, o runtime.Outcome) {
	d.launch(d.m.Done(t.ID, o))
}

// cancelledOutcome is the outcome of a task whose run was cancelled.
var cancelledOutcome = runtime.Outcome{Status: runtime.StatusCancelled, Error: "the run was cancelled"}

// sleep is a Temporal timer.
func (d *driver) sleep(t *runtime.Task) {
	dur, err := time.ParseDuration(t.Inputs["duration"].AsString())
	if err != nil || dur < 0 {
		d.done(t, runtime.Outcome{Status: runtime.StatusFailed, Error: fmt.Sprintf("invalid duration %q", t.Inputs["duration"].AsString()), Attempts: 1})
		return
	}
	start := workflow.Now(d.ctx)
	d.sel.AddFuture(workflow.NewTimer(d.ctx, dur), func(f workflow.Future) {
		if err := f.Get(d.ctx, nil); err != nil {
			d.done(t, cancelledOutcome)
			return
		}
		slept := workflow.Now(d.ctx).Sub(start)
		d.done(t, runtime.Outcome{Status: runtime.StatusOK, Attempts: 1, Started: start,
			Outputs: cty.ObjectVal(map[string]cty.Value{"slept_ms": cty.NumberIntVal(slept.Milliseconds())})})
	})
}

func approvalKey(step, instance string) string { return step + "\x00" + instance }

// approval waits for the approval signal of its instance, or its
// timeout.
func (d *driver) approval(t *runtime.Task) {
	k := approvalKey(t.Step.Name, t.Key.String())
	if a, ok := d.approvals[k]; ok {
		delete(d.approvals, k)
		d.done(t, approvalOutcome(d.ctx, a))
		return
	}
	d.waiters[k] = t
	msg := ""
	if v := t.Inputs["message"]; !v.IsNull() {
		msg = v.AsString()
	}
	req := ApprovalRequest{RunID: d.in.RunID, Flow: d.in.Flow, Step: t.Step.Name, Instance: t.Key.String(), Message: msg, RequestedAt: workflow.Now(d.ctx)}
	if t.Step.Timeout != nil && t.Step.Timeout.Duration > 0 {
		req.Deadline = req.RequestedAt.Add(t.Step.Timeout.Duration)
		timeout := t.Step.Timeout.Duration
		d.sel.AddFuture(workflow.NewTimer(d.ctx, timeout), func(f workflow.Future) {
			if d.waiters[k] != t {
				return // decided
			}
			delete(d.waiters, k)
			if f.Get(d.ctx, nil) != nil {
				d.done(t, cancelledOutcome)
				return
			}
			d.done(t, runtime.Outcome{Status: runtime.StatusFailed, Attempts: 1, Error: fmt.Sprintf("nobody decided within its %s timeout", timeout)})
		})
	}
	lctx := workflow.WithLocalActivityOptions(d.ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
	d.sel.AddFuture(workflow.ExecuteLocalActivity(lctx, requestActivity, req), func(f workflow.Future) {
		// The request is recorded so that flowctl approve finds it; the
		// decision comes as a signal either way.
		f.Get(d.ctx, nil)
	})
	key, _ := encode(t.Key.Value)
	d.add(Event{Type: "step_waiting", Step: t.Step.Name, Instance: key, Message: msg, Deadline: req.Deadline})
}

// decide hands a signalled decision to its approval step, or keeps it
// until the step waits.
func (d *driver) decide(a ApprovalDecision) {
	k := approvalKey(a.Step, a.Instance)
	t := d.waiters[k]
	if t == nil {
		d.approvals[k] = a
		return
	}
	delete(d.waiters, k)
	d.done(t, approvalOutcome(d.ctx, a))
}

func approvalOutcome(ctx workflow.Context, a ApprovalDecision) runtime.Outcome {
	return runtime.ApprovalOutcome(runtime.Decision{Approved: a.Approved, Comment: a.Comment, By: a.By}, workflow.Now(ctx))
}

// activity runs a task as the step activity, with the step's retries and
// timeout as the activity's.
func (d *driver) activity(t *runtime.Task) {
	in, err := d.stepInput(t)
	if err != nil {
		d.done(t, runtime.Outcome{Status: runtime.StatusFailed, Error: err.Error()})
		return
	}
	retry := t.Step.Retry
	policy := &temporal.RetryPolicy{
		InitialInterval: lang.DefaultBackoff, BackoffCoefficient: 2, MaximumInterval: lang.DefaultMaxBackoff,
		MaximumAttempts: 1, NonRetryableErrorTypes: []string{finalError},
	}
	if retry != nil {
		policy.MaximumAttempts = int32(retry.Attempts)
		policy.InitialInterval, policy.MaximumInterval = retry.Backoff.Duration, retry.MaxBackoff.Duration
	}
	// The step's attempts are the block's: the activity reports the last
	// one's failure as an outcome. Temporal may try more, for attempts
	// lost with a worker (a heartbeat timeout).
	in.MaxAttempts = int(policy.MaximumAttempts)
	policy.MaximumAttempts += lostAttempts
	timeout := runtime.StepTimeout(t.Step)
	attempt := noTimeout
	if timeout > 0 {
		attempt = timeout + time.Minute // the step's own timeout ends it first, with its message
	}
	actx := workflow.WithActivityOptions(d.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: attempt,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy:         policy,
		ActivityID:          fmt.Sprintf("%s/%d", runtime.Label(t.Step.Name, t.Key), t.ID),
	})
	d.sel.AddFuture(workflow.ExecuteActivity(actx, stepActivity, in), func(f workflow.Future) {
		var out StepOutput
		err := f.Get(d.ctx, &out)
		var canceled *temporal.CanceledError
		switch {
		case errors.As(err, &canceled) || err != nil && d.cancelled:
			d.done(t, cancelledOutcome)
		case err != nil:
			d.done(t, runtime.Outcome{Status: runtime.StatusFailed, Error: activityError(err), Attempts: int(policy.MaximumAttempts)})
		default:
			o, err := out.outcome()
			if err != nil {
				o = runtime.Outcome{Status: runtime.StatusFailed, Error: err.Error()}
			}
			for _, ev := range out.Events {
				d.add(ev)
			}
			d.done(t, o)
		}
	})
}

// activityError is the text of the error of an activity that did not
// return an outcome: its timeout, or the failure's message.
func activityError(err error) string {
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		switch te.TimeoutType() {
		case enumspb.TIMEOUT_TYPE_HEARTBEAT:
			return "its worker stopped responding"
		case enumspb.TIMEOUT_TYPE_START_TO_CLOSE:
			return "the attempt exceeded its time"
		}
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Message()
	}
	return err.Error()
}

// stepInput is the activity's input for a task: the values of the steps
// it depends on, the memories', and where it is.
func (d *driver) stepInput(t *runtime.Task) (StepInput, error) {
	in := StepInput{
		RunID: d.in.RunID, Flow: d.in.Flow, SourceHash: d.in.SourceHash, Namespace: d.in.Namespace,
		Inputs: d.in.Inputs, NoCache: d.in.NoCache, Step: t.Step.Name, Steps: map[string]json.RawMessage{},
	}
	var err error
	if !t.Key.IsNone() {
		if in.Key, err = runtime.EncodeValue(t.Key.Value); err != nil {
			return in, err
		}
		if in.Each, err = encode(t.Each.Value); err != nil {
			return in, fmt.Errorf("the for_each value of step %s: %w", t.Step.Name, err)
		}
	}
	for _, dep := range t.Step.Deps {
		raw, sensitive, err := encodeCrossing(d.m.Value(dep), d.e.opts.Encrypted, fmt.Sprintf("step %s depends on step %s, whose outputs are", t.Step.Name, dep.Name))
		if err != nil {
			return in, err
		}
		if sensitive {
			in.Sensitive = append(in.Sensitive, dep.Name)
		}
		in.Steps[dep.Name] = raw
	}
	if in.Memory, err = encodeMap(d.m.Memory()); err != nil {
		return in, err
	}
	return in, nil
}
