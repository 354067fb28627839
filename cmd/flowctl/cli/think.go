package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/terminal"
	"github.com/flowctl/flowctl/thinker"
	"github.com/spf13/cobra"
)

func newThinkCommand(s streams) *cobra.Command {
	var a arguments.Think
	cmd := &cobra.Command{
		Use:   `think "INTENT"`,
		Short: "Write a flow for an intent with a language model",
		Long: `Think asks a language model to turn an intent into a flow: it clarifies the
intent (on a terminal), decomposes it into blocks, finds the blocks the
registry has, writes and tests the ones it lacks (saved as
blocks/NAME.block.hcl next to the flow), and wires them into a flow that it
compiles, sending the compiler's diagnostics back to the model until the flow
validates. The flow (NAME.flow.hcl, or --out) is written only when it
validates; --force writes the last attempt anyway.

With --edit FLOW, think changes an existing flow instead: the model gets the
flow, plans only what is new, creates the blocks it lacks and wires a
complete new version, which is applied to the file in place (comments and
everything the change does not touch stay). The result is a proposal, staged
in the project's state and printed step by step (+ added, ~ changed,
- removed) with a unified diff; nothing is written until it is accepted: at
the prompt on a terminal, with --accept, or with flowctl proposals accept ID.

Think needs a model server: OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL
for any OpenAI-compatible server (Ollama, vLLM, …); FLOWCTL_MODEL or --model
names the model. See docs/thinker.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			budget, err := maxTokens(a.MaxTokens)
			if err != nil {
				return err
			}
			a.MaxTokens = budget
			return runThink(s, &a)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runThink(s streams, a *arguments.Think) error {
	cfg, err := llm.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return usagef("%s", err)
	}
	ex, release, err := executors(engine.Options{Sandbox: a.Sandbox, Warnings: s.err, Unconfined: a.Unconfined})
	if err != nil {
		return err
	}
	defer release()
	logFile, err := engine.OpenPromptLog(a.LogPrompts)
	if err != nil {
		return err
	}
	if logFile != nil {
		defer logFile.Close()
	}
	cfg.LogPrompts = writerOrNil(logFile)

	ctx, stop := interruptible()
	defer stop()

	view := views.NewThink(s.out, s.err, colorTerminal(s.err), a.JSON, a.Registries)
	modelName := a.Model
	if modelName == "" {
		modelName = cfg.Model
	}
	opts := thinker.Options{
		Intent: a.Intent, Model: llm.NewExecutor(cfg), ModelName: modelName,
		Out: a.Out, Registries: a.Registries, Executors: ex,
		NoClarify: a.NoClarify, Force: a.Force, MaxCalls: a.MaxCalls, MaxTokens: a.MaxTokens, Observe: view.Event,
		Runtime: a.Runtime, AllowPackages: a.AllowPackages,
	}
	dir := "."
	if a.Out != "" {
		dir = filepath.Dir(a.Out)
	}
	closeVectors := opts.UseEmbeddingsIn(cfg, project.State("", dir))
	defer closeVectors()
	onTerminal := terminal.Is(s.in) && terminal.Is(s.err)
	in := bufio.NewReader(s.in)
	if onTerminal {
		opts.Answer = terminal.Answer(in, s.err)
	}
	var st *state.Store
	if a.Edit != "" {
		path, diags := project.FlowPath(a.Edit)
		if diags.HasErrors() {
			return newFlowLoader(s, a.Registries).fail(diags)
		}
		if st, err = openStateDir(project.State("", project.Base(path, "."))); err != nil {
			return err
		}
		defer st.Close()
		opts.Edit = path
		opts.Stage = func(p *thinker.Proposal) (string, error) { return thinker.StageProposal(st, p, a.Registries) }
	}

	var patterns *state.Store // the state of the flow's project, for its patterns
	if a.Edit == "" {
		if patterns = opts.UsePatternsIn(project.State("", dir)); patterns != nil {
			defer patterns.Close()
		}
	}

	res, err := thinker.Think(ctx, opts)
	view.Close()
	if err == nil && res.File != "" && res.Valid {
		if err := thinker.RememberFlow(patterns, project.State("", dir), res, a.Intent, a.Registries); err != nil {
			fmt.Fprintf(s.err, "Warning: the flow was not recorded as a pattern: %s\n", err)
		}
	}
	if err == nil {
		if res.Proposal != nil {
			return settleProposal(ctx, s, in, st, res.Proposal.ID, a.Accept, onTerminal && !a.JSON)
		}
		return nil
	}
	if !a.JSON && res != nil && res.File == "" && len(res.Diagnostics) > 0 {
		views.WriteStillWrong(s.err, colorTerminal(s.err), res.Files, res.Diagnostics)
	}
	// The events have reported the failure (with --json, as an error
	// event); the message goes to standard error in both modes.
	fmt.Fprintf(s.err, "Error: %s\n", err)
	return exitError{exitFailure}
}

// settleProposal accepts the proposal think --edit staged when asked to
// (--accept, or yes at the prompt on a terminal), and otherwise says how
// to accept or reject it later. A proposal that weakens the flow is
// written only with 'yes' at the prompt: --accept leaves it staged, for
// flowctl proposals accept to confirm.
func settleProposal(ctx context.Context, s streams, in *bufio.Reader, st *state.Store, id string, accept, ask bool) error {
	p, err := st.Proposal(id)
	if err != nil {
		return err
	}
	weakens := len(p.Weakenings) > 0
	if weakens {
		views.WriteWeakenings(s.err, p.Weakenings, colorTerminal(s.err))
	}
	switch {
	case weakens && ask:
		answer, err := terminal.Line(ctx, in, s.err, "\nAccept it all the same? Only 'yes' will be accepted: ")
		if err != nil && err != io.EOF {
			return err
		}
		accept = answer == "yes"
	case weakens && accept:
		fmt.Fprintf(s.err, "Staged as proposal %s, not written: it weakens the flow, so --accept does not write it. flowctl proposals accept %s asks for confirmation (--auto-approve gives it).\n", id, id)
		return exitError{exitFailure}
	case !accept && ask:
		answer, err := terminal.Line(ctx, in, s.err, "\nAccept? [y/N] ")
		if err != nil && err != io.EOF {
			return err
		}
		accept = strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
	}
	if !accept {
		fmt.Fprintf(s.err, "Staged as proposal %s: flowctl proposals accept %s writes it; flowctl proposals reject %s drops it.\n", id, id, id)
		return nil
	}
	if err := acceptProposal(st, p); err != nil {
		return err
	}
	fmt.Fprintf(s.err, "Accepted proposal %s: wrote %s.\n", id, strings.Join(p.Paths(), ", "))
	return nil
}
