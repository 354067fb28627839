package state

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestProposals(t *testing.T) {
	s := openStore(t)
	p := &Proposal{Flow: "notes", FlowFile: "notes.flow.hcl", Intent: "also count lines",
		Summary: json.RawMessage(`{"added":["step lines"]}`), Diff: "--- a\n+++ b\n",
		Files: []ProposalFile{{Path: "notes.flow.hcl", BaseSHA256: "abc", Content: "flow \"notes\" {}\n"}}}
	if err := s.CreateProposal(p); err != nil {
		t.Fatal(err)
	}
	got, err := s.Proposal(p.ID[:6])
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != p.ID || got.Status != ProposalStaged || got.Intent != p.Intent || len(got.Files) != 1 ||
		got.Files[0] != p.Files[0] || string(got.Summary) != string(p.Summary) || got.Diff != p.Diff || !got.Decided.IsZero() {
		t.Errorf("proposal: %+v", got)
	}
	if err := s.DecideProposal(p.ID, ProposalAccepted); err != nil {
		t.Fatal(err)
	}
	if err := s.DecideProposal(p.ID, ProposalRejected); !errors.Is(err, ErrNotStaged) {
		t.Errorf("deciding a decided proposal: %v", err)
	}
	if got, _ := s.Proposal(p.ID); got.Status != ProposalAccepted || got.Decided.IsZero() {
		t.Errorf("after accepting: %+v", got)
	}
	if _, err := s.Proposal("zzzzzz"); !errors.Is(err, ErrProposalNotFound) {
		t.Errorf("an unknown ID: %v", err)
	}
	all, err := s.Proposals()
	if err != nil || len(all) != 1 {
		t.Errorf("proposals: %v %v", all, err)
	}
}

// TestProposalWeakenings: what a proposal weakens is kept with it: none
// checked (nil), none found (empty) and some, each as it was.
func TestProposalWeakenings(t *testing.T) {
	s := openStore(t)
	w := Weakening{Kind: "approval", Flow: "pay.flow.hcl", Subject: `step "review"`, Message: `The approval step "review" is removed.`}
	for _, ws := range [][]Weakening{nil, {}, {w}} {
		p := &Proposal{Flow: "pay", FlowFile: "pay.flow.hcl", Weakenings: ws, Files: []ProposalFile{}}
		if err := s.CreateProposal(p); err != nil {
			t.Fatal(err)
		}
		got, err := s.Proposal(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if (got.Weakenings == nil) != (ws == nil) || len(got.Weakenings) != len(ws) || (len(ws) == 1 && got.Weakenings[0] != w) {
			t.Errorf("stored %#v, read %#v", ws, got.Weakenings)
		}
	}
}

// TestProposalPaths: a proposal's paths are those of its files, in order.
func TestProposalPaths(t *testing.T) {
	p := &Proposal{Files: []ProposalFile{{Path: "b.flow.hcl"}, {Path: "blocks/a.block.hcl"}}}
	if got := p.Paths(); len(got) != 2 || got[0] != "b.flow.hcl" || got[1] != "blocks/a.block.hcl" {
		t.Errorf("Paths: %v", got)
	}
}
