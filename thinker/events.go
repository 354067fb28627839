package thinker

import "github.com/flowctl/flowctl/thinker/thinkevent"

// What the thinker reports and returns is data and lives in package
// thinker/thinkevent, which code that only renders it imports alone;
// these are their names here, so that the thinker's callers need not
// know.

// The events (see package thinker/thinkevent).
type (
	Event           = thinkevent.Event
	StageStarted    = thinkevent.StageStarted
	LLMRequest      = thinkevent.LLMRequest
	LLMResponse     = thinkevent.LLMResponse
	ReplyAdjusted   = thinkevent.ReplyAdjusted
	Proposed        = thinkevent.Proposed
	DecomposeBlocks = thinkevent.DecomposeBlocks
	SearchFound     = thinkevent.SearchFound
	SearchMissing   = thinkevent.SearchMissing
	Candidate       = thinkevent.Candidate
	CreatingBlock   = thinkevent.CreatingBlock
	BlockTestPassed = thinkevent.BlockTestPassed
	BlockTestFailed = thinkevent.BlockTestFailed
	BlockCreated    = thinkevent.BlockCreated
	Wired           = thinkevent.Wired
	CompileFailed   = thinkevent.CompileFailed
	Repaired        = thinkevent.Repaired
	Complete        = thinkevent.Complete
	Failed          = thinkevent.Failed
	UsageReported   = thinkevent.UsageReported
	Explained       = thinkevent.Explained
	FixChecked      = thinkevent.FixChecked
	PatternUsed     = thinkevent.PatternUsed
)

// The data the events and the thinker's results carry.
type (
	BlockSpec     = thinkevent.BlockSpec
	FieldSpec     = thinkevent.FieldSpec
	Change        = thinkevent.Change
	Usage         = thinkevent.Usage
	StageUsage    = thinkevent.StageUsage
	Fix           = thinkevent.Fix
	FixFile       = thinkevent.FixFile
	Verification  = thinkevent.Verification
	ExplainResult = thinkevent.ExplainResult
	FixEvidence   = thinkevent.FixEvidence
)

// The stages (docs/design.md, "The thinker").
const (
	StageClarify     = thinkevent.StageClarify
	StageDecompose   = thinkevent.StageDecompose
	StageSearch      = thinkevent.StageSearch
	StageCreateBlock = thinkevent.StageCreateBlock
	StageWire        = thinkevent.StageWire
	StageRepair      = thinkevent.StageRepair
	StageExplain     = thinkevent.StageExplain
)

// The phases of a block's test.
const (
	PhaseCheck   = thinkevent.PhaseCheck
	PhaseExample = thinkevent.PhaseExample
)

// ErrBudget is wrapped by the Error of a run stopped by Options.MaxTokens:
// the next request would have gone over it.
var ErrBudget = thinkevent.ErrBudget

// CapText cuts s to n bytes (at a rune boundary), with a marker.
func CapText(s string, n int) string { return thinkevent.CapText(s, n) }
