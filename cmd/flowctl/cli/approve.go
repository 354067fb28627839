package cli

import (
	"bufio"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/flowctl/flowctl/runtime/terminal"
	"github.com/spf13/cobra"
)

// exitWaiting: a run stopped to wait for an approval (docs/design.md,
// "Commands").
const exitWaiting = 3

func newApproveCommand(s streams) *cobra.Command {
	var a arguments.Approve
	cmd := &cobra.Command{
		Use:   "approve RUN_ID STEP",
		Short: "Decide a waiting approval step, and continue its run",
		Long: `Approve records a decision of an approval step that a run waits for — an
approval, or a rejection with --reject — and continues the run in the
foreground (--set NAME=VALUE fills in the step's input fields), as apply does: the steps that finished keep their results, the
approval step gives the decision, and what depends on it runs. A rejection
fails the step with "rejected by BY: COMMENT".

The run's flow is its recorded flow file (or --flow); a change to a step
that finished is refused. When another process holds the run (flowctl
serve, or an apply still running other steps), the decision is recorded and
that process continues it.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			f, ef := &a.Run, &a.Engine
			reject, comment, by, instance, step := a.Reject, a.Comment, a.By, a.Instance, a.Step
			if by == "" {
				by = terminal.User()
			}
			sf := &arguments.State{Dir: f.State, Flow: a.Flow}
			st, _, err := openStateOf(s, sf)
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := st.Run(a.RunID)
			if err != nil {
				return runLookupError(err)
			}
			if _, err := runtime.Decide(st, run.ID, step, instance, !reject, comment, by, a.Sets); err != nil {
				return fromBelow(runtime.NotWaiting(st, run, step, instance, err, time.Now()))
			}
			verb := "Approved"
			if reject {
				verb = "Rejected"
			}
			fmt.Fprintf(s.err, "%s step %s of run %s.\n", verb, views.InstanceLabel(step, instance), run.ID)
			if run.Origin == temporal.Origin {
				return approveOnTemporal(cmd.Context(), ef, st, run, temporal.ApprovalDecision{
					Step: step, Instance: instance, Approved: !reject, Comment: comment, By: by,
				})
			}
			if run.Status != string(runtime.StatusWaiting) {
				fmt.Fprintf(s.err, "Run %s is %s; the process running it takes the decision.\n", run.ID, run.Status)
				return nil
			}
			return resumeRun(s, f, sf, st, run, a.JSON)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// runInForeground runs (or resumes) a flow as apply does: its events on
// the terminal or as JSON lines, Ctrl-C cancelling it, approval questions
// asked on a terminal. A run that stops waiting for decisions that were
// recorded meanwhile is resumed at once. It returns the command's end:
// nil when the run succeeded, exit 3 when it waits, else exit 1.
func runInForeground(s streams, l *flowLoader, prog *compiler.Program, opts runtime.Options, jsonOut, verbose bool) error {
	ctx, stop := interruptible()
	defer stop()
	go func() {
		// The first Ctrl-C cancels the run and keeps what finished;
		// after it, the default handling is back, so a second one
		// ends the process at once.
		<-ctx.Done()
		stop()
	}()
	interactive := !jsonOut && terminal.Is(s.in) && terminal.Is(s.out)
	var asker *terminal.Asker
	if interactive {
		asker = &terminal.Asker{In: bufio.NewReader(s.in), By: terminal.User()}
	}
	for {
		var view views.Apply
		if jsonOut {
			view = views.NewApplyJSON(s.out)
		} else {
			h := views.NewApplyHuman(s.out, colorTerminal(s.out), views.LabelWidth(prog), verbose)
			if asker != nil {
				asker.View = h
				opts.Ask = asker.Ask
			}
			view = h
		}
		opts.Observe = view.Event
		res, err := runtime.Apply(ctx, prog, opts)
		view.Close()
		if err := runStarted(s, l, res, err, jsonOut); err != nil {
			return err
		}
		switch res.Status {
		case runtime.StatusOK:
			return nil
		case runtime.StatusWaiting:
			if runtime.DecidedMeanwhile(opts.Store, res.RunID) && ctx.Err() == nil {
				opts.RunID, opts.Resume = res.RunID, true
				continue
			}
			if !jsonOut {
				views.WriteHowToDecide(s.err, res.RunID, res.Waiting)
			}
			return exitError{exitWaiting}
		}
		return exitError{exitFailure}
	}
}

// runStarted reports what an Apply that returned res and err left to say
// before its status: its error; for a run that could not start, its
// diagnostics as the command's failure; for one that started, its
// diagnostics on stderr (unless the output is JSON, which carries them).
func runStarted(s streams, l *flowLoader, res *runtime.Result, err error, jsonOut bool) error {
	switch {
	case err != nil:
		return err
	case res.RunID == "": // the run could not start
		return l.fail(res.Diagnostics)
	}
	if len(res.Diagnostics) > 0 && !jsonOut {
		views.WriteRunDiagnostics(s.err, colorTerminal(s.err), l.parser.Files(), res.Diagnostics)
	}
	return nil
}
