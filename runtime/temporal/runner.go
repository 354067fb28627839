package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// pollInterval is how often Follow asks a running workflow for its new
// events.
const pollInterval = 50 * time.Millisecond

// LostCause is the error recorded with a run whose workflow the Temporal
// server has no record of: a dev server that keeps its data in memory
// (temporal server start-dev without --db-filename) forgets every
// workflow when it restarts.
const LostCause = "the Temporal server has no record of this run (was it restarted without a database?)"

// ErrLost is Follow's error when the Temporal server has no record of
// the run's workflow.
var ErrLost = errors.New(LostCause)

// StatusInterrupted is the status of a run that Temporal will not finish
// (Runner.Apply, Reconcile): it can be resumed.
const StatusInterrupted = runtime.Status(state.StatusInterrupted)

// unreachable bounds how long Follow waits for a Temporal server it
// cannot reach (restarting, or the network) before it gives up
// following; the run itself is Temporal's either way.
const unreachable = 5 * time.Minute

// finalQueryTries bounds the queries for a run's last events (Follow).
const finalQueryTries = 5

// Follow hands the events of a run on Temporal to observe as they
// happen, until it ends, and returns its result. Cancelling ctx cancels
// the run (and still follows it to its end), unless its cause is
// runtime.ErrStopping: then Follow returns that, and the run goes on.
// When the server has no record of the workflow, the error is ErrLost.
func Follow(ctx context.Context, c client.Client, runID string, observe func(runtime.Event)) (*RunOutput, error) {
	done := make(chan struct{})
	var out RunOutput
	var runErr error
	go func() {
		defer close(done)
		runErr = waitResult(c, runID, &out)
	}()
	seen := 0
	deliver := func() error {
		resp, err := c.QueryWorkflow(context.Background(), runID, "", EventsQuery, seen)
		if err != nil {
			return err
		}
		var events []Event
		if err := resp.Get(&events); err != nil {
			return err
		}
		seen += len(events)
		for _, w := range events {
			if ev, err := w.Runtime(); err == nil {
				observe(ev)
			}
		}
		return nil
	}
	cancelled := false
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			if runErr != nil {
				return nil, runErr
			}
			// The last events: a query of an ended run is answered by a
			// worker replaying it, which a busy worker may not do within
			// the server's query timeout; that is tried again, a few times.
			err := deliver()
			for try := 1; err != nil && try < finalQueryTries; try++ {
				time.Sleep(pollInterval)
				err = deliver()
			}
			if err != nil {
				return nil, err
			}
			return &out, nil
		case <-tick.C:
			deliver() // a query may fail while no worker is up; the next one tries again
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), runtime.ErrStopping) {
				return nil, fmt.Errorf("run %s goes on on Temporal: %w", runID, runtime.ErrStopping)
			}
			if !cancelled {
				cancelled = true
				if err := c.CancelWorkflow(context.Background(), runID, ""); err != nil {
					if isNotFound(err) {
						return nil, ErrLost
					}
					return nil, err
				}
			}
		}
	}
}

// waitResult waits for a workflow's result, through the spells its
// server cannot be reached (for at most unreachable at a time).
func waitResult(c client.Client, runID string, out *RunOutput) error {
	var down time.Time
	for {
		err := c.GetWorkflow(context.Background(), runID, "").Get(context.Background(), out)
		switch {
		case err == nil:
			return nil
		case isNotFound(err):
			return ErrLost
		case !isUnavailable(err):
			return err
		case down.IsZero():
			down = time.Now()
		case time.Since(down) > unreachable:
			return fmt.Errorf("the Temporal server was unreachable for %s: %w", unreachable, err)
		}
		time.Sleep(time.Second)
	}
}

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

func isUnavailable(err error) bool {
	var u *serviceerror.Unavailable
	var de *serviceerror.DeadlineExceeded
	return errors.As(err, &u) || errors.As(err, &de)
}

// A Runner runs flows on Temporal as runtime.Apply runs them in the
// process: apply --engine temporal and serve --engine temporal use it.
type Runner struct {
	Client    client.Client
	TaskQueue string
	// Encrypted: the client's data converter encrypts payloads, so
	// sensitive inputs may cross.
	Encrypted bool
}

// Apply starts a run of prog on Temporal with opts' RunID, Inputs,
// Namespace, NoCache, Targets and Timeout, hands its events to
// opts.Observe as they happen, and returns its result. With opts.Resume,
// the run recorded in opts.Store under opts.RunID starts again (it
// failed, was cancelled or was interrupted; resume.go). A run that cannot
// start has no RunID and its Diagnostics say why. Cancelling ctx cancels
// the run. A run whose workflow the server loses is recorded as
// interrupted, and so returned.
func (r Runner) Apply(ctx context.Context, prog *compiler.Program, opts runtime.Options) (*runtime.Result, error) {
	cannot := func(detail string) (*runtime.Result, error) {
		return &runtime.Result{Status: runtime.StatusFailed, Diagnostics: hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Cannot run on Temporal", Detail: detail,
		}}}, nil
	}
	switch {
	case opts.Resume && (opts.Store == nil || opts.RunID == ""):
		return cannot("a run starts again on Temporal from its record in the state")
	case opts.Parallelism > 0:
		return cannot("--parallelism is not supported on Temporal: the workers' limits apply")
	case opts.Resume && len(opts.KeepSucceeded) > 0:
		return cannot("--keep-succeeded resumes a run in this process, not on Temporal")
	}
	if opts.Resume {
		// The workers keep every instance that finished ok (resume.go),
		// whatever changed since: a change that reaches one is resumed
		// in the process, which runs the changed steps again.
		run, err := opts.Store.Run(opts.RunID)
		if err != nil {
			return nil, err
		}
		steps, err := opts.Store.Steps(opts.RunID)
		if err != nil {
			return nil, err
		}
		if changed := runtime.ResumeChanged(prog, run, steps); len(changed) > 0 {
			return cannot(fmt.Sprintf("run %s finished step %s, which the change since reaches, and a run started again on Temporal keeps what finished whatever changed; resume it in the process (flowctl apply --resume %s, without --engine temporal), which runs the changed steps again, or undo the change",
				run.ID, strings.Join(changed, ", "), run.ID))
		}
	}
	in, err := NewRunInput(prog, opts.Inputs, opts.RunID, opts.Namespace, r.Encrypted)
	if err != nil {
		return cannot(err.Error())
	}
	in.NoCache, in.Targets, in.Timeout, in.Resume = opts.NoCache, opts.Targets, opts.Timeout, opts.Resume
	if opts.Resume {
		fps, _ := json.Marshal(prog.StepFingerprints())
		if err := opts.Store.ContinueOnTemporal(in.RunID, fps); err != nil {
			if errors.Is(err, state.ErrNotResumable) {
				return cannot(fmt.Sprintf("run %s is running, or finished ok", in.RunID))
			}
			return nil, err
		}
	}
	if _, err := Start(ctx, r.Client, r.TaskQueue, in); err != nil {
		return nil, fmt.Errorf("starting the run on Temporal: %w", err)
	}
	var finished *runtime.RunFinished
	observe := func(e runtime.Event) {
		if rf, ok := e.(runtime.RunFinished); ok {
			finished = &rf
		}
		if opts.Observe != nil {
			opts.Observe(e)
		}
	}
	out, err := Follow(ctx, r.Client, in.RunID, observe)
	if errors.Is(err, ErrLost) {
		return lost(opts.Store, in.RunID, LostCause, observe)
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case "flowctl.unknown_flow", "flowctl.other_source":
			return cannot(ae.Message() + ".") // refused: nothing ran
		}
		// The workflow failed, not the run: it could not record its
		// end, or its inputs; the run is left to be resumed.
		return lost(opts.Store, in.RunID, "its workflow failed: "+ae.Message(), observe)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s on Temporal: %w", in.RunID, err)
	}
	res := &runtime.Result{RunID: in.RunID, Status: runtime.Status(out.Status)}
	if finished != nil {
		res.Outputs, res.FailedOutputs = finished.Outputs, finished.FailedOutputs
		res.Diagnostics, res.Usage = finished.Diagnostics, finished.Usage
	}
	return res, nil
}

// lost ends a run that Temporal will not finish, for cause: recorded as
// interrupted (when it is in st, running or waiting), with a
// run_finished that says so.
func lost(st *state.Store, runID, cause string, observe func(runtime.Event)) (*runtime.Result, error) {
	if st != nil {
		if _, err := st.InterruptTemporal(runID, cause); err != nil {
			return nil, err
		}
	}
	diags := hcl.Diagnostics{LostDiagnostic(runID, cause)}
	observe(runtime.RunFinished{Time: time.Now(), RunID: runID, Status: StatusInterrupted, Error: cause, Diagnostics: diags})
	return &runtime.Result{RunID: runID, Status: StatusInterrupted, Diagnostics: diags}, nil
}

// LostDiagnostic says that a run Temporal will not finish, for cause, is
// interrupted, and how to go on with it.
func LostDiagnostic(runID, cause string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Run interrupted",
		Detail: fmt.Sprintf("Run %s will not finish on Temporal: %s. It is recorded as interrupted; the steps it recorded are kept. Resume it in this process with flowctl apply --resume %s, or start it again on Temporal with flowctl apply --engine temporal --resume %s.",
			runID, strings.TrimSuffix(cause, "."), runID, runID)}
}

// Reconcile checks a run that the state says is running or waiting on
// Temporal against its workflow: when the server has no record of it
// (LostCause), or the workflow ended without recording the run's end
// (terminated, timed out), the run is recorded as interrupted. It returns
// the run as recorded then; runs of other engines, and finished ones, are
// returned as they are.
func Reconcile(ctx context.Context, c client.Client, st *state.Store, run *state.Run) (*state.Run, error) {
	if run.Origin != Origin || run.Status != "running" && run.Status != string(runtime.StatusWaiting) {
		return run, nil
	}
	var cause string
	desc, err := c.DescribeWorkflowExecution(ctx, run.ID, "")
	switch {
	case isNotFound(err):
		cause = LostCause
	case err != nil:
		return nil, fmt.Errorf("asking Temporal about run %s: %w", run.ID, err)
	default:
		status := desc.GetWorkflowExecutionInfo().GetStatus()
		if status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return run, nil
		}
		cause = fmt.Sprintf("its workflow on Temporal ended (%s) without recording the run's end", words(status.String()))
	}
	if _, err := st.InterruptTemporal(run.ID, cause); err != nil {
		return nil, err
	}
	return st.Run(run.ID)
}

// Approve sends the decision of an approval step instance to a run.
func (r Runner) Approve(ctx context.Context, runID, step, instance string, approved bool, comment, by string) error {
	return Approve(ctx, r.Client, runID, ApprovalDecision{Step: step, Instance: instance, Approved: approved, Comment: comment, By: by})
}

// words spells an enum's name ("TimedOut") in words ("timed out").
func words(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Ready says whether the Temporal server answers: serve's /readyz asks
// (server.Checker).
func (r Runner) Ready(ctx context.Context) error {
	_, err := r.Client.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err
}
