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
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/thinker"
	"github.com/spf13/cobra"
)

func newExplainCommand(s streams) *cobra.Command {
	var f runFlags
	var a explainArgs
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
flowctl apply --resume RUN_ID then continues the run. --no-fix gives the
diagnosis only. Exit 0 when a diagnosis was given.

What the model wrote never runs with a secret, or reaches a host, that the
flow as it is on disk does not already use: the check gives a step only the
secrets the flow's step of that name is given, and http and scrape reach
only the hosts the flow's URLs or --http-allow name. A fix that would need
more is not run at all: it is staged marked not verified, with what it
needs, for you to review.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				a.runID = args[0]
			}
			tokens, err := maxTokens(cmd, a.maxTokens)
			if err != nil {
				return err
			}
			a.maxTokens = tokens
			return runExplain(s, &f, a)
		},
	}
	f.registerRun(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&a.jsonOut, "json", false, "print events as JSON lines")
	fl.BoolVar(&a.noFix, "no-fix", false, "give the diagnosis only")
	fl.StringVar(&a.model, "model", "", "the model to ask (default: "+llm.EnvModel+")")
	fl.IntVar(&a.maxTokens, "max-tokens", 0, maxTokensUsage)
	fl.IntVar(&a.maxCalls, "max-calls", 8, "the most model requests explain may send")
	return cmd
}

type explainArgs struct {
	runID, model        string
	jsonOut, noFix      bool
	maxTokens, maxCalls int
}

// maxTokensUsage is the help of --max-tokens.
const maxTokensUsage = "stop, writing nothing, before a model request would take the command past this many tokens (default: " + thinker.EnvMaxTokens + ", else no limit)"

// maxTokens is --max-tokens, else FLOWCTL_MAX_TOKENS, else 0 (no limit).
func maxTokens(cmd *cobra.Command, flag int) (int, error) {
	if cmd.Flags().Changed("max-tokens") {
		if flag < 1 {
			return 0, usagef("--max-tokens must be at least 1")
		}
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

func runExplain(s streams, f *runFlags, a explainArgs) error {
	sf := &stateFlags{dir: f.stateDir}
	st, _, err := sf.open(s)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := thinker.ExplainableRun(st, a.runID)
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
	l, secrets, _, err := f.start(s)
	if err != nil {
		return err
	}
	prog, err := l.compile(file)
	if err != nil {
		return err
	}
	hopts, err := httpOptions(f.httpAllow, f.httpConns, os.LookupEnv)
	if err != nil {
		return err
	}
	cfg, err := llm.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return usagef("%s", err)
	}
	modelName := a.model
	if modelName == "" {
		modelName = cfg.Model
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	view := views.NewExplain(s.out, a.jsonOut)
	res, err := thinker.ExplainRun(ctx, thinker.ExplainRunOptions{
		Store: st, Run: run, Prog: prog, Secrets: secrets, Registries: f.registries, GoEngine: f.goEngine, Timeout: f.timeout, HTTP: hopts,
		Executors: func() (*blocks.Executors, func(), error) { return f.runExecutors(s) },
		Model:     llm.NewExecutor(cfg), ModelName: modelName, NoFix: a.noFix, MaxCalls: a.maxCalls, MaxTokens: a.maxTokens, Observe: view.Event,
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
