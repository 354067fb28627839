package state

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// TestPatterns: a pattern is recorded once per flow file (recording it
// again replaces its source and starts its counts again, keeping its ID,
// name and intent when none is given), named after its flow (numbered
// when the name is taken), found by ID, prefix or name, counts its tests,
// uses and the runs of its flow since it was recorded, and is forgotten.
func TestPatterns(t *testing.T) {
	s := openStore(t)
	p := &Pattern{Intent: "count the words of notes.txt", Flow: "note_words", FlowFile: "note_words.flow.hcl",
		Source: "flow \"note_words\" {}\n", Origin: PatternThink,
		Blocks: []PatternBlock{{Name: "count_words", Path: "blocks/count_words.block.hcl", Source: "block \"count_words\" {}\n"}}}
	if err := s.RecordPattern(p); err != nil {
		t.Fatal(err)
	}
	if p.ID == "" || p.Name != "note_words" {
		t.Fatalf("recorded %+v", p)
	}
	if byPrefix, err := s.Pattern(p.ID[:6]); err != nil || byPrefix.ID != p.ID {
		t.Errorf("by prefix: %v %v", byPrefix, err)
	}
	other := &Pattern{Intent: "count words again", Flow: "note_words", FlowFile: "other/note_words.flow.hcl", Source: "x", Origin: PatternEdit}
	if err := s.RecordPattern(other); err != nil {
		t.Fatal(err)
	}
	if other.Name != "note_words_2" || other.ID == p.ID {
		t.Errorf("a second flow of the same name: %+v", other)
	}

	// Runs of the flow since: one ok, one failed, one of another flow.
	for i, r := range []*Run{{Flow: "note_words", Status: "ok"}, {Flow: "note_words", Status: "failed"}, {Flow: "other", Status: "failed"}} {
		r.StartedAt = time.Now().Add(time.Duration(i+1) * time.Second)
		if err := s.CreateRun(r); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRun(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, passed := range []bool{true, true, false} {
		if err := s.NotePatternTest("note_words.flow.hcl", passed); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.NotePatternUsed(p.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Pattern("note_words")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != p.ID || got.Intent != p.Intent || got.Source != p.Source || len(got.Blocks) != 1 || got.Blocks[0] != p.Blocks[0] ||
		got.TestPasses != 2 || got.TestFailures != 1 || got.Used != 1 || got.RunsOK != 1 || got.RunsFailed != 1 || got.Origin != PatternThink {
		t.Errorf("pattern: %+v", got)
	}

	// Recorded again: the same ID, name and intent; counts start again.
	again := &Pattern{Flow: "note_words", FlowFile: "note_words.flow.hcl", Source: "flow \"note_words\" { description = \"v2\" }\n",
		Origin: PatternExplain, Updated: time.Now().Add(time.Minute)}
	if err := s.RecordPattern(again); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Pattern(p.ID)
	if again.ID != p.ID || got.Name != "note_words" || got.Intent != p.Intent || got.Source != again.Source || got.Origin != PatternExplain ||
		got.TestPasses != 0 || got.RunsOK != 0 || got.RunsFailed != 0 || len(got.Blocks) != 0 {
		t.Errorf("recorded again: %+v", got)
	}
	all, err := s.Patterns()
	if err != nil || len(all) != 2 || all[0].ID != p.ID {
		t.Errorf("patterns: %v %v", all, err)
	}
	if err := s.ForgetPattern(p.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetPattern(p.ID); !errors.Is(err, ErrPatternNotFound) {
		t.Errorf("forgetting twice: %v", err)
	}
	if _, err := s.Pattern("note_words"); !errors.Is(err, ErrPatternNotFound) {
		t.Errorf("a forgotten pattern: %v", err)
	}
}

// TestProposalOfExplain: a proposal keeps the run it fixes, the
// diagnosis and the evidence.
func TestProposalOfExplain(t *testing.T) {
	s := openStore(t)
	p := &Proposal{Flow: "notes", FlowFile: "notes.flow.hcl", Intent: "fix", RunID: "run1", Diagnosis: "the block divides by zero",
		Evidence: json.RawMessage(`{"fixed":["count"]}`), Files: []ProposalFile{{Path: "notes.flow.hcl", Content: "x"}}}
	if err := s.CreateProposal(p); err != nil {
		t.Fatal(err)
	}
	got, err := s.Proposal(p.ID)
	if err != nil || got.RunID != "run1" || got.Diagnosis != p.Diagnosis || string(got.Evidence) != string(p.Evidence) {
		t.Errorf("proposal: %+v %v", got, err)
	}
}
