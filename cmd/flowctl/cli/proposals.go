package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/terminal"
	"github.com/flowctl/flowctl/thinker"
	"github.com/spf13/cobra"
)

func newProposalsCommand(s streams) *cobra.Command {
	var a arguments.Proposals
	cmd := &cobra.Command{
		Use:   "proposals [list | show ID | accept ID | reject ID]",
		Short: "List, show, accept or reject the changes think --edit staged",
		Long: `Proposals manages the changes flowctl think --edit and explain stage in the
project's state: list them (newest first), show one (its change step by step and
its unified diff), accept one (write its files) or reject it. Accept refuses,
writing nothing, when a file it changes was changed since the proposal was
made. An ID may be a unique prefix.

A proposal that weakens a safeguard of the flow — removes an approval step or
a step's wait for one, adds or changes a when that guards one, removes or
lengthens a timeout, connects to a host the flow did not, or uses a secret
where it was not — says so (in red on a terminal), and accept asks for
confirmation before it writes it: on a terminal it asks (only 'yes' accepts);
elsewhere, or with --json, it needs --auto-approve.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			sub, id, jsonOut := a.Sub, a.ID, a.JSON
			st, _, err := openStateOf(s, &a.State)
			if err != nil {
				return err
			}
			defer st.Close()
			view := views.NewProposals(s.out, colorTerminal(s.out), jsonOut)
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
				if err := confirmWeakenings(s, st, p, a.AutoApprove, !jsonOut && terminal.Is(s.in) && terminal.Is(s.out)); err != nil {
					return err
				}
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
	a.Flags(cmd.Flags())
	return cmd
}

// confirmWeakenings lets the acceptance of a proposal that weakens the
// flow go on only when it is confirmed: --auto-approve, or 'yes' when
// interactive (on a terminal, without --json). A proposal staged before
// its weakenings were recorded is checked now.
func confirmWeakenings(s streams, st *state.Store, p *state.Proposal, autoApprove, interactive bool) error {
	if p.Status != state.ProposalStaged || autoApprove {
		return nil // accepting says why not, or it is confirmed
	}
	ws := p.Weakenings
	if ws == nil {
		var err error
		if ws, err = thinker.ProposalWeakenings(st, p, nil); err != nil {
			return err
		}
	}
	if len(ws) == 0 {
		return nil
	}
	if !interactive {
		var lines []string
		for _, w := range ws {
			lines = append(lines, "- "+w.Flow+": "+w.Message)
		}
		return failf("Proposal weakens the flow", "Proposal %s weakens the flow:\n%s\nAccept it on a terminal, which asks for confirmation, or with --auto-approve.", p.ID, strings.Join(lines, "\n"))
	}
	views.WriteWeakenings(s.out, ws, colorTerminal(s.out))
	ctx, stop := interruptible()
	defer stop()
	line, err := terminal.Line(ctx, bufio.NewReader(s.in), s.out, "\nAccept it all the same? Only 'yes' will be accepted: ")
	if ctx.Err() != nil || err != nil || line != "yes" {
		fmt.Fprintln(s.err, "Accept cancelled: nothing was written.")
		return exitError{exitFailure}
	}
	return nil
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
