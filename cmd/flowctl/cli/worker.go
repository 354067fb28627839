package cli

import (
	"fmt"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/worker"
)

func newWorkerCommand(s streams) *cobra.Command {
	var a arguments.Worker
	cmd := &cobra.Command{
		Use:   "worker --engine temporal [DIR]",
		Short: "Run the flows under DIR for Temporal",
		Long: `Worker runs a Temporal worker for the flows under DIR (default: the current
directory): it polls the task queue for runs that apply --engine temporal (or
serve) started, interprets each flow in the flowctl.run workflow and runs its
steps as activities.

A run names its flow and the flow's source hash, and runs to its end with
that version. A run of a version the worker does not have (its file was
edited) makes the worker compile its flows again; it keeps the versions that
unfinished runs still need, and refuses, with a log line, a run whose version
it has not got (deploy the flow files to the workers first).

Runs are recorded in the state of DIR's project (its .flowctl, as serve's),
or in the one --state names: a directory, or a
postgres://USER:PASSWORD@HOST:PORT/DB URL, which every worker, server and
client can share (FLOWCTL_STATE_URL, or FLOWCTL_STATE, sets it for every
command). Secrets are read from the worker's environment. What
the worker does is logged on standard error (--log-format text or json).
Ctrl-C stops the worker; the runs it had go on on other workers.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			f, ef, dir := &a.Run, &a.Engine, a.Dir
			engine, err := resolveEngine(ef)
			if err != nil {
				return err
			}
			if engine != engineTemporal {
				return usagef("worker needs --engine temporal (or %s=temporal): the local engine runs flows in apply itself", envEngine)
			}
			logger, err := logFlags{a.Log.Format}.logger(s.err)
			if err != nil {
				return err
			}
			if a.DeprecatedNamespace {
				fmt.Fprintf(s.err, "Warning: worker --namespace is deprecated: use --%s, as apply and serve do (their --namespace is a run's memory namespace).\n", temporalNamespaceFlag)
			}
			l, secrets, _, err := startRun(s, f)
			if err != nil {
				return err
			}
			progs, err := compileAll(l, dir)
			if err != nil {
				return err
			}
			ex, closeEx, err := runExecutors(s, f)
			if err != nil {
				return err
			}
			defer closeEx()
			// The worker's flows are DIR's project, as serve's: their runs
			// and large payloads are in its state, where clients look.
			where := project.State(f.State, dir)
			st, err := openStore(s.err, &f.Store, where)
			if err != nil {
				return err
			}
			defer st.Close()
			c, encrypted, err := dialTemporal(ef, st, logger)
			if err != nil {
				return err
			}
			defer c.Close()
			eng, err := temporal.NewEngine(progs, temporal.Options{
				Executors: ex, Secrets: secrets, Encrypted: encrypted, Logger: logger, Store: st,
				Reload: func() ([]*compiler.Program, error) { return reloadFlows(l, dir) },
			})
			if err != nil {
				return usagef("%s", err)
			}
			w := worker.New(c, ef.TaskQueue, temporal.WorkerOptions())
			eng.Register(w)
			if err := w.Start(); err != nil {
				return fmt.Errorf("starting the worker: %w", err)
			}
			logger.Info("worker started", "flows", eng.Flows(), "dir", dir, "task_queue", ef.TaskQueue,
				"address", temporal.Address(ef.Address), "namespace", temporal.Namespace(ef.Namespace), "state", state.RedactURL(where))
			ctx, stop := interruptible()
			defer stop()
			<-ctx.Done()
			logger.Info("worker stopping: its runs go on on other workers, or on this one when it is started again")
			w.Stop()
			logger.Info("worker stopped")
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// reloadFlows compiles the flows under dir again, from their files (a
// parser of its own reads them anew).
func reloadFlows(l *flowLoader, dir string) ([]*compiler.Program, error) {
	progs, diags := project.CompileFlows(dir, compiler.Options{Parser: lang.NewParser(), RegistryDirs: l.registries, GoEngine: l.goEngine})
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s", runtime.DiagText(diags))
	}
	return progs, nil
}

// compileAll compiles every flow under dir (project.CompileFlows);
// errors end the command.
func compileAll(l *flowLoader, dir string) ([]*compiler.Program, error) {
	progs, diags := project.CompileFlows(dir, compiler.Options{Parser: l.parser, RegistryDirs: l.registries, GoEngine: l.goEngine})
	if diags.HasErrors() {
		return nil, l.fail(diags)
	}
	l.warn(diags)
	return progs, nil
}
