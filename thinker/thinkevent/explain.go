package thinkevent

import "encoding/json"

// A Fix is the change a model proposes: the full new text of each file.
type Fix struct {
	Summary string    `json:"summary"`
	Files   []FixFile `json:"files"`
}

// FixFile is a file of a fix, by its path from the flow's directory.
type FixFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Verification is how a fix fared: OK when it compiles and the steps that
// failed succeed with it; else Phase ("compile" or "run") and Problem,
// for the model. Evidence is what a proposal records: the steps that
// failed before and succeed now. A fix that compiles but would need a
// secret or a host the accepted flow does not use is not run (Phase
// "reach"): NotVerified says what it needs, and it is staged as it is,
// not verified, for a person to decide.
type Verification struct {
	OK          bool
	Phase       string
	Problem     string
	NotVerified []string
	Evidence    json.RawMessage
}

// ExplainResult is what thinker.Explain found.
type ExplainResult struct {
	Diagnosis string
	// Fix is the verified fix, or one that was not run since it needs
	// more than the accepted flow uses (Verification.NotVerified); nil
	// when none (thinker.ExplainOptions.NoFix, none proposed, or none
	// that passed; NoFixReason says which).
	Fix          *Fix
	Verification *Verification
	NoFixReason  string
	// Proposal is the ID of the proposal thinker.ExplainRun staged the
	// fix as.
	Proposal string
	Calls    Usage
}

// FixEvidence is what a proposal of explain records: the steps that failed
// in the run and how they ended with the fix, and what the check ran. A
// fix that was not run, since it needs a secret or a host the accepted
// flow does not use, is not Verified; NotVerified says what it needs.
//
// Ran are the step instances the check ran with the fix (RanCount of
// them): the failed ones, those of the steps the fix changes, and those
// after them. Rechecked are those of Ran that had succeeded in the run
// (they ran again since the fix changes their step, or a step before it):
// with a verified fix they succeed again. Kept are instances of steps
// the fix changes that succeeded in the run and kept what they recorded,
// not run with the fix, and KeptBecause says why for each such step (it
// calls a model or the network: thinker/fix_keep.go). Each list names
// at most a thousand instances; its count has them all.
type FixEvidence struct {
	Verified       bool              `json:"verified"`
	NotVerified    []string          `json:"not_verified,omitempty"`
	FailedBefore   []string          `json:"failed_before"`
	SucceededNow   []string          `json:"succeeded_now"`
	StillFailing   []string          `json:"still_failing,omitempty"`
	Ran            []string          `json:"ran"`
	RanCount       int               `json:"ran_count"`
	Rechecked      []string          `json:"rechecked,omitempty"`
	RecheckedCount int               `json:"rechecked_count,omitempty"`
	Kept           []string          `json:"kept,omitempty"`
	KeptCount      int               `json:"kept_count,omitempty"`
	KeptBecause    map[string]string `json:"kept_because,omitempty"`
	RunStatusWith  string            `json:"run_status_with_fix"`
}
