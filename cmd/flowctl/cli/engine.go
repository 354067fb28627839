package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
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

// register adds the flags; nsFlag names the Temporal namespace's flag
// (apply's --namespace is the memory namespace).
func (e *engineFlags) register(cmd *cobra.Command, nsFlag string) {
	cmd.Flags().StringVar(&e.engine, "engine", "", "where runs run: local (this process) or temporal (default: "+envEngine+", else local)")
	cmd.Flags().StringVar(&e.address, "address", "", "with --engine temporal: the Temporal frontend's HOST:PORT (default: TEMPORAL_ADDRESS, else "+temporal.DefaultAddress+")")
	cmd.Flags().StringVar(&e.namespace, nsFlag, "", "with --engine temporal: the Temporal namespace (default: TEMPORAL_NAMESPACE, else default)")
	cmd.Flags().StringVar(&e.taskQueue, "task-queue", temporal.DefaultTaskQueue, "with --engine temporal: the task queue of the workers")
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
// FLOWCTL_TEMPORAL_KEY when set (encrypted says so).
func (e *engineFlags) dial(st *state.Store) (c client.Client, encrypted bool, err error) {
	key, err := temporal.Key(os.Getenv(temporal.EnvKey))
	if err != nil {
		return nil, false, usagef("%s", err)
	}
	dc, err := temporal.DataConverter(st, key)
	if err != nil {
		return nil, false, err
	}
	c, err = temporal.Dial(e.address, e.namespace, dc)
	return c, key != nil, err
}

func newWorkerCommand(s streams) *cobra.Command {
	var ef engineFlags
	var f runFlags
	cmd := &cobra.Command{
		Use:   "worker --engine temporal [DIR]",
		Short: "Run the flows under DIR for Temporal",
		Long: `Worker runs a Temporal worker for the flows under DIR (default: the current
directory): it polls the task queue for runs that apply --engine temporal (or
serve) started, interprets each flow in the flowctl.run workflow and runs its
steps as activities. A run names its flow and the flow's source hash; a worker
whose flow differs refuses the run. Runs are recorded in the state directory of
each flow (.flowctl next to it, or --state), where runs and output read them.
Secrets are read from the worker's environment. Ctrl-C stops the worker; the
runs it had go on on other workers.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			engine, err := ef.resolve()
			if err != nil {
				return err
			}
			if engine != engineTemporal {
				return usagef("worker needs --engine temporal (or %s=temporal): the local engine runs flows in apply itself", envEngine)
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			l, secrets, _, err := f.start(s)
			if err != nil {
				return err
			}
			progs, err := compileAll(l, dir)
			if err != nil {
				return err
			}
			ex, closeEx, err := f.runExecutors(s)
			if err != nil {
				return err
			}
			defer closeEx()
			stores := map[string]*state.Store{}
			defer func() {
				for _, st := range stores {
					st.Close()
				}
			}()
			// The worker's flows are DIR's project, as serve's.
			if d := stateIn(f.stateDir, dir); len(progs) > 0 {
				if stores[d], err = openStateDir(d); err != nil {
					return err
				}
			}
			// Large payloads go to the state of DIR's flows when they share
			// one (a database, or DIR/.flowctl), where clients look.
			payloads := stores[stateIn(f.stateDir, dir)]
			if len(stores) == 1 {
				for _, st := range stores {
					payloads = st
				}
			}
			c, encrypted, err := ef.dial(payloads)
			if err != nil {
				return err
			}
			defer c.Close()
			eng, err := temporal.NewEngine(progs, temporal.Options{
				Executors: ex, Secrets: secrets, Encrypted: encrypted,
				StoreFor: func(p *compiler.Program) *state.Store { return stores[stateIn(f.stateDir, dir)] },
			})
			if err != nil {
				return usagef("%s", err)
			}
			w := worker.New(c, ef.taskQueue, temporal.WorkerOptions())
			eng.Register(w)
			if err := w.Start(); err != nil {
				return fmt.Errorf("starting the worker: %w", err)
			}
			defer w.Stop()
			fmt.Fprintf(s.err, "Worker for %d flow(s) on task queue %q at %s.\n", len(progs), ef.taskQueue, temporal.Address(ef.address))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			<-ctx.Done()
			return nil
		},
	}
	ef.register(cmd, "namespace")
	cmd.Flags().StringArrayVar(&f.registries, "registry", nil, "a directory of *.block.hcl files to add to the registry (repeatable)")
	cmd.Flags().StringVar(&f.stateDir, "state", "", "the state directory (default: .flowctl next to each flow file)")
	cmd.Flags().StringArrayVar(&f.secrets, "secret", nil, "set a secret: NAME=VALUE (repeatable; default: from its environment variable)")
	cmd.Flags().StringVar(&f.sandbox, "sandbox", sandboxIsolated, "where go and js blocks run: isolated or inprocess")
	cmd.Flags().StringVar(&f.goEngine, "go-engine", "", goEngineUsage)
	cmd.Flags().BoolVar(&f.unconfined, "unconfined", false, unconfinedUsage)
	cmd.Flags().StringArrayVar(&f.httpAllow, "http-allow", nil, "where http and scrape steps may connect (as apply's --http-allow)")
	return cmd
}

// compileAll compiles every flow under dir.
func compileAll(l *flowLoader, dir string) ([]*compiler.Program, error) {
	flows, _, diags := findFlowsAndBlockFiles([]string{dir}, false)
	if err := l.check(diags); err != nil {
		return nil, err
	}
	var progs []*compiler.Program
	for _, path := range flows {
		prog, diags := compiler.Compile(path, compiler.Options{Parser: l.parser, RegistryDirs: l.registries, GoEngine: l.goEngine})
		if err := l.check(diags); err != nil {
			return nil, err
		}
		progs = append(progs, prog)
	}
	if len(progs) == 0 {
		abs, _ := filepath.Abs(dir)
		return nil, l.fail(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No flows", Detail: "No flow files were found under " + abs + "."}})
	}
	return progs, nil
}

// applyOnTemporal runs a flow on Temporal, printing what a local run
// prints.
func applyOnTemporal(s streams, l *flowLoader, ef *engineFlags, st *state.Store, prog *compiler.Program, opts runtime.Options, jsonOut, verbose bool) error {
	c, encrypted, err := ef.dial(st)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var view applyView
	if jsonOut {
		view = newApplyJSON(s.out)
	} else {
		h := newApplyHuman(s.out)
		h.labels, h.verbose = labelWidth(prog), verbose
		view = h
	}
	opts.Observe = view.Event
	res, err := temporal.Runner{Client: c, TaskQueue: ef.taskQueue, Encrypted: encrypted}.Apply(ctx, prog, opts)
	view.Close()
	switch {
	case err != nil:
		return err
	case res.RunID == "": // the run could not start
		return l.fail(res.Diagnostics)
	}
	if len(res.Diagnostics) > 0 && !jsonOut {
		writeRunDiagnostics(s.err, l.parser.Files(), res.Diagnostics)
	}
	if res.Status != runtime.StatusOK {
		return exitError{exitFailure}
	}
	return nil
}
