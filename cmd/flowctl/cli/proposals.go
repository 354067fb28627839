package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
			sub := "list"
			if len(args) > 0 {
				sub, args = args[0], args[1:]
			}
			switch {
			case sub == "list" && len(args) == 0:
			case sub == "list":
				return usagef("proposals list takes no ID")
			case (sub == "show" || sub == "accept" || sub == "reject") && len(args) == 1:
			case sub == "show" || sub == "accept" || sub == "reject":
				return usagef("proposals %s needs a proposal ID", sub)
			default:
				return usagef("unknown proposals subcommand %q: use list, show ID, accept ID or reject ID", sub)
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
			p, err := st.Proposal(args[0])
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
	base := proposalBase(st)
	summary, err := json.Marshal(p.Change)
	if err != nil {
		return "", err
	}
	sp := &state.Proposal{Flow: p.Flow, FlowFile: p.FlowFile, Intent: p.Intent, Summary: summary, Diff: p.Diff}
	for _, f := range p.Files {
		rel, err := relTo(base, f.Path)
		if err != nil {
			return "", err
		}
		pf := state.ProposalFile{Path: rel, Content: string(f.Content)}
		if f.Base != nil {
			pf.BaseSHA256 = sha256Hex(f.Base)
		}
		sp.Files = append(sp.Files, pf)
	}
	if err := st.CreateProposal(sp); err != nil {
		return "", err
	}
	return sp.ID, nil
}

// acceptProposal writes a staged proposal's files, each atomically, once
// every one still has the content the proposal was made from; when one
// has changed (drift), it writes nothing.
func acceptProposal(st *state.Store, p *state.Proposal) error {
	if p.Status != state.ProposalStaged {
		return failf("Proposal not staged", "Proposal %s was %s; only a staged proposal can be accepted.", p.ID, p.Status)
	}
	base := proposalBase(st)
	for _, f := range p.Files {
		path := filepath.Join(base, f.Path)
		now := ""
		switch b, err := os.ReadFile(path); {
		case err == nil:
			now = sha256Hex(b)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		if now != f.BaseSHA256 {
			what := "changed"
			switch {
			case f.BaseSHA256 == "":
				what = "was created"
			case now == "":
				what = "was removed"
			}
			return failf("Proposal out of date",
				"%s %s since proposal %s was made, so nothing was written. Make the change again with flowctl think --edit, or reject the proposal.",
				f.Path, what, p.ID)
		}
	}
	for _, f := range p.Files {
		if err := writeFileAtomic(filepath.Join(base, f.Path), []byte(f.Content)); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	if err := decideProposal(st, p, state.ProposalAccepted); err != nil {
		return err
	}
	// The accepted flow is a pattern (patterns.go).
	origin := state.PatternEdit
	if p.RunID != "" {
		origin = state.PatternExplain
	}
	if _, err := os.Stat(p.FlowFile); err == nil {
		recordPattern(st, p.FlowFile, p.Intent, origin, nil)
	}
	return nil
}

func decideProposal(st *state.Store, p *state.Proposal, status string) error {
	if err := st.DecideProposal(p.ID, status); err != nil {
		if errors.Is(err, state.ErrNotStaged) {
			return failf("Proposal not staged", "Proposal %s was %s already.", p.ID, p.Status)
		}
		return err
	}
	updated, err := st.Proposal(p.ID)
	if err != nil {
		return err
	}
	*p = *updated
	return nil
}

// proposalBase is the directory the paths of a state's proposals are
// relative to: the one that holds the state directory (the flow's).
func proposalBase(st *state.Store) string { return filepath.Dir(filepath.Dir(st.Path())) }

// relTo is path relative to base, both made absolute first.
func relTo(base, path string) (string, error) {
	ab, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.Rel(ab, ap)
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
