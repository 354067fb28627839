package thinkevent

import (
	"encoding/json"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/hashicorp/hcl/v2"
)

// Event is something that happened while thinking, in the order it
// happened. The CLI renders events for people and as JSON lines
// (docs/design.md, "The thinker"); the observer is called one event at a
// time.
type Event interface{ event() }

// StageStarted reports the start of a stage: one of the stage names, or
// StageSearch. Try counts the requests of clarify, decompose,
// create_block and repair from 1; Block is the block a create_block
// stage writes; Intent the (refined) intent a decompose stage works from.
// Reason says, in one sentence, why a decompose, create_block or repair
// request is sent again: what was wrong with the previous reply. A search
// stage says whether it uses embeddings, and in Note why not when they
// failed.
type StageStarted struct {
	Time       time.Time
	Stage      string
	Try        int
	Block      string
	Intent     string
	Reason     string
	Embeddings bool
	Note       string
}

// LLMRequest reports a request about to be sent.
type LLMRequest struct {
	Time     time.Time
	Stage    string
	Model    string // empty: the provider's configured default
	Try      int
	Block    string // create_block: the block asked for
	Messages int    // the conversation's length, system message included
	Strict   bool   // whether the schema is sent for strict enforcement
}

// LLMResponse reports the reply to a request: the JSON object, or the
// error of a request that failed.
type LLMResponse struct {
	Time     time.Time
	Stage    string
	Try      int
	Block    string
	Duration time.Duration
	Usage    blocks.Usage
	Reply    json.RawMessage // nil when the request failed
	Error    string
}

// ReplyAdjusted is a debug event: a reply was taken with changes (fields
// renamed, dropped or defaulted, JSON values read as HCL expressions),
// each in Notes.
type ReplyAdjusted struct {
	Time  time.Time
	Stage string
	Try   int
	Block string
	Notes []string
}

// Proposed is the last event of a thinker.Edit run that succeeded: the change
// it proposes (staged as ID), with its unified diff.
type Proposed struct {
	Time   time.Time
	ID     string
	Flow   string
	File   string
	Change Change
	Diff   string
	Usage  blocks.Usage
}

// DecomposeBlocks lists the blocks the intent needs.
type DecomposeBlocks struct {
	Time   time.Time
	Blocks []BlockSpec
}

// SearchFound reports a required block the registry has: Found is the
// block's name, Runtime its runtime ("builtin" for a built-in), Score its
// search score, Relevance how much it is about the required block's
// purpose (0 to 1) and Reason why it was taken.
type SearchFound struct {
	Time      time.Time
	Block     string
	Found     string
	Runtime   string
	Score     float64
	Relevance float64
	Reason    string
}

// SearchMissing reports a required block the registry lacks; Candidates
// are the blocks the search found, each with why it does not fit.
type SearchMissing struct {
	Time       time.Time
	Block      string
	Candidates []Candidate
}

// Candidate is a block a search found that did not fit.
type Candidate struct {
	Name  string
	Score float64
	Why   string
}

// CreatingBlock reports a create_block try for a missing block; Name is
// the name the block will have.
type CreatingBlock struct {
	Time    time.Time
	Block   string
	Name    string
	Runtime string
	Try     int
}

// The phases of a block's test: its definition and code are checked, then
// its example is run.
const (
	PhaseCheck   = "check"
	PhaseExample = "example"
)

// BlockTestPassed reports a created block that passed its checks and its
// example (Duration is the example run's).
type BlockTestPassed struct {
	Time     time.Time
	Block    string
	Name     string
	Try      int
	Duration time.Duration
}

// BlockTestFailed reports a created block that failed a check or its
// example; what failed goes back to the model.
type BlockTestFailed struct {
	Time        time.Time
	Block       string
	Name        string
	Try         int
	Phase       string // PhaseCheck or PhaseExample
	Error       string
	Diff        string // example: expected (-) and actual (+) outputs
	Diagnostics hcl.Diagnostics
	Files       map[string]*hcl.File // for the diagnostics' snippets
}

// BlockCreated reports a created block written to its block file, or
// with Staged (think --edit) made part of the proposal, to be written to
// File when it is accepted. Tested is false for llm blocks, whose
// definition is checked but whose example is not run; Note says so.
type BlockCreated struct {
	Time    time.Time
	Block   string
	Name    string
	Runtime string
	File    string
	Tries   int
	Tested  bool
	Note    string
	Staged  bool
}

// Wired reports the flow made from the wire reply.
type Wired struct {
	Time  time.Time
	Flow  string
	File  string
	Steps []string
}

// CompileFailed reports a flow attempt (Try 0 is wire's, n the nth
// repair's) that does not validate.
type CompileFailed struct {
	Time        time.Time
	Try         int
	File        string
	Diagnostics hcl.Diagnostics
	Files       map[string]*hcl.File
}

// Repaired reports the flow made from a repair reply.
type Repaired struct {
	Time  time.Time
	Try   int
	Flow  string
	File  string
	Steps []string
}

// Complete is the last event of a thinker run that wrote its flow. Valid
// is false when the flow was written with --force despite its
// diagnostics.
type Complete struct {
	Time          time.Time
	Flow          string
	File          string
	Valid         bool
	BlocksFound   map[string]string // required block id → registry block
	BlocksCreated map[string]string // required block id → created block
	BlockFiles    []string
	Steps         []string
	Diagnostics   hcl.Diagnostics
	Files         map[string]*hcl.File
	Usage         blocks.Usage
}

// Failed is the last event of a thinker run that did not write its flow
// (the JSON event "error"). Budget: the run stopped because the next
// request would have gone over thinker.Options.MaxTokens.
type Failed struct {
	Time        time.Time
	Stage       string
	Message     string
	Budget      bool
	BlockFiles  []string // created blocks that were kept
	Diagnostics hcl.Diagnostics
	Files       map[string]*hcl.File
	Usage       blocks.Usage
}

// UsageReported says what the run's model requests used, by stage; it
// comes just before the last event (Complete, Proposed, Failed, or
// explain's Explained).
type UsageReported struct {
	Time  time.Time
	Usage Usage
}

// Explained is the diagnosis of a reply of explain.
type Explained struct {
	Time      time.Time
	Try       int
	Diagnosis string
	HasFix    bool
}

// FixChecked is a proposed fix, checked. NotVerified is what a fix that
// was not run needs (Phase "reach").
type FixChecked struct {
	Time        time.Time `json:"-"`
	Try         int       `json:"try"`
	Summary     string    `json:"summary"`
	Files       []string  `json:"files"`
	OK          bool      `json:"ok"`
	Phase       string    `json:"phase"`
	Problem     string    `json:"problem,omitempty"`
	NotVerified []string  `json:"not_verified,omitempty"`
}

// PatternUsed says that a think run is based on a pattern: its relevance
// to the intent (0–1, ranked down by the failures of its flow since).
type PatternUsed struct {
	Time      time.Time
	ID, Name  string
	Relevance float64
	// Similarity is the cosine similarity of the intent's and the
	// pattern's embeddings; 0 without embeddings.
	Similarity float64
	Blocks     []string
}

func (UsageReported) event()   {}
func (StageStarted) event()    {}
func (LLMRequest) event()      {}
func (LLMResponse) event()     {}
func (DecomposeBlocks) event() {}
func (ReplyAdjusted) event()   {}
func (Proposed) event()        {}
func (SearchFound) event()     {}
func (SearchMissing) event()   {}
func (CreatingBlock) event()   {}
func (BlockTestPassed) event() {}
func (BlockTestFailed) event() {}
func (BlockCreated) event()    {}
func (Wired) event()           {}
func (CompileFailed) event()   {}
func (Repaired) event()        {}
func (Complete) event()        {}
func (Failed) event()          {}
func (Explained) event()       {}
func (FixChecked) event()      {}
func (PatternUsed) event()     {}
