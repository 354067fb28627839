package temporal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// driver runs a Machine's tasks in the workflow.
type driver struct {
	e         *Engine
	ctx       workflow.Context
	lctx      workflow.Context // for local activities
	in        RunInput
	m         *runtime.Machine
	prog      *compiler.Program
	sel       workflow.Selector
	cancelled bool
	events    []Event // the run's events so far

	// Decisions signalled before their step waits, and the approval
	// tasks that wait, by step and instance.
	approvals map[string]ApprovalDecision
	waiters   map[string]*waiter

	// checkpoints: the run records its step results as it goes, and
	// that it waits (waiting.go); false for a run an older flowctl
	// started.
	checkpoints bool
	// busy counts what is out besides approvals that wait: activities,
	// timers of sleep steps, approval requests being recorded.
	busy int
	// waiting: the run waits for approvals, and the state says so.
	waiting bool
	// records are the step results the Machine recorded that no activity
	// has taken to the state yet; recorded counts the events in the state
	// (from base+1: a run started again continues its numbering).
	records  []*state.StepResult
	recorded int
	base     int

	// Of a run started again (resume.go): the results it keeps, by
	// approvalKey, the steps an instance of which ran again, and the
	// instance whose kept result the Machine is taking.
	prior      map[string]KeptResult
	ran        map[string]bool
	keeping    string
	keepingKey json.RawMessage
}

// A waiter is an approval task that waits for its decision.
type waiter struct {
	t   *runtime.Task
	req ApprovalRequest
}

// cancel cancels the run: steps not started are cancelled, approvals
// stop waiting; activities and timers end cancelled by themselves.
func (d *driver) cancel() {
	if d.cancelled {
		return
	}
	d.cancelled = true
	d.goOn()
	d.m.Cancel()
	for _, k := range lang.SortedKeys(d.waiters) {
		w := d.waiters[k]
		delete(d.waiters, k)
		d.done(w.t, cancelledOutcome)
	}
}

// observe takes an event of the Machine.
func (d *driver) observe(ev runtime.Event) {
	w, ok, err := toWire(ev)
	if !ok || err != nil {
		return
	}
	if d.keeping != "" && w.Type == "step_finished" && w.Step == d.keeping && bytes.Equal(w.Instance, d.keepingKey) {
		w.Resumed, d.keeping = true, ""
	}
	d.add(w)
}

// add adds an event, stamped with the workflow's time.
func (d *driver) add(ev Event) {
	ev.Time = workflow.Now(d.ctx)
	d.events = append(d.events, ev)
}

// takeRecords hands over the step results not taken yet.
func (d *driver) takeRecords() []*state.StepResult {
	r := d.records
	d.records = nil
	return r
}

func (d *driver) launch(tasks []*runtime.Task) {
	for _, t := range tasks {
		if d.prior != nil {
			if o, ok := d.kept(t); ok {
				d.keep(t, o)
				continue
			}
		}
		switch {
		case isBuiltin(t, "sleep") && t.Inputs != nil:
			d.sleep(t)
		case isBuiltin(t, "approval") && (len(t.Step.ApprovalInputs) > 0 || (t.Step.OnTimeout != "" && t.Step.OnTimeout != lang.OnTimeoutFail)):
			// The engine's decisions carry no values, and its deadlines fail.
			d.done(t, runtime.Outcome{Status: runtime.StatusFailed, Attempts: 1,
				Error: "on the temporal engine, an approval step takes no input fields and no on_timeout other than \"fail\": run the flow in the process"})
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
	if d.ran != nil && o.Status != runtime.StatusSkipped {
		d.ran[t.Step.Name] = true
	}
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
	d.busy++
	d.sel.AddFuture(workflow.NewTimer(d.ctx, dur), func(f workflow.Future) {
		d.busy--
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
	msg := ""
	if v := t.Inputs["message"]; !v.IsNull() {
		msg = v.AsString()
	}
	req := ApprovalRequest{RunID: d.in.RunID, Flow: d.in.Flow, Step: t.Step.Name, Instance: t.Key.String(), Message: msg, RequestedAt: workflow.Now(d.ctx)}
	w := &waiter{t: t, req: req}
	d.waiters[k] = w
	if t.Step.Timeout != nil && t.Step.Timeout.Duration > 0 {
		w.req.Deadline = req.RequestedAt.Add(t.Step.Timeout.Duration)
		req.Deadline = w.req.Deadline
		timeout := t.Step.Timeout.Duration
		d.sel.AddFuture(workflow.NewTimer(d.ctx, timeout), func(f workflow.Future) {
			if d.waiters[k] != w {
				return // decided
			}
			delete(d.waiters, k)
			d.goOn()
			if f.Get(d.ctx, nil) != nil {
				d.done(t, cancelledOutcome)
				return
			}
			d.done(t, runtime.Outcome{Status: runtime.StatusFailed, Attempts: 1, Error: fmt.Sprintf("nobody decided within its %s timeout", timeout)})
		})
	}
	lctx := workflow.WithLocalActivityOptions(d.ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
	d.busy++
	d.sel.AddFuture(workflow.ExecuteLocalActivity(lctx, requestActivity, req), func(f workflow.Future) {
		// The request is recorded so that flowctl approve finds it; the
		// decision comes as a signal either way.
		d.busy--
		f.Get(d.ctx, nil)
	})
	key, _ := encode(t.Key.Value)
	d.add(Event{Type: "step_waiting", Step: t.Step.Name, Instance: key, Message: msg, Deadline: req.Deadline})
}

// decide hands a signalled decision to its approval step, or keeps it
// until the step waits.
func (d *driver) decide(a ApprovalDecision) {
	k := approvalKey(a.Step, a.Instance)
	w := d.waiters[k]
	if w == nil {
		d.approvals[k] = a
		return
	}
	delete(d.waiters, k)
	d.goOn()
	d.done(w.t, approvalOutcome(d.ctx, a))
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
	if d.checkpoints {
		// The results the Machine recorded so far reach the state before
		// this step runs: a run resumed after Temporal lost it keeps them.
		in.Records = d.takeRecords()
	}
	d.busy++
	d.sel.AddFuture(workflow.ExecuteActivity(actx, stepActivity, in), func(f workflow.Future) {
		d.busy--
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
