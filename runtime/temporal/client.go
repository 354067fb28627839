package temporal

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
)

// DefaultAddress is the Temporal frontend's address when neither
// --address nor TEMPORAL_ADDRESS gives one, as Temporal's own tools do.
const DefaultAddress = "127.0.0.1:7233"

// DialOptions say where Dial connects.
type DialOptions struct {
	// Address is the frontend's HOST:PORT: "" is TEMPORAL_ADDRESS, else
	// DefaultAddress.
	Address string
	// Namespace "" is TEMPORAL_NAMESPACE, else Temporal's "default".
	Namespace string
	// DataConverter encodes payloads (DataConverter); nil for the SDK's
	// default.
	DataConverter converter.DataConverter
	// Logger receives the SDK's log lines; nil drops them (flowctl
	// reports what matters itself).
	Logger *slog.Logger
}

// Dial connects to a Temporal frontend. Credentials come from the
// environment, as Temporal's CLI reads them: TEMPORAL_API_KEY (an API
// key, over TLS), or TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (the files of
// a client certificate, mTLS). When no frontend answers, the error is a
// *ConnectError.
func Dial(o DialOptions) (client.Client, error) {
	opts, err := clientOptions(o.Address, o.Namespace, os.Getenv)
	if err != nil {
		return nil, err
	}
	opts.DataConverter = o.DataConverter
	if o.Logger != nil {
		opts.Logger = tlog.NewStructuredLogger(o.Logger)
	}
	c, err := client.Dial(opts)
	if err != nil {
		return nil, connectError(opts.HostPort, err)
	}
	return c, nil
}

// A ConnectError says that no Temporal frontend answered at Address.
type ConnectError struct {
	Address string
	Err     error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("connecting to Temporal at %s: %v", e.Address, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// connectError is the error of a failed dial of address: when nothing
// accepts a connection there, the network's own error ("connection
// refused", "no such host"), which says more than the SDK's.
func connectError(address string, err error) error {
	conn, nerr := net.DialTimeout("tcp", address, 5*time.Second)
	if nerr != nil {
		return &ConnectError{Address: address, Err: nerr}
	}
	conn.Close()
	return &ConnectError{Address: address, Err: err}
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

// Namespace is the namespace given, else TEMPORAL_NAMESPACE, else
// Temporal's "default".
func Namespace(given string) string {
	switch {
	case given != "":
		return given
	case os.Getenv("TEMPORAL_NAMESPACE") != "":
		return os.Getenv("TEMPORAL_NAMESPACE")
	}
	return client.DefaultNamespace
}

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
