package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// finalError is the type of a step activity's error that no retry
// changes.
const finalError = "flowctl.final"

const requestActivity = "flowctl.request_approval"

// An Engine runs the workflow and the activities of a worker.
type Engine struct {
	mu    sync.Mutex // progs
	progs *programs
	opts  Options
}

// Options configure an Engine.
type Options struct {
	// Store records runs, step results and events, and holds the cache and
	// memory; nil records nothing (tests of the workflow alone). StoreFor,
	// when set, gives each flow's instead.
	Store     *state.Store
	StoreFor  func(*compiler.Program) *state.Store
	Executors *blocks.Executors
	// Secrets by name; the others are read from the worker's environment
	// through LookupEnv (os.LookupEnv when nil).
	Secrets   map[string]string
	LookupEnv func(string) (string, bool)
	// Encrypted: the workers' and clients' data converter encrypts
	// payloads (DataConverter with a key), so sensitive values may cross.
	Encrypted bool
	// Reload compiles the worker's flows again from their files, for a run
	// of a flow or a version the worker does not have (programs.go); nil
	// when the flows are fixed.
	Reload func() ([]*compiler.Program, error)
	// Logger receives what the worker does: runs started, waiting and
	// finished, runs refused, flows reloaded; nil logs nothing.
	Logger *slog.Logger
}

// NewEngine is an engine for the programs, by flow name.
func NewEngine(programs []*compiler.Program, opts Options) (*Engine, error) {
	e := &Engine{progs: newPrograms(), opts: opts}
	if _, err := e.progs.set(programs); err != nil {
		return nil, err
	}
	return e, nil
}

// Flows are the names of the flows the engine has now.
func (e *Engine) Flows() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return lang.SortedKeys(e.progs.current)
}

// store is the state of a flow's runs.
func (e *Engine) store(flow string) *state.Store {
	e.mu.Lock()
	p := e.progs.current[flow]
	e.mu.Unlock()
	if p != nil && e.opts.StoreFor != nil {
		return e.opts.StoreFor(p)
	}
	return e.opts.Store
}

// WorkerOptions are the options of a worker's (and a test environment's)
// workflow workers: a workflow task may evaluate a whole flow of value
// steps, or decode values of megabytes, so the deadlock detector waits 30s
// rather than the SDK's 1s before it takes a task that has not yielded for
// a blocked one.
func WorkerOptions() worker.Options {
	return worker.Options{DeadlockDetectionTimeout: 30 * time.Second}
}

// Register registers the workflow and the activities with a worker.
func (e *Engine) Register(w worker.Registry) {
	w.RegisterWorkflowWithOptions(e.Run, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(e.step, activity.RegisterOptions{Name: stepActivity})
	w.RegisterActivityWithOptions(e.start, activity.RegisterOptions{Name: startActivity})
	w.RegisterActivityWithOptions(e.finish, activity.RegisterOptions{Name: finishActivity})
	w.RegisterActivityWithOptions(e.requestApproval, activity.RegisterOptions{Name: requestActivity})
	w.RegisterActivityWithOptions(e.checkpoint, activity.RegisterOptions{Name: checkpointActivity})
	w.RegisterActivityWithOptions(e.resume, activity.RegisterOptions{Name: resumeActivity})
}

// StepInput is the step activity's input.
type StepInput struct {
	RunID      string                     `json:"run_id"`
	Flow       string                     `json:"flow"`
	SourceHash string                     `json:"source_hash"`
	Namespace  string                     `json:"namespace"`
	Inputs     map[string]json.RawMessage `json:"inputs"`
	NoCache    bool                       `json:"no_cache,omitempty"`
	Step       string                     `json:"step"`
	Key        json.RawMessage            `json:"key,omitempty"`       // typed; none for a step without for_each
	Each       json.RawMessage            `json:"each,omitempty"`      // each.value
	Steps      map[string]json.RawMessage `json:"steps"`               // the values of the steps it depends on
	Sensitive  []string                   `json:"sensitive,omitempty"` // those of Steps that are sensitive
	Memory     map[string]json.RawMessage `json:"memory,omitempty"`
	// MaxAttempts are the attempts the retry policy allows: the last
	// reports a failure as an outcome rather than an error.
	MaxAttempts int `json:"max_attempts"`
	// Records are results of the run's other steps, which the workflow
	// decided (value steps, sleeps, approvals), to record first.
	Records []*state.StepResult `json:"records,omitempty"`
}

// StepOutput is the step activity's result.
type StepOutput struct {
	Status   string          `json:"status"`
	Outputs  json.RawMessage `json:"outputs,omitempty"`
	Error    string          `json:"error,omitempty"`
	Attempts int             `json:"attempts"`
	Usage    *blocks.Usage   `json:"usage,omitempty"`
	Log      string          `json:"log,omitempty"`
	Recorded bool            `json:"recorded,omitempty"`
	Started  time.Time       `json:"started"`
	// Sensitive: Outputs are sensitive (payloads are encrypted).
	Sensitive bool    `json:"sensitive,omitempty"`
	Events    []Event `json:"events,omitempty"`
}

func (o StepOutput) outcome() (runtime.Outcome, error) {
	v, err := decode(o.Outputs)
	if err != nil {
		return runtime.Outcome{}, fmt.Errorf("reading the step's outputs: %w", err)
	}
	if o.Sensitive && v != cty.NilVal {
		v = v.Mark(lang.Sensitive)
	}
	return runtime.Outcome{Status: runtime.Status(o.Status), Outputs: v, Error: o.Error, Attempts: o.Attempts,
		Usage: o.Usage, Log: o.Log, Recorded: o.Recorded, Started: o.Started}, nil
}

// step runs one attempt of a step instance. A failure another attempt
// may mend is an error while attempts remain, so that Temporal retries
// it; the last attempt's failure, and a final one, is an outcome.
func (e *Engine) step(ctx context.Context, in StepInput) (*StepOutput, error) {
	// Heartbeats tell Temporal the worker is alive, and deliver the
	// run's cancellation: from the start, since reading inputs of
	// megabytes takes time too.
	hctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(hctx)
			}
		}
	}()
	prog, err := e.program(in.Flow, in.SourceHash, true)
	if err != nil {
		return nil, err
	}
	inputs, err := decodeMap(in.Inputs)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("reading the run's inputs: "+err.Error(), finalError, nil)
	}
	spec := runtime.TaskSpec{RunID: in.RunID, Namespace: in.Namespace, Step: in.Step, Key: runtime.NoKey,
		Attempt: int(activity.GetInfo(ctx).Attempt)}
	if spec.Steps, err = decodeMap(in.Steps); err == nil {
		spec.Memory, err = decodeMap(in.Memory)
	}
	for _, name := range in.Sensitive {
		if v, ok := spec.Steps[name]; ok {
			spec.Steps[name] = v.Mark(lang.Sensitive)
		}
	}
	if err == nil && len(in.Key) > 0 {
		var k, each cty.Value
		if k, err = decode(in.Key); err == nil {
			each, err = decode(in.Each)
			spec.Key, spec.Each = runtime.Key{Value: k}, &compiler.Each{Key: k, Value: each}
		}
	}
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("reading the step's input: "+err.Error(), finalError, nil)
	}

	st := e.store(in.Flow)
	if st != nil {
		for _, r := range in.Records {
			st.RecordStep(r) // RunTask flushes them with its own
		}
	}
	res, err := runtime.RunTask(hctx, prog, runtime.Options{
		Inputs: inputs, Store: st, Executors: e.opts.Executors, Secrets: e.opts.Secrets,
		LookupEnv: e.opts.LookupEnv, NoCache: in.NoCache, Origin: Origin,
	}, spec)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), finalError, nil)
	}
	o := res.Outcome
	if o.Status == runtime.StatusCancelled && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if o.Status == runtime.StatusFailed && res.Retry && spec.Attempt < in.MaxAttempts {
		return nil, temporal.NewApplicationError(o.Error, "flowctl.step_failed")
	}
	if o.Status == runtime.StatusFailed && in.MaxAttempts > 1 && res.Retry {
		o.Error = fmt.Sprintf("%s (after %d attempts)", o.Error, in.MaxAttempts)
	}
	out := &StepOutput{Status: string(o.Status), Error: o.Error, Attempts: o.Attempts, Usage: o.Usage, Log: o.Log,
		Recorded: o.Recorded, Started: o.Started}
	if o.Outputs != cty.NilVal && (o.Status == runtime.StatusOK || o.Status == runtime.StatusCached) {
		out.Outputs, out.Sensitive, err = encodeCrossing(o.Outputs, e.opts.Encrypted, "its outputs are")
		if err != nil {
			out.Outputs, out.Sensitive = nil, false
			out.Status, out.Error = string(runtime.StatusFailed), err.Error()
		}
	}
	for _, ev := range res.Events {
		if w, ok, err := toWire(ev); ok && err == nil {
			out.Events = append(out.Events, w)
		}
	}
	return out, nil
}

// start records the run and returns the flow's memory, as stored.
func (e *Engine) start(ctx context.Context, in RunInput) (map[string]json.RawMessage, error) {
	st := e.store(in.Flow)
	if st == nil {
		return nil, nil
	}
	if _, err := st.Run(in.RunID); errors.Is(err, state.ErrRunNotFound) {
		values, err := decodeMap(in.Inputs)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError("reading the run's inputs: "+err.Error(), finalError, nil)
		}
		prog, err := e.program(in.Flow, in.SourceHash, true)
		if err != nil {
			return nil, err
		}
		for _, decl := range prog.Inputs {
			if v, ok := values[decl.Name]; ok && decl.Sensitive {
				values[decl.Name] = v.Mark(lang.Sensitive) // recorded as "(sensitive)"
			}
		}
		inputs, _ := json.Marshal(runtime.PlainOutputs(values))
		// The fingerprints let a run that Temporal loses be resumed by
		// a flow whose steps that finished did not change.
		fps, _ := json.Marshal(prog.StepFingerprints())
		if err := st.CreateRun(&state.Run{
			ID: in.RunID, Flow: in.Flow, Namespace: in.Namespace, FlowFile: in.FlowFile, SourceHash: in.SourceHash,
			Inputs: inputs, Status: "running", StartedAt: time.Now(), Origin: Origin, Fingerprints: fps,
		}); err != nil {
			return nil, err
		}
		e.log().Info("run started", "run", in.RunID, "flow", in.Flow, "source", short(in.SourceHash))
	} else if err != nil {
		return nil, err
	}
	return st.Memory(in.Flow, in.Namespace)
}

// FinishInput is what the finish activity records.
type FinishInput struct {
	// RunID, Flow, Status (the run's end), the step results and the
	// events not recorded yet.
	CheckpointInput
	SourceHash string `json:"source_hash"`
	Namespace  string `json:"namespace"`
	// SaveMemory: the run's memories are to be stored, evaluated with
	// Inputs, the run's inputs, and Steps, the values of the steps they
	// refer to.
	SaveMemory bool                       `json:"save_memory,omitempty"`
	Inputs     map[string]json.RawMessage `json:"inputs,omitempty"`
	Steps      map[string]json.RawMessage `json:"steps,omitempty"`
	// Started is when the workflow started, for the log.
	Started time.Time `json:"started,omitzero"`
}

// finish records the step results the workflow decided, the run's events
// and its end, and the memory of a run that succeeded.
func (e *Engine) finish(ctx context.Context, in FinishInput) error {
	st := e.store(in.Flow)
	if st == nil {
		return nil
	}
	last := in.record(st)
	if err := st.FlushRun(in.RunID); err != nil {
		return err
	}
	var memErr error
	if in.SaveMemory {
		memErr = e.saveMemory(st, in)
	}
	run := &state.Run{ID: in.RunID, Status: in.Status, FinishedAt: time.Now()}
	if rf, ok := last.(runtime.RunFinished); ok {
		run.Outputs, _ = json.Marshal(runtime.PlainOutputs(rf.Outputs))
		if len(rf.FailedOutputs) > 0 {
			run.FailedOutputs, _ = json.Marshal(rf.FailedOutputs)
		}
		if rf.Usage != nil {
			run.Usage, _ = json.Marshal(rf.Usage)
		}
		run.Error = rf.Error
	}
	if memErr != nil {
		run.Status, run.Error = string(runtime.StatusFailed), "Memory not saved: "+memErr.Error()
	}
	if err := st.FinishRun(run); err != nil {
		e.log().Error("recording the run's end failed", "run", in.RunID, "flow", in.Flow, "status", run.Status, "error", err.Error())
		return err
	}
	e.log().Info("run finished", "run", in.RunID, "flow", in.Flow, "status", run.Status, "duration_ms", since(in.Started).Milliseconds())
	if memErr != nil {
		return temporal.NewNonRetryableApplicationError(run.Error, finalError, nil)
	}
	return nil
}

// saveMemory stores the memories of a run that succeeded.
func (e *Engine) saveMemory(st *state.Store, in FinishInput) error {
	prog, err := e.program(in.Flow, in.SourceHash, true)
	if err != nil {
		return err
	}
	inputs, err := decodeMap(in.Inputs)
	if err != nil {
		return err
	}
	steps, err := decodeMap(in.Steps)
	if err != nil {
		return err
	}
	return runtime.SaveMemory(prog, runtime.Options{Store: st, Inputs: inputs, Namespace: in.Namespace, RunID: in.RunID}, steps)
}

// ApprovalRequest is an approval step instance's request, recorded so
// that flowctl approve and the API find it.
type ApprovalRequest struct {
	RunID       string    `json:"run_id"`
	Flow        string    `json:"flow"`
	Step        string    `json:"step"`
	Instance    string    `json:"instance"`
	Message     string    `json:"message"`
	RequestedAt time.Time `json:"requested_at"`
	Deadline    time.Time `json:"deadline,omitzero"`
}

func (e *Engine) requestApproval(ctx context.Context, req ApprovalRequest) error {
	st := e.store(req.Flow)
	if st == nil {
		return nil
	}
	return st.RequestApproval(&state.Approval{RunID: req.RunID, Step: req.Step, Instance: req.Instance,
		Message: req.Message, RequestedAt: req.RequestedAt, Deadline: req.Deadline})
}
