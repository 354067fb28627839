package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/watch"
	"github.com/spf13/cobra"
)

func newWatchCommand(s streams) *cobra.Command {
	var a arguments.Watch
	cmd := &cobra.Command{
		Use:   "watch [FLOW]",
		Short: "Apply a flow on every save, re-running only what changed",
		Long: `Watch compiles and applies a flow (FLOW, a flow file or a directory holding
one; the current directory by default), then does it again each time the flow
file, its block files, its source files or a file it reads is saved. Every step
is cacheable during a watch session (http and llm included), so only the steps
whose inputs or definitions changed run again; --no-cache turns that off. When
the flow does not compile, watch shows the diagnostics, keeps the last good
result and waits for the next save. Ctrl-C stops it; running steps are
cancelled and what finished is kept.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			f, jsonOut := &a.Run, a.JSON
			l, secrets, given, err := startRun(s, f)
			if err != nil {
				return err
			}
			path, diags := project.FlowPath(a.Path)
			if err := l.check(diags); err != nil {
				return err
			}
			dir := project.State(f.State, project.Base(path, "."))
			if f.State == "" {
				warnOldState(s.err, path, dir)
			}
			ex, closeLog, err := runExecutors(s, f)
			if err != nil {
				return err
			}
			defer closeLog()
			st, err := openStore(s.err, &f.Store, dir)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, stop := interruptible()
			defer stop()
			view := views.NewWatch(s.out, s.err, colorTerminal(s.out), colorTerminal(s.err), jsonOut, f.Verbose, workDir())
			if a.Test {
				view = &watchTests{Watch: view, ctx: ctx, flow: path, f: f, ex: ex}
			}
			err = watch.Run(ctx, watch.Options{
				FlowFile: path, RegistryDirs: f.Registries, GoEngine: f.GoEngine, Inputs: given, Secrets: secrets,
				Namespace: f.Namespace, NoCache: f.NoCache, Parallelism: f.Parallelism, ResetCorruptMemory: f.ResetMemory,
				Targets: f.Targets, Timeout: f.Timeout,
				Store: st, Executors: ex, Debounce: a.Debounce, Observe: view.Event,
			})
			view.Close()
			return err
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}
