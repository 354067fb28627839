package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// Engines (docs/scale-out.md).
const (
	engineLocal    = "local"
	engineTemporal = "temporal"
	envEngine      = "FLOWCTL_ENGINE"
)

// engineFlags choose where runs run: --engine, and Temporal's address,
// namespace and task queue.
type engineFlags struct {
	engine, address, namespace, taskQueue string
}

// The flag of the Temporal namespace, the same on every command
// (--namespace is the memory namespace of a run).
const temporalNamespaceFlag = "temporal-namespace"

// register adds the flags.
func (e *engineFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&e.engine, "engine", "", "where runs run: local (this process) or temporal (default: "+envEngine+", else local)")
	e.registerTemporal(cmd, "with --engine temporal")
	cmd.Flags().StringVar(&e.taskQueue, "task-queue", temporal.DefaultTaskQueue, "with --engine temporal: the task queue of the workers")
}

// registerTemporal adds the flags that say where Temporal is: --address
// and --temporal-namespace; when tells when they matter.
func (e *engineFlags) registerTemporal(cmd *cobra.Command, when string) {
	cmd.Flags().StringVar(&e.address, "address", "", when+": the Temporal frontend's HOST:PORT (default: TEMPORAL_ADDRESS, else "+temporal.DefaultAddress+")")
	cmd.Flags().StringVar(&e.namespace, temporalNamespaceFlag, "", when+": the Temporal namespace (default: TEMPORAL_NAMESPACE, else default)")
}

// resolve checks --engine, from FLOWCTL_ENGINE when not given.
func (e *engineFlags) resolve() (string, error) {
	if e.engine == "" {
		e.engine = os.Getenv(envEngine)
	}
	switch e.engine {
	case "", engineLocal:
		e.engine = engineLocal
	case engineTemporal:
	default:
		return "", usagef("unknown engine %q: use local or temporal", e.engine)
	}
	return e.engine, nil
}

// dial connects to Temporal with the data converter of workers and
// clients: large payloads kept in st, all encrypted with the key of
// FLOWCTL_TEMPORAL_KEY when set (encrypted says so). logger, when not
// nil, receives the SDK's warnings and errors.
func (e *engineFlags) dial(st *state.Store, logger *slog.Logger) (c client.Client, encrypted bool, err error) {
	key, err := temporal.Key(os.Getenv(temporal.EnvKey))
	if err != nil {
		return nil, false, usagef("%s", err)
	}
	dc, err := temporal.DataConverter(st, key)
	if err != nil {
		return nil, false, err
	}
	o := temporal.DialOptions{Address: e.address, Namespace: e.namespace, DataConverter: dc}
	if logger != nil {
		o.Logger = minLevel(logger, slog.LevelWarn)
	}
	c, err = temporal.Dial(o)
	if err != nil {
		return nil, false, e.connectError(err)
	}
	return c, key != nil, nil
}

// connectError says, in a diagnostic, that no Temporal server answers
// where the flags and the environment say it is, and what to do.
func (e *engineFlags) connectError(err error) error {
	var ce *temporal.ConnectError
	if !errors.As(err, &ce) {
		return err
	}
	from := "given with --address"
	switch {
	case e.address != "":
	case os.Getenv("TEMPORAL_ADDRESS") != "":
		from = "from TEMPORAL_ADDRESS"
	default:
		from = "the default: neither --address nor TEMPORAL_ADDRESS is set"
	}
	return failf("Cannot connect to Temporal",
		"No Temporal server answers at %s (%s): %s. Start one (temporal server start-dev, see docs/scale-out.md), or give its address with --address or TEMPORAL_ADDRESS.",
		ce.Address, from, trimStop(ce.Err.Error()))
}

// applyOnTemporal runs a flow on Temporal (or starts a recorded run
// again there, opts.Resume), printing what a local run prints: a run
// that waits for approvals says how to decide them, and goes on when
// they are decided.
func applyOnTemporal(s streams, l *flowLoader, ef *engineFlags, st *state.Store, prog *compiler.Program, opts runtime.Options, jsonOut, verbose bool) error {
	c, encrypted, err := ef.dial(st, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, stop := interruptible()
	defer stop()
	var view views.Apply
	newView := func() {
		if jsonOut {
			view = views.NewApplyJSON(s.out)
			return
		}
		view = views.NewApplyHuman(s.out, colorTerminal(s.out), views.LabelWidth(prog), verbose)
	}
	newView()
	opts.Observe = func(e runtime.Event) {
		switch e := e.(type) {
		case runtime.RunStarted:
			if e.Resumed { // after it waited: as a local run resumed
				view.Close()
				newView()
			}
		case runtime.RunWaiting:
			view.Event(e)
			if !jsonOut {
				views.WriteHowToDecide(s.err, e.RunID, e.Waiting)
				if ef.address != "" || ef.namespace != "" {
					fmt.Fprintf(s.err, "  (with the same --address %s --%s %s)\n", temporal.Address(ef.address), temporalNamespaceFlag, temporal.Namespace(ef.namespace))
				}
				fmt.Fprintln(s.err, "The run waits on Temporal; this command follows it until it ends (Ctrl-C cancels it).")
			}
			return
		}
		view.Event(e)
	}
	res, err := temporal.Runner{Client: c, TaskQueue: ef.taskQueue, Encrypted: encrypted}.Apply(ctx, prog, opts)
	view.Close()
	if err := runStarted(s, l, res, err, jsonOut); err != nil {
		return err
	}
	if res.Status != runtime.StatusOK {
		return exitError{exitFailure}
	}
	return nil
}

// reconcileTemporal checks a run of the temporal engine that the state
// says is running or waiting against Temporal (temporal.Reconcile): one
// Temporal will not finish is recorded as interrupted, and returned so;
// one that goes on there cannot be resumed.
func reconcileTemporal(s streams, ef *engineFlags, st *state.Store, run *state.Run) (*state.Run, error) {
	if run.Origin != temporal.Origin || run.Status != "running" && run.Status != string(runtime.StatusWaiting) {
		return run, nil
	}
	c, _, err := ef.dial(st, nil)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	run, err = temporal.Reconcile(context.Background(), c, st, run)
	if err != nil {
		return nil, err
	}
	switch run.Status {
	case state.StatusInterrupted:
		fmt.Fprintf(s.err, "Run %s will not finish on Temporal: %s. It is recorded as interrupted.\n", run.ID, trimStop(run.Error))
	case "running":
		return nil, failf("Cannot resume", "Run %s is running on Temporal (at %s), which keeps it going; it is not resumed.", run.ID, temporal.Address(ef.address))
	case string(runtime.StatusWaiting):
		return nil, failf("Cannot resume", "Run %s waits on Temporal (at %s) for approvals, and goes on there when they are decided (flowctl approve); it is not resumed.", run.ID, temporal.Address(ef.address))
	}
	return run, nil
}

// resumeOnTemporal starts a recorded run again on Temporal (apply
// --engine temporal --resume): the steps that finished ok keep their
// results.
func resumeOnTemporal(s streams, f *runFlags, ef *engineFlags, sf *stateFlags, st *state.Store, run *state.Run, jsonOut bool) error {
	if len(f.keepSucceeded) > 0 {
		return usagef("--keep-succeeded resumes a run in this process: leave out --engine temporal")
	}
	l, _, prog, inputs, err := prepareResume(s, f, sf, st, run)
	if err != nil {
		return err
	}
	opts := runtime.Options{
		Inputs: inputs, Parallelism: f.parallelism, Namespace: run.Namespace, NoCache: f.noCache, Store: st,
		Timeout: f.timeout, Targets: f.targets, RunID: run.ID, Resume: true,
	}
	return applyOnTemporal(s, l, ef, st, prog, opts, jsonOut, f.verbose)
}

// approveOnTemporal sends a decision, recorded already, to the workflow
// of a run on Temporal, which waits for it as a signal. When Temporal
// will not finish the run (its server lost it), the run is recorded as
// interrupted: it takes the decision when it is resumed.
func approveOnTemporal(ctx context.Context, ef *engineFlags, st *state.Store, run *state.Run, d temporal.ApprovalDecision) error {
	c, _, err := ef.dial(st, nil)
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
		return failDiags(nil, hcl.Diagnostics{diag})
	}
	return err
}

// minLevel passes on only the records of level min and above: the
// Temporal SDK, which logs its own workings, gets a logger that keeps its
// warnings and errors.
func minLevel(l *slog.Logger, min slog.Level) *slog.Logger {
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
