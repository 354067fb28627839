package views

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/thinker/thinkevent"
	"github.com/hashicorp/hcl/v2"
)

// Think renders the thinker's events.
type Think interface {
	Event(e thinkevent.Event)
	Close()
}

var (
	_ Think = (*thinkJSON)(nil)
	_ Think = (*thinkHuman)(nil)
)

// NewThink returns the view of think: JSON events on out, or for people
// the stages on out and warnings and problems on errw, in colour with
// errColor. registries are the --registry directories, which the command
// it suggests next needs too.
func NewThink(out, errw io.Writer, errColor, jsonOut bool, registries []string) Think {
	if jsonOut {
		return newThinkJSON(out)
	}
	return &thinkHuman{out: out, err: errw, color: errColor, registries: registries}
}

// thinkJSON prints one JSON object per event (docs/design.md, "The thinker"); every object has type
// and time.
type thinkJSON struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newThinkJSON(w io.Writer) *thinkJSON {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &thinkJSON{enc: enc}
}

func (v *thinkJSON) Close() {}

// The JSON shapes of the events.
type (
	jsonThinkStage struct {
		JSONHead
		Stage      string `json:"stage"`
		Try        int    `json:"try,omitempty"`
		Block      string `json:"block,omitempty"`
		Intent     string `json:"intent,omitempty"`
		Reason     string `json:"reason,omitempty"`
		Embeddings *bool  `json:"embeddings,omitempty"`
		Note       string `json:"note,omitempty"`
	}
	jsonLLMRequest struct {
		JSONHead
		Stage    string `json:"stage"`
		Model    string `json:"model,omitempty"`
		Try      int    `json:"try,omitempty"`
		Block    string `json:"block,omitempty"`
		Messages int    `json:"messages"`
		Strict   bool   `json:"strict"`
	}
	jsonLLMResponse struct {
		JSONHead
		Stage      string          `json:"stage"`
		Try        int             `json:"try,omitempty"`
		Block      string          `json:"block,omitempty"`
		DurationMS int64           `json:"duration_ms"`
		Usage      blocks.Usage    `json:"usage"`
		Reply      json.RawMessage `json:"reply,omitempty"`
		Error      string          `json:"error,omitempty"`
	}
	jsonDecomposeBlocks struct {
		JSONHead
		Blocks []thinkevent.BlockSpec `json:"blocks"`
	}
	jsonSearchFound struct {
		JSONHead
		Block     string  `json:"block"`
		Found     string  `json:"found"`
		Runtime   string  `json:"runtime"`
		Score     float64 `json:"score"`
		Relevance float64 `json:"relevance"`
		Reason    string  `json:"reason"`
	}
	jsonSearchMissing struct {
		JSONHead
		Block      string          `json:"block"`
		Candidates []jsonCandidate `json:"candidates"`
	}
	jsonCandidate struct {
		Name  string  `json:"name"`
		Score float64 `json:"score"`
		Why   string  `json:"why"`
	}
	jsonCreatingBlock struct {
		JSONHead
		Block   string `json:"block"`
		Name    string `json:"name"`
		Runtime string `json:"runtime"`
		Try     int    `json:"try"`
	}
	jsonBlockTest struct {
		JSONHead
		Block       string                `json:"block"`
		Name        string                `json:"name"`
		Try         int                   `json:"try"`
		DurationMS  *int64                `json:"duration_ms,omitempty"`
		Phase       string                `json:"phase,omitempty"`
		Error       string                `json:"error,omitempty"`
		Diff        string                `json:"diff,omitempty"`
		Diagnostics []diagjson.Diagnostic `json:"diagnostics,omitempty"`
	}
	jsonBlockCreated struct {
		JSONHead
		Block   string `json:"block"`
		Name    string `json:"name"`
		Runtime string `json:"runtime"`
		File    string `json:"file"`
		Tries   int    `json:"tries"`
		Tested  bool   `json:"tested"`
		Note    string `json:"note,omitempty"`
		Staged  bool   `json:"staged,omitempty"`
	}
	jsonWired struct {
		JSONHead
		Try   int      `json:"try,omitempty"`
		Flow  string   `json:"flow"`
		File  string   `json:"file"`
		Steps []string `json:"steps"`
	}
	jsonCompileFailed struct {
		JSONHead
		Try          int                   `json:"try"`
		File         string                `json:"file"`
		ErrorCount   int                   `json:"error_count"`
		WarningCount int                   `json:"warning_count"`
		Diagnostics  []diagjson.Diagnostic `json:"diagnostics"`
	}
	jsonThinkComplete struct {
		JSONHead
		Flow          string                `json:"flow"`
		File          string                `json:"file"`
		Valid         bool                  `json:"valid"`
		BlocksFound   map[string]string     `json:"blocks_found"`
		BlocksCreated map[string]string     `json:"blocks_created"`
		BlockFiles    []string              `json:"block_files"`
		Steps         []string              `json:"steps"`
		Diagnostics   []diagjson.Diagnostic `json:"diagnostics"`
		Usage         blocks.Usage          `json:"usage"`
	}
	jsonProposed struct {
		JSONHead
		ID      string       `json:"id"`
		Flow    string       `json:"flow"`
		File    string       `json:"file"`
		Added   []string     `json:"added"`
		Changed []string     `json:"changed"`
		Removed []string     `json:"removed"`
		Diff    string       `json:"diff"`
		Usage   blocks.Usage `json:"usage"`
	}
	jsonReplyAdjusted struct {
		JSONHead
		Stage string   `json:"stage"`
		Try   int      `json:"try"`
		Block string   `json:"block,omitempty"`
		Notes []string `json:"notes"`
	}
	jsonThinkError struct {
		JSONHead
		Stage       string                `json:"stage"`
		Message     string                `json:"message"`
		BlockFiles  []string              `json:"block_files"`
		Diagnostics []diagjson.Diagnostic `json:"diagnostics"`
		Usage       blocks.Usage          `json:"usage"`
	}
)

func (v *thinkJSON) Event(e thinkevent.Event) {
	var out any
	switch e := e.(type) {
	case thinkevent.StageStarted:
		j := jsonThinkStage{JSONHead: JSONHead{"stage", JSONTime(e.Time)}, Stage: e.Stage, Try: e.Try, Block: e.Block, Intent: e.Intent, Reason: e.Reason, Note: e.Note}
		if e.Stage == thinkevent.StageSearch {
			j.Embeddings = &e.Embeddings
		}
		out = j
	case thinkevent.LLMRequest:
		out = jsonLLMRequest{JSONHead{"llm_request", JSONTime(e.Time)}, e.Stage, e.Model, e.Try, e.Block, e.Messages, e.Strict}
	case thinkevent.LLMResponse:
		out = jsonLLMResponse{JSONHead{"llm_response", JSONTime(e.Time)}, e.Stage, e.Try, e.Block, e.Duration.Milliseconds(), e.Usage, e.Reply, e.Error}
	case thinkevent.DecomposeBlocks:
		out = jsonDecomposeBlocks{JSONHead{"decompose_blocks", JSONTime(e.Time)}, e.Blocks}
	case thinkevent.ReplyAdjusted:
		out = jsonReplyAdjusted{JSONHead{"reply_adjusted", JSONTime(e.Time)}, e.Stage, e.Try, e.Block, e.Notes}
	case thinkevent.UsageReported:
		out = newJSONUsage(e)
	case thinkevent.PatternUsed:
		out = jsonPatternUsed{JSONHead{"pattern_used", JSONTime(e.Time)}, e.ID, e.Name, e.Relevance, e.Similarity, nonNil(e.Blocks)}
	case thinkevent.Proposed:
		out = jsonProposed{JSONHead{"proposal", JSONTime(e.Time)}, e.ID, e.Flow, e.File, nonNil(e.Change.Added), nonNil(e.Change.Changed),
			nonNil(e.Change.Removed), e.Diff, e.Usage}
	case thinkevent.SearchFound:
		out = jsonSearchFound{JSONHead{"search_found", JSONTime(e.Time)}, e.Block, e.Found, e.Runtime, e.Score, e.Relevance, e.Reason}
	case thinkevent.SearchMissing:
		cands := []jsonCandidate{}
		for _, c := range e.Candidates {
			cands = append(cands, jsonCandidate{c.Name, c.Score, c.Why})
		}
		out = jsonSearchMissing{JSONHead{"search_missing", JSONTime(e.Time)}, e.Block, cands}
	case thinkevent.CreatingBlock:
		out = jsonCreatingBlock{JSONHead{"creating_block", JSONTime(e.Time)}, e.Block, e.Name, e.Runtime, e.Try}
	case thinkevent.BlockTestPassed:
		ms := e.Duration.Milliseconds()
		out = jsonBlockTest{JSONHead: JSONHead{"block_test_passed", JSONTime(e.Time)}, Block: e.Block, Name: e.Name, Try: e.Try, DurationMS: &ms}
	case thinkevent.BlockTestFailed:
		j := jsonBlockTest{JSONHead: JSONHead{"block_test_failed", JSONTime(e.Time)}, Block: e.Block, Name: e.Name, Try: e.Try,
			Phase: e.Phase, Error: e.Error, Diff: e.Diff}
		if len(e.Diagnostics) > 0 {
			j.Diagnostics = diagjson.New(e.Files, e.Diagnostics).Diagnostics
		}
		out = j
	case thinkevent.BlockCreated:
		out = jsonBlockCreated{JSONHead{"block_created", JSONTime(e.Time)}, e.Block, e.Name, e.Runtime, e.File, e.Tries, e.Tested, e.Note, e.Staged}
	case thinkevent.Wired:
		out = jsonWired{JSONHead: JSONHead{"wired", JSONTime(e.Time)}, Flow: e.Flow, File: e.File, Steps: nonNil(e.Steps)}
	case thinkevent.Repaired:
		out = jsonWired{JSONHead: JSONHead{"repaired", JSONTime(e.Time)}, Try: e.Try, Flow: e.Flow, File: e.File, Steps: nonNil(e.Steps)}
	case thinkevent.CompileFailed:
		d := diagjson.New(e.Files, e.Diagnostics)
		out = jsonCompileFailed{JSONHead{"compile_failed", JSONTime(e.Time)}, e.Try, e.File, d.ErrorCount, d.WarningCount, d.Diagnostics}
	case thinkevent.Complete:
		out = jsonThinkComplete{JSONHead{"complete", JSONTime(e.Time)}, e.Flow, e.File, e.Valid, e.BlocksFound, e.BlocksCreated,
			nonNil(e.BlockFiles), nonNil(e.Steps), diagjson.New(e.Files, e.Diagnostics).Diagnostics, e.Usage}
	case thinkevent.Failed:
		out = jsonThinkError{JSONHead{"error", JSONTime(e.Time)}, e.Stage, e.Message, nonNil(e.BlockFiles),
			diagjson.New(e.Files, e.Diagnostics).Diagnostics, e.Usage}
	default:
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.enc.Encode(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// thinkHuman shows the stages as they progress, one line each, with what
// each found, created or fixed under it. registries are the --registry
// directories, which the command it suggests next needs too.
type thinkHuman struct {
	out, err   io.Writer
	color      bool // colour on err
	registries []string
	mu         sync.Mutex
	// problems are those of the last flow attempt, by problemKey.
	problems map[string]bool
	// usage is what the run's requests used, for its last line.
	usage thinkevent.Usage
}

func (v *thinkHuman) Close() {}

func (v *thinkHuman) Event(e thinkevent.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	w := v.out
	switch e := e.(type) {
	case thinkevent.StageStarted:
		switch e.Stage {
		case thinkevent.StageClarify, thinkevent.StageDecompose:
			if e.Try > 1 {
				fmt.Fprintf(w, "· %s (try %d)\n", e.Stage, e.Try)
			} else {
				fmt.Fprintf(w, "· %s\n", e.Stage)
			}
			if e.Intent != "" && e.Try <= 1 {
				fmt.Fprintf(w, "    intent: %s\n", oneLine(e.Intent))
			}
			if e.Stage == thinkevent.StageDecompose && e.Reason != "" {
				// The other stages show why they are asked again as it
				// happens: a block's failed check, the flow's errors.
				fmt.Fprintf(w, "    ✗ try %d: %s\n", e.Try-1, oneLine(e.Reason))
			}
		case thinkevent.StageSearch:
			fmt.Fprintf(w, "· search\n")
			if e.Note != "" {
				fmt.Fprintf(v.err, "Warning: %s\n", e.Note)
			}
		case thinkevent.StageCreateBlock:
			fmt.Fprintf(w, "· create_block %s (try %d)\n", e.Block, e.Try)
		case thinkevent.StageWire:
			fmt.Fprintf(w, "· wire\n")
		case thinkevent.StageRepair:
			fmt.Fprintf(w, "· repair (try %d)\n", e.Try)
		}
	case thinkevent.DecomposeBlocks:
		ids := make([]string, len(e.Blocks))
		for i, b := range e.Blocks {
			ids[i] = b.ID
		}
		fmt.Fprintf(w, "    %s: %s\n", Plural(len(ids), "block", "blocks"), strings.Join(ids, ", "))
	case thinkevent.SearchFound:
		kind := e.Runtime
		if kind == blocks.RuntimeBuiltin {
			kind = "built-in"
		}
		fmt.Fprintf(w, "    ✓ %s → %s (%s)\n", e.Block, e.Found, kind)
	case thinkevent.SearchMissing:
		fmt.Fprintf(w, "    + %s: not in the registry; it will be created\n", e.Block)
	case thinkevent.BlockTestFailed:
		what := "its example failed"
		if e.Phase == thinkevent.PhaseCheck {
			what = "it does not validate"
		}
		fmt.Fprintf(w, "    ✗ %s: %s: %s\n", e.Name, what, oneLine(e.Error))
		for _, l := range strings.Split(strings.TrimRight(e.Diff, "\n"), "\n") {
			if l != "" {
				fmt.Fprintf(w, "        %s\n", l)
			}
		}
	case thinkevent.BlockTestPassed:
		fmt.Fprintf(w, "    ✓ %s: its example passed\n", e.Name)
	case thinkevent.BlockCreated:
		if e.Staged {
			fmt.Fprintf(w, "    ✓ %s is part of the proposal\n", e.File)
		} else {
			fmt.Fprintf(w, "    ✓ wrote %s\n", e.File)
		}
		if e.Note != "" {
			fmt.Fprintf(w, "      (%s)\n", e.Note)
		}
	case thinkevent.Wired, thinkevent.Repaired:
		// The compile result follows.
	case thinkevent.CompileFailed:
		v.problems = writeAttemptProblems(w, e.File, e.Diagnostics, v.problems)
	case thinkevent.Complete:
		if e.Valid {
			fmt.Fprintf(w, "    ✓ the flow validates\n")
		}
		fmt.Fprintf(w, "\nWrote %s: %s", e.File, Plural(len(e.Steps), "step", "steps"))
		if len(e.BlocksFound) > 0 {
			fmt.Fprintf(w, "; found %s", blockList(e.BlocksFound))
		}
		if len(e.BlocksCreated) > 0 {
			fmt.Fprintf(w, "; created %s", blockList(e.BlocksCreated))
		}
		fmt.Fprintf(w, ".\n%s\n", usageLine(v.usage))
		if e.Valid {
			WriteDiagnostics(v.err, v.color, e.Files, e.Diagnostics) // warnings
			fmt.Fprintf(w, "Next: %s\n", nextCommand(e.File, e.Files, v.registries))
		} else {
			fmt.Fprintln(v.err, "Still wrong with the flow written (--force):")
			WriteStillWrong(v.err, v.color, e.Files, e.Diagnostics)
		}
	case thinkevent.Proposed:
		fmt.Fprintf(w, "    ✓ the changed flow validates\n\nProposal %s for %s:\n", e.ID, e.File)
		writeChange(w, e.Change, e.Diff)
		fmt.Fprintln(w, usageLine(v.usage))
	case thinkevent.UsageReported:
		v.usage = e.Usage
	case thinkevent.PatternUsed:
		fmt.Fprintf(w, "· based on pattern %s (relevance %.2f): its blocks %s, no decompose\n", e.Name, e.Relevance, strings.Join(e.Blocks, ", "))
	case thinkevent.Failed:
		if len(e.BlockFiles) > 0 {
			fmt.Fprintf(v.err, "The created blocks were kept: %s\n", strings.Join(e.BlockFiles, ", "))
		}
		if e.Budget {
			fmt.Fprintln(v.err, "Nothing was written: the token budget stopped the run.")
		}
		fmt.Fprintln(w, usageLine(v.usage))
	}
}

// ShellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and the punctuation of ordinary paths.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// blockList renders "id → name" pairs, sorted, with the name alone when
// it is the id.
func blockList(m map[string]string) string {
	var out []string
	for _, id := range lang.SortedKeys(m) {
		if m[id] == id {
			out = append(out, id)
		} else {
			out = append(out, id+" → "+m[id])
		}
	}
	return strings.Join(out, ", ")
}

// diagLine is a diagnostic on one line: where, summary and detail.
func diagLine(d *hcl.Diagnostic) string {
	s := d.Summary
	if d.Detail != "" {
		s += ": " + d.Detail
	}
	if d.Subject != nil {
		s = fmt.Sprintf("%s:%d,%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, s)
	}
	return oneLine(s)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// jsonPatternUsed is the event pattern_used of think --json.
type jsonPatternUsed struct {
	JSONHead
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Relevance float64 `json:"relevance"`
	// Similarity is the embeddings' cosine similarity; absent without them.
	Similarity float64  `json:"similarity,omitempty"`
	Blocks     []string `json:"blocks"`
}
