package temporal

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// DefaultAddress is the Temporal frontend's address when neither
// --address nor TEMPORAL_ADDRESS gives one, as Temporal's own tools do.
const DefaultAddress = "127.0.0.1:7233"

// Dial connects to a Temporal frontend (Address); namespace "" is
// TEMPORAL_NAMESPACE, else Temporal's "default". Credentials come from the
// environment, as Temporal's CLI reads them: TEMPORAL_API_KEY (an API key,
// over TLS), or TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (the files of a
// client certificate, mTLS).
// dc is the data converter (DataConverter); nil for the SDK's default.
func Dial(address, namespace string, dc converter.DataConverter) (client.Client, error) {
	opts, err := clientOptions(address, namespace, os.Getenv)
	if err != nil {
		return nil, err
	}
	opts.DataConverter = dc
	c, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s: %w", opts.HostPort, err)
	}
	return c, nil
}

// clientOptions are the options of Dial, with the environment getenv.
func clientOptions(address, namespace string, getenv func(string) string) (client.Options, error) {
	if namespace == "" {
		namespace = getenv("TEMPORAL_NAMESPACE")
	}
	opts := client.Options{HostPort: addressFrom(address, getenv), Namespace: namespace, Logger: quietLogger{}}
	cert, key := getenv("TEMPORAL_TLS_CERT"), getenv("TEMPORAL_TLS_KEY")
	switch {
	case getenv("TEMPORAL_API_KEY") != "":
		opts.Credentials = client.NewAPIKeyStaticCredentials(getenv("TEMPORAL_API_KEY"))
	case cert != "" || key != "":
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return opts, fmt.Errorf("reading the client certificate (TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY): %w", err)
		}
		opts.Credentials = client.NewMTLSCredentials(pair)
	}
	return opts, nil
}

// Address is the address given, else TEMPORAL_ADDRESS, else
// DefaultAddress.
func Address(given string) string { return addressFrom(given, os.Getenv) }

func addressFrom(given string, getenv func(string) string) string {
	switch {
	case given != "":
		return given
	case getenv("TEMPORAL_ADDRESS") != "":
		return getenv("TEMPORAL_ADDRESS")
	}
	return DefaultAddress
}

// NewRunInput is the workflow input of a run of prog with inputs (as
// compiler.Program.ResolveInputs gives them). Sensitive inputs are refused
// unless payloads are encrypted: they would be in the workflow's history.
func NewRunInput(prog *compiler.Program, inputs map[string]cty.Value, runID, namespace string, encrypted bool) (RunInput, error) {
	if runID == "" {
		runID = state.NewRunID()
	}
	if namespace == "" {
		namespace = state.DefaultNamespace
	}
	in := RunInput{RunID: runID, Flow: prog.Flow.Name, FlowFile: prog.Filename, SourceHash: prog.SourceHash, Namespace: namespace}
	in.Inputs = map[string]json.RawMessage{}
	for _, decl := range prog.Inputs {
		v, ok := inputs[decl.Name]
		if !ok {
			continue
		}
		if decl.Sensitive {
			v = v.Mark(lang.Sensitive)
		}
		// Declared sensitive, it is marked again where it is read.
		raw, _, err := encodeCrossing(v, encrypted, fmt.Sprintf("input %q is", decl.Name))
		if err != nil {
			return in, err
		}
		in.Inputs[decl.Name] = raw
	}
	return in, nil
}

// Start starts a run on Temporal: the workflow's ID is the run's.
func Start(ctx context.Context, c client.Client, taskQueue string, in RunInput) (client.WorkflowRun, error) {
	if taskQueue == "" {
		taskQueue = DefaultTaskQueue
	}
	return c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: in.RunID, TaskQueue: taskQueue}, WorkflowName, in)
}

// pollInterval is how often Follow asks a running workflow for its new
// events.
const pollInterval = 50 * time.Millisecond

// Follow hands the events of a run on Temporal to observe as they
// happen, until it ends, and returns its result. Cancelling ctx cancels
// the run (and still follows it to its end), unless its cause is
// runtime.ErrStopping: then Follow returns that, and the run goes on.
func Follow(ctx context.Context, c client.Client, runID string, observe func(runtime.Event)) (*RunOutput, error) {
	done := make(chan struct{})
	var out RunOutput
	var runErr error
	go func() {
		defer close(done)
		runErr = c.GetWorkflow(context.Background(), runID, "").Get(context.Background(), &out)
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
			if err := deliver(); err != nil {
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
					return nil, err
				}
			}
		}
	}
}

// Approve sends an approval decision to a run on Temporal.
func Approve(ctx context.Context, c client.Client, runID string, d ApprovalDecision) error {
	if err := c.SignalWorkflow(ctx, runID, "", ApprovalSignal, d); err != nil {
		return fmt.Errorf("signalling run %s on Temporal: %w", runID, err)
	}
	return nil
}

// quietLogger drops the SDK's log lines: flowctl reports what matters
// itself.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}

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
// Namespace, NoCache, Targets and Timeout, hands its events to opts.Observe as they
// happen, and returns its result. A run that cannot start has no RunID and
// its Diagnostics say why. Cancelling ctx cancels the run.
func (r Runner) Apply(ctx context.Context, prog *compiler.Program, opts runtime.Options) (*runtime.Result, error) {
	cannot := func(detail string) (*runtime.Result, error) {
		return &runtime.Result{Status: runtime.StatusFailed, Diagnostics: hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Cannot run on Temporal", Detail: detail,
		}}}, nil
	}
	switch {
	case opts.Resume:
		return cannot("a run on Temporal goes on by itself; it is not resumed")
	case opts.Parallelism > 0:
		return cannot("--parallelism is not supported on Temporal: the workers' limits apply")
	}
	in, err := NewRunInput(prog, opts.Inputs, opts.RunID, opts.Namespace, r.Encrypted)
	if err != nil {
		return cannot(err.Error())
	}
	in.NoCache, in.Targets, in.Timeout = opts.NoCache, opts.Targets, opts.Timeout
	if _, err := Start(ctx, r.Client, r.TaskQueue, in); err != nil {
		return nil, fmt.Errorf("starting the run on Temporal: %w", err)
	}
	var finished *runtime.RunFinished
	out, err := Follow(ctx, r.Client, in.RunID, func(e runtime.Event) {
		if rf, ok := e.(runtime.RunFinished); ok {
			finished = &rf
		}
		if opts.Observe != nil {
			opts.Observe(e)
		}
	})
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

// Approve sends the decision of an approval step instance to a run.
func (r Runner) Approve(ctx context.Context, runID, step, instance string, approved bool, comment, by string) error {
	return Approve(ctx, r.Client, runID, ApprovalDecision{Step: step, Instance: instance, Approved: approved, Comment: comment, By: by})
}
