package temporal

import (
	"encoding/json"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
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
	// Resume: the run is recorded in the state already (it failed, was
	// cancelled or interrupted) and starts again on Temporal: its step
	// instances that finished ok keep what they recorded (resume.go).
	Resume bool `json:"resume,omitempty"`
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
	prog, err := e.program(in.Flow, in.SourceHash, !workflow.IsReplaying(ctx))
	if err != nil {
		return nil, err
	}
	inputs, err := decodeMap(in.Inputs)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("reading the run's inputs: "+err.Error(), "flowctl.bad_input", nil)
	}
	d := &driver{e: e, ctx: ctx, in: in, prog: prog, sel: workflow.NewSelector(ctx),
		approvals: map[string]ApprovalDecision{}, waiters: map[string]*waiter{}}
	if err := workflow.SetQueryHandler(ctx, EventsQuery, func(after int) ([]Event, error) {
		return d.events[min(max(after, 0), len(d.events)):], nil
	}); err != nil {
		return nil, err
	}
	// A run started by an older flowctl, whose history has no
	// checkpoints, is replayed without them.
	d.checkpoints = workflow.GetVersion(ctx, checkpointsChange, workflow.DefaultVersion, 1) >= 1

	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	d.lctx = lctx
	var memory map[string]json.RawMessage
	if err := workflow.ExecuteLocalActivity(lctx, startActivity, in).Get(ctx, &memory); err != nil {
		return nil, err
	}
	mem, err := decodeMap(memory)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("reading the flow's memory: "+err.Error(), "flowctl.bad_memory", nil)
	}
	if in.Resume {
		var prior ResumeOutput
		if err := workflow.ExecuteLocalActivity(lctx, resumeActivity, in).Get(ctx, &prior); err != nil {
			return nil, err
		}
		d.resume(prior)
	}
	m, diags := runtime.NewMachine(prog, runtime.MachineOptions{
		RunID: in.RunID, Namespace: in.Namespace, Inputs: inputs, Memory: mem, Targets: in.Targets,
		Observe: d.observe,
		Record:  func(r *state.StepResult) { d.records = append(d.records, r) },
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
		d.settle()
	}
	res, saveMemory := m.Result()

	// The run's end is recorded even when it was cancelled.
	fctx, cancel := workflow.NewDisconnectedContext(lctx)
	defer cancel()
	fin := FinishInput{
		CheckpointInput: d.unrecorded(string(res.Status)), SourceHash: in.SourceHash, Namespace: in.Namespace,
		Started: workflow.GetInfo(ctx).WorkflowStartTime,
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
