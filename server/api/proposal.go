package api

import (
	"encoding/json"

	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/state"
)

// A Proposal is a change staged by flowctl think --edit or explain (GET
// /v1/proposals/{id}, flowctl proposals show --json): its change step by
// step, and, whole, its files and unified diff. RunID, Diagnosis and
// Evidence are those of a fix of explain. Weakenings are the safeguards of
// the flow the change removes or loosens (thinker.Weakenings), which make
// accepting it take roles author and approve; null when they were not
// checked.
type Proposal struct {
	ID        string               `json:"id"`
	Flow      string               `json:"flow"`
	FlowFile  string               `json:"flow_file"`
	Intent    string               `json:"intent"`
	Status    string               `json:"status"`
	Created   string               `json:"created_at"`
	Decided   *string              `json:"decided_at"`
	Added     []string             `json:"added"`
	Changed   []string             `json:"changed"`
	Removed   []string             `json:"removed"`
	Files     []state.ProposalFile `json:"files,omitempty"`
	Diff      string               `json:"diff,omitempty"`
	RunID     string               `json:"run_id,omitempty"`
	Diagnosis string               `json:"diagnosis,omitempty"`
	Evidence  json.RawMessage      `json:"evidence,omitempty"`
	// Weakens is whether Weakenings has any.
	Weakens    bool              `json:"weakens"`
	Weakenings []state.Weakening `json:"weakenings"`
}

// NewProposal is a proposal's shape; whole adds its files and diff (a
// list leaves them out).
func NewProposal(p *state.Proposal, whole bool) Proposal {
	var c struct{ Added, Changed, Removed []string }
	json.Unmarshal(p.Summary, &c)
	j := Proposal{ID: p.ID, Flow: p.Flow, FlowFile: p.FlowFile, Intent: p.Intent, Status: p.Status,
		Created: event.JSONTime(p.Created), Added: nonNilStrings(c.Added), Changed: nonNilStrings(c.Changed), Removed: nonNilStrings(c.Removed),
		RunID: p.RunID, Diagnosis: p.Diagnosis, Evidence: p.Evidence, Weakens: len(p.Weakenings) > 0, Weakenings: p.Weakenings}
	if !p.Decided.IsZero() {
		d := event.JSONTime(p.Decided)
		j.Decided = &d
	}
	if whole {
		j.Files, j.Diff = p.Files, p.Diff
	}
	return j
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
