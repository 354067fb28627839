package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/hashicorp/hcl/v2"
	"go.temporal.io/sdk/client"
)

// Engines (docs/scale-out.md).
const (
	Local    = "local"
	Temporal = "temporal"
	EnvName  = "FLOWCTL_ENGINE"
)

// Resolve checks the engine given (--engine), from FLOWCTL_ENGINE when
// not given: local when neither names one.
func Resolve(given string) (string, error) {
	if given == "" {
		given = os.Getenv(EnvName)
	}
	switch given {
	case "", Local:
		return Local, nil
	case Temporal:
		return Temporal, nil
	}
	return "", settingf("unknown engine %q: use local or temporal", given)
}

// OnTemporal says where Temporal is, and the task queue of its workers:
// the --address, --temporal-namespace and --task-queue of a command.
type OnTemporal struct {
	Address, Namespace, TaskQueue string
}

// Dial connects to Temporal with the data converter of workers and
// clients: large payloads kept in st, all encrypted with the key of
// FLOWCTL_TEMPORAL_KEY when set (encrypted says so). logger, when not
// nil, receives the SDK's warnings and errors. When no Temporal server
// answers, the error is hcl.Diagnostics that say what to do
// (ConnectDiagnostic).
func (t OnTemporal) Dial(st *state.Store, logger *slog.Logger) (c client.Client, encrypted bool, err error) {
	key, err := temporal.Key(os.Getenv(temporal.EnvKey))
	if err != nil {
		return nil, false, settingf("%s", err)
	}
	dc, err := temporal.DataConverter(st, key)
	if err != nil {
		return nil, false, err
	}
	o := temporal.DialOptions{Address: t.Address, Namespace: t.Namespace, DataConverter: dc}
	if logger != nil {
		o.Logger = MinLevel(logger, slog.LevelWarn)
	}
	c, err = temporal.Dial(o)
	if err != nil {
		var ce *temporal.ConnectError
		if errors.As(err, &ce) {
			return nil, false, hcl.Diagnostics{t.ConnectDiagnostic(ce)}
		}
		return nil, false, err
	}
	return c, key != nil, nil
}

// Runner dials Temporal (Dial) and returns the runner that starts runs
// on its workers' task queue (TaskQueue) and follows them: apply's and
// serve's. Close its Client when done.
func (t OnTemporal) Runner(st *state.Store) (temporal.Runner, error) {
	c, encrypted, err := t.Dial(st, nil)
	if err != nil {
		return temporal.Runner{}, err
	}
	return temporal.Runner{Client: c, TaskQueue: t.TaskQueue, Encrypted: encrypted}, nil
}

// ConnectDiagnostic says that no Temporal server answers where the flags
// and the environment say it is, and what to do.
func (t OnTemporal) ConnectDiagnostic(ce *temporal.ConnectError) *hcl.Diagnostic {
	from := "given with --address"
	switch {
	case t.Address != "":
	case os.Getenv("TEMPORAL_ADDRESS") != "":
		from = "from TEMPORAL_ADDRESS"
	default:
		from = "the default: neither --address nor TEMPORAL_ADDRESS is set"
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError, Summary: "Cannot connect to Temporal",
		Detail: fmt.Sprintf("No Temporal server answers at %s (%s): %s. Start one (temporal server start-dev, see docs/scale-out.md), or give its address with --address or TEMPORAL_ADDRESS.",
			ce.Address, from, trimStop(ce.Err.Error())),
	}
}

// Reconcile checks a run of the temporal engine that the state says is
// running or waiting against Temporal (temporal.Reconcile): one Temporal
// will not finish is recorded as interrupted, and returned so; one that
// goes on there cannot be resumed (an error of hcl.Diagnostics). A run of
// another engine or status is returned as it is.
func (t OnTemporal) Reconcile(ctx context.Context, st *state.Store, run *state.Run) (*state.Run, error) {
	if run.Origin != temporal.Origin || run.Status != "running" && run.Status != string(runtime.StatusWaiting) {
		return run, nil
	}
	c, _, err := t.Dial(st, nil)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	run, err = temporal.Reconcile(ctx, c, st, run)
	if err != nil {
		return nil, err
	}
	switch run.Status {
	case "running":
		return nil, cannotResume("Run %s is running on Temporal (at %s), which keeps it going; it is not resumed.", run.ID, temporal.Address(t.Address))
	case string(runtime.StatusWaiting):
		return nil, cannotResume("Run %s waits on Temporal (at %s) for approvals, and goes on there when they are decided (flowctl approve); it is not resumed.", run.ID, temporal.Address(t.Address))
	}
	return run, nil
}

func cannotResume(format string, args ...any) error {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot resume", Detail: fmt.Sprintf(format, args...)}}
}

// Approve sends a decision, recorded already, to the workflow of a run on
// Temporal, which waits for it as a signal. When Temporal will not finish
// the run (its server lost it), the run is recorded as interrupted: it
// takes the decision when it is resumed, and the error, hcl.Diagnostics,
// says so.
func (t OnTemporal) Approve(ctx context.Context, st *state.Store, run *state.Run, d temporal.ApprovalDecision) error {
	c, _, err := t.Dial(st, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	err = temporal.Approve(ctx, c, run.ID, d)
	if err == nil {
		return nil
	}
	if now, rerr := temporal.Reconcile(ctx, c, st, run); rerr == nil && now.Status == state.StatusInterrupted {
		diag := temporal.LostDiagnostic(run.ID, now.Error)
		diag.Detail += " The decision is recorded: the run takes it when it resumes."
		return hcl.Diagnostics{diag}
	}
	return err
}

func trimStop(s string) string { return strings.TrimRight(s, ".") }

// MinLevel passes on only the records of level min and above: the
// Temporal SDK, which logs its own workings, gets a logger that keeps its
// warnings and errors.
func MinLevel(l *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(levelHandler{l.Handler(), min})
}

type levelHandler struct {
	slog.Handler
	min slog.Level
}

func (h levelHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= h.min && h.Handler.Enabled(ctx, level)
}

func (h levelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return levelHandler{h.Handler.WithAttrs(attrs), h.min}
}

func (h levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{h.Handler.WithGroup(name), h.min}
}
