package cli

import (
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/watch"
	"github.com/spf13/cobra"
)

func newWatchCommand(s streams) *cobra.Command {
	var f runFlags
	var jsonOut, withTests bool
	var debounce time.Duration
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
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			args = flowArg(args)
			l, secrets, given, err := f.start(s)
			if err != nil {
				return err
			}
			path, diags := project.FlowPath(args[0])
			if err := l.check(diags); err != nil {
				return err
			}
			dir := project.State(f.stateDir, project.Base(path, "."))
			if f.stateDir == "" {
				warnOldState(s.err, path, dir)
			}
			ex, closeLog, err := f.runExecutors(s)
			if err != nil {
				return err
			}
			defer closeLog()
			st, err := f.store.open(s.err, dir)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, stop := interruptible()
			defer stop()
			view := views.NewWatch(s.out, s.err, colorTerminal(s.out), colorTerminal(s.err), jsonOut, f.verbose, workDir())
			if withTests {
				view = &watchTests{Watch: view, ctx: ctx, flow: path, f: &f, ex: ex}
			}
			err = watch.Run(ctx, watch.Options{
				FlowFile: path, RegistryDirs: f.registries, GoEngine: f.goEngine, Inputs: given, Secrets: secrets,
				Namespace: f.namespace, NoCache: f.noCache, Parallelism: f.parallelism, ResetCorruptMemory: f.resetMemory,
				Targets: f.targets, Timeout: f.timeout,
				Store: st, Executors: ex, Debounce: debounce, Observe: view.Event,
			})
			view.Close()
			return err
		},
	}
	f.registerRun(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print each cycle's events as JSON lines, between cycle_started and cycle_finished")
	cmd.Flags().DurationVar(&debounce, "debounce", watch.DefaultDebounce, "how long to wait for the writes of a save to settle")
	cmd.Flags().BoolVar(&withTests, "test", false, "after each successful apply, run the flow's tests (*.test.hcl in its directory)")
	return cmd
}
