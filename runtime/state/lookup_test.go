package state

import (
	"errors"
	"strings"
	"testing"
)

// Proposals and patterns are found by their ID, a prefix of it in any
// case, and patterns by name too; a prefix of several is an error that
// says how many.
func TestLookUpByIDOrPrefix(t *testing.T) {
	s := openStore(t)
	var ids []string
	for _, id := range []string{"abcd1111", "abcd2222"} {
		p := &Proposal{ID: id, Flow: "notes", FlowFile: "notes.flow.hcl", Diff: "-\n"}
		if err := s.CreateProposal(p); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	if got, err := s.Proposal("ABCD1"); err != nil || got.ID != ids[0] {
		t.Errorf("Proposal(ABCD1) = %v, %v; want %s", got, err, ids[0])
	}
	_, err := s.Proposal("ABCD")
	if !errors.Is(err, ErrProposalNotFound) || !strings.Contains(err.Error(), `"abcd" matches 2 proposals; type more of the ID`) {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	_, err = s.Proposal("zz")
	if !errors.Is(err, ErrProposalNotFound) || !strings.Contains(err.Error(), `no proposal ID is or starts with "zz"`) {
		t.Errorf("a short unknown ID: %v", err)
	}

	p := &Pattern{Intent: "count words", Flow: "words", FlowFile: "words.flow.hcl", Source: "flow \"words\" {}\n", Origin: PatternThink}
	if err := s.RecordPattern(p); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{p.ID, p.Name, strings.ToUpper(p.ID[:MinPrefix])} {
		if got, err := s.Pattern(key); err != nil || got.ID != p.ID {
			t.Errorf("Pattern(%q) = %v, %v; want %s", key, got, err, p.ID)
		}
	}
	_, err = s.Pattern("nothing")
	if !errors.Is(err, ErrPatternNotFound) || !strings.Contains(err.Error(), `no pattern is named "nothing" or has an ID that is or starts with it`) {
		t.Errorf("an unknown pattern: %v", err)
	}
}
