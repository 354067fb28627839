package cli

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker"
	"github.com/spf13/cobra"
)

func newProposalsCommand(s streams) *cobra.Command {
	var f stateFlags
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "proposals [list | show ID | accept ID | reject ID]",
		Short: "List, show, accept or reject the changes think --edit staged",
		Long: `Proposals manages the changes flowctl think --edit stages in the state next
to the flow: list them (newest first), show one (its change step by step and
its unified diff), accept one (write its files) or reject it. Accept refuses,
writing nothing, when a file it changes was changed since the proposal was
made. An ID may be a unique prefix.`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			sub, id, err := recordSubcommand("proposals", "proposal", args, "show", "accept", "reject")
			if err != nil {
				return err
			}
			st, _, err := f.open(s)
			if err != nil {
				return err
			}
			defer st.Close()
			view := newProposalsView(s, jsonOut)
			if sub == "list" {
				ps, err := st.Proposals()
				if err != nil {
					return err
				}
				return view.List(ps)
			}
			p, err := st.Proposal(id)
			if err != nil {
				if errors.Is(err, state.ErrProposalNotFound) {
					return failf("Unknown proposal", "%s", sentence(err.Error()))
				}
				return err
			}
			switch sub {
			case "accept":
				if err := acceptProposal(st, p); err != nil {
					return err
				}
			case "reject":
				if err := decideProposal(st, p, state.ProposalRejected); err != nil {
					return err
				}
			}
			return view.Show(p)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	return cmd
}

// stageProposal records what think --edit proposes in the state next to
// the flow: its files by their paths from the flow's directory, each with
// the SHA-256 of the content it had.
func stageProposal(st *state.Store, p *thinker.Proposal) (string, error) {
	base := thinker.ProposalBase(st)
	summary, err := json.Marshal(p.Change)
	if err != nil {
		return "", err
	}
	sp := &state.Proposal{Flow: p.Flow, FlowFile: p.FlowFile, Intent: p.Intent, Summary: summary, Diff: p.Diff}
	for _, f := range p.Files {
		rel, err := thinker.RelTo(base, f.Path)
		if err != nil {
			return "", err
		}
		pf := state.ProposalFile{Path: rel, Content: string(f.Content)}
		if f.Base != nil {
			pf.BaseSHA256 = thinker.SHA256Hex(f.Base)
		}
		sp.Files = append(sp.Files, pf)
	}
	if err := st.CreateProposal(sp); err != nil {
		return "", err
	}
	return sp.ID, nil
}

// acceptProposal writes a staged proposal's files (thinker.AcceptProposal):
// none when one has changed since the proposal was made.
func acceptProposal(st *state.Store, p *state.Proposal) error {
	return proposalError(thinker.AcceptProposal(st, p, nil))
}

func decideProposal(st *state.Store, p *state.Proposal, status string) error {
	return proposalError(thinker.DecideProposal(st, p, status))
}

// proposalError is the CLI's error of accepting or deciding a proposal.
func proposalError(err error) error {
	var drift *thinker.DriftError
	switch {
	case errors.As(err, &drift):
		return failf("Proposal out of date", "%s. Make the change again with flowctl think --edit, or reject the proposal.", drift)
	case errors.Is(err, state.ErrNotStaged):
		return failf("Proposal not staged", "%s", sentence(strings.TrimSuffix(err.Error(), ": "+state.ErrNotStaged.Error())))
	}
	return err
}
