package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/thinker"
	"github.com/spf13/cobra"
)

func newExplainCommand(s streams) *cobra.Command {
	var a arguments.Explain
	cmd := &cobra.Command{
		Use:   "explain [RUN_ID] [--json] [--no-fix] [--model M] [--max-tokens N]",
		Short: "Say why a run failed and stage a fix that was checked to work",
		Long: `Explain tells why a failed (or cancelled or interrupted) run failed — by
default the newest failed run — and proposes a fix that is known to work.
The model gets the flow's source, the failing steps' errors, attempts,
arguments, logs and blocks' source, and the outputs that were computed:
secrets and sensitive values redacted, large values cut. A fix it proposes
is checked before it is staged: the changed files must compile, and the
failed steps, the steps the fix changes (all their instances, so that a
fix for one item of a for_each step is seen not to break the others) and
the steps after them are run again in the sandbox on a copy of the run,
with its recorded results, as apply --resume would; a changed step that
calls a model, the network, an MCP server or a person keeps its instances
that succeeded instead, and the proposal says so. A fix
that fails goes back to the model with the new error, up to 3 times. A
fix that passed is a proposal: flowctl proposals accept ID writes it, and
flowctl apply --resume RUN_ID --upgrade then continues the run. --no-fix gives the
diagnosis only. Exit 0 when a diagnosis was given.

What the model wrote never runs with a secret, or reaches a host, that the
flow as it is on disk does not already use: the check gives a step only the
secrets the flow's step of that name is given, and http and scrape reach
only the hosts the flow's URLs or --http-allow name. A fix that would need
more is not run at all: it is staged marked not verified, with what it
needs, for you to review.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			tokens, err := maxTokens(a.MaxTokens)
			if err != nil {
				return err
			}
			a.MaxTokens = tokens
			return runExplain(s, &a)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// maxTokens is --max-tokens (flag, 0 when not given), else
// FLOWCTL_MAX_TOKENS, else 0 (no limit).
func maxTokens(flag int) (int, error) {
	if flag > 0 {
		return flag, nil
	}
	v := strings.TrimSpace(os.Getenv(thinker.EnvMaxTokens))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, usagef("%s must be a whole number of at least 1, not %q", thinker.EnvMaxTokens, v)
	}
	return n, nil
}

func runExplain(s streams, a *arguments.Explain) error {
	f := &a.Run
	sf := &arguments.State{Dir: f.State}
	st, _, err := openStateOf(s, sf)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := thinker.ExplainableRun(st, a.RunID)
	switch {
	case errors.Is(err, thinker.ErrNoFailedRun):
		return failf("No failed run", "The state has no failed run to explain; name one with flowctl explain RUN_ID.")
	case errors.Is(err, thinker.ErrNotExplainable):
		return failf("Nothing to explain", "%s", sentence(err.Error()))
	case err != nil:
		return runLookupError(err)
	}
	file := run.FlowFile
	if _, err := os.Stat(file); err != nil {
		return failf("Flow not found", "Run %s ran the flow file %s, which is not found from here.", run.ID, file)
	}
	l, secrets, _, err := startRun(s, f)
	if err != nil {
		return err
	}
	prog, err := l.compile(file)
	if err != nil {
		return err
	}
	hopts, err := httpOptions(f.HTTPAllow, f.HTTPConns, os.LookupEnv)
	if err != nil {
		return err
	}
	cfg, err := llm.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return usagef("%s", err)
	}
	modelName := a.Model
	if modelName == "" {
		modelName = cfg.Model
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	view := views.NewExplain(s.out, a.JSON)
	res, err := thinker.ExplainRun(ctx, thinker.ExplainRunOptions{
		Store: st, Run: run, Prog: prog, Secrets: secrets, Registries: f.Registries, GoEngine: f.GoEngine, Timeout: f.Timeout, HTTP: hopts,
		Executors: func() (*blocks.Executors, func(), error) { return runExecutors(s, f) },
		Model:     llm.NewExecutor(cfg), ModelName: modelName, NoFix: a.NoFix, MaxCalls: a.MaxCalls, MaxTokens: a.MaxTokens, Observe: view.Event,
	})
	var te *thinker.Error
	switch {
	case errors.As(err, &te):
		return view.Fail(err)
	case err != nil:
		return err
	}
	return view.Done(run, res)
}
