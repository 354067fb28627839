package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
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
failed steps (and the steps after them) are run again in the sandbox on a
copy of the run, with its recorded results, as apply --resume would. A fix
that fails goes back to the model with the new error, up to 3 times. A
fix that passed is a proposal: flowctl proposals accept ID writes it, and
flowctl apply --resume RUN_ID then continues the run. --no-fix gives the
diagnosis only. Exit 0 when a diagnosis was given.`,
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

// explainable are the statuses of a run explain takes.
var explainable = []string{"failed", "cancelled", "interrupted"}

func runExplain(s streams, f *runFlags, a explainArgs) error {
	sf := &stateFlags{dir: f.stateDir}
	st, _, err := sf.open(s)
	if err != nil {
		return err
	}
	defer st.Close()
	run, err := explainRun(st, a.runID)
	if err != nil {
		return err
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
	steps, err := st.Steps(run.ID)
	if err != nil {
		return err
	}
	red := newRedactor(prog, secrets)
	ectx, err := explainContext(run, prog, steps, red)
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
	view := newExplainView(s, a.jsonOut)
	v := &verifier{s: s, f: f, st: st, run: run, prog: prog, secrets: secrets, red: red}
	defer v.close()
	res, err := thinker.Explain(ctx, thinker.ExplainOptions{
		Model: &redactingModel{llm.NewExecutor(cfg), red}, ModelName: modelName, Context: ectx, NoFix: a.noFix,
		Verify: v.verify, MaxCalls: a.maxCalls, MaxTokens: a.maxTokens, Observe: view.Event,
	})
	if err != nil {
		return view.Fail(err)
	}
	var id string
	if res.Fix != nil {
		if id, err = stageFix(st, run, file, res); err != nil {
			return err
		}
	}
	return view.Done(run, res, id)
}

// explainRun is the run to explain: the one named, else the newest failed
// top-level run.
func explainRun(st *state.Store, id string) (*state.Run, error) {
	if id == "" {
		runs, err := st.ListRuns(state.RunFilter{Status: "failed", TopLevel: true}, 1)
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			return nil, failf("No failed run", "The state has no failed run to explain; name one with flowctl explain RUN_ID.")
		}
		return runs[0], nil
	}
	run, err := st.Run(id)
	if err != nil {
		return nil, runLookupError(err)
	}
	ok := false
	for _, s := range explainable {
		ok = ok || run.Status == s
	}
	if !ok {
		return nil, failf("Nothing to explain", "Run %s is %s; explain takes a run that failed, was cancelled or was interrupted.", run.ID, run.Status)
	}
	return run, nil
}

// stageFix stages a verified fix as a proposal: its files by their paths
// from the state's project, each with the SHA-256 of what it has now.
func stageFix(st *state.Store, run *state.Run, flowFile string, res *thinker.ExplainResult) (string, error) {
	base, dir := proposalBase(st), filepath.Dir(flowFile)
	p := &state.Proposal{Flow: run.Flow, FlowFile: flowFile, Intent: "fix run " + run.ID + ": " + res.Fix.Summary,
		RunID: run.ID, Diagnosis: res.Diagnosis, Evidence: res.Verification.Evidence}
	var diff strings.Builder
	var change thinker.Change
	for _, fx := range res.Fix.Files {
		path := filepath.Join(dir, filepath.FromSlash(fx.Path))
		rel, err := relTo(base, path)
		if err != nil {
			return "", err
		}
		pf := state.ProposalFile{Path: rel, Content: fx.Content}
		old, err := os.ReadFile(path)
		switch {
		case err == nil:
			pf.BaseSHA256 = sha256Hex(old)
			change.Changed = append(change.Changed, "file "+fx.Path)
		case errors.Is(err, os.ErrNotExist):
			change.Added = append(change.Added, "file "+fx.Path)
		default:
			return "", err
		}
		diff.WriteString(thinker.UnifiedDiff(filepath.ToSlash(rel), old, []byte(fx.Content)))
		p.Files = append(p.Files, pf)
	}
	p.Diff = diff.String()
	summary, err := json.Marshal(change)
	if err != nil {
		return "", err
	}
	p.Summary = summary
	if err := st.CreateProposal(p); err != nil {
		return "", err
	}
	return p.ID, nil
}

// stepBlockFile is the file defining a step's block; "" for built-ins.
func stepBlockFile(s *compiler.Step) string {
	if s.Block == nil || s.Block.Def == nil {
		return ""
	}
	return s.Block.DeclRange().Filename
}
