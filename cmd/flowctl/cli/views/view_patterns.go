package views

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/flowctl/flowctl/runtime/state"
)

// Patterns renders the patterns think reuses: a list, one pattern with its
// flow's and blocks' sources, or one forgotten.
type Patterns interface {
	List(ps []*state.Pattern) error
	Show(p *state.Pattern) error
	Forgot(p *state.Pattern) error
}

var (
	_ Patterns = patternsHuman{}
	_ Patterns = patternsJSON{}
)

// NewPatterns returns the view of patterns: tables and text, or JSON.
func NewPatterns(w io.Writer, jsonOut bool) Patterns {
	if jsonOut {
		return patternsJSON{w}
	}
	return patternsHuman{w}
}

type patternsHuman struct{ w io.Writer }

func (v patternsHuman) List(ps []*state.Pattern) error { return listPatterns(v.w, ps) }

func (v patternsHuman) Show(p *state.Pattern) error {
	fmt.Fprintf(v.w, "Pattern %s (%s) from %s, of flow %q (%s)\nIntent: %s\nRecord since %s: %d runs ok, %d failed; %d tests passed, %d failed; used %d times\n\n%s",
		p.ID, p.Name, p.Origin, p.Flow, p.FlowFile, p.Intent, p.Updated.Local().Format("2006-01-02 15:04"),
		p.RunsOK, p.RunsFailed, p.TestPasses, p.TestFailures, p.Used, p.Source)
	for _, b := range p.Blocks {
		if b.Source != "" {
			fmt.Fprintf(v.w, "\n# %s\n%s", b.Path, b.Source)
		}
	}
	return nil
}

func (v patternsHuman) Forgot(p *state.Pattern) error {
	_, err := fmt.Fprintf(v.w, "Forgot pattern %s (%s).\n", p.ID, p.Name)
	return err
}

// patternsJSON prints JSON: an array of patterns without their sources,
// or one pattern whole (the one forgotten too).
type patternsJSON struct{ w io.Writer }

func (v patternsJSON) List(ps []*state.Pattern) error {
	out := []JSONPattern{}
	for _, p := range ps {
		out = append(out, newJSONPattern(p, false))
	}
	return WriteJSON(v.w, out)
}

func (v patternsJSON) Show(p *state.Pattern) error { return WriteJSON(v.w, newJSONPattern(p, true)) }

func (v patternsJSON) Forgot(p *state.Pattern) error { return v.Show(p) }

func listPatterns(w io.Writer, ps []*state.Pattern) error {
	if len(ps) == 0 {
		fmt.Fprintln(w, "No patterns.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATTERN\tNAME\tFROM\tRUNS OK/FAILED\tTESTS OK/FAILED\tUSED\tINTENT")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d/%d\t%d\t%s\n", p.ID, p.Name, p.Origin, p.RunsOK, p.RunsFailed, p.TestPasses, p.TestFailures, p.Used, Cut(FirstLine(p.Intent), 60))
	}
	return tw.Flush()
}

// JSONPattern is a pattern in patterns --json.
type JSONPattern struct {
	ID           string               `json:"id"`
	Name         string               `json:"name"`
	Intent       string               `json:"intent"`
	Flow         string               `json:"flow"`
	FlowFile     string               `json:"flow_file"`
	Origin       string               `json:"origin"`
	Created      string               `json:"created_at"`
	Updated      string               `json:"updated_at"`
	Used         int                  `json:"used"`
	RunsOK       int                  `json:"runs_ok"`
	RunsFailed   int                  `json:"runs_failed"`
	TestPasses   int                  `json:"test_passes"`
	TestFailures int                  `json:"test_failures"`
	Source       string               `json:"source,omitempty"`
	Blocks       []state.PatternBlock `json:"blocks,omitempty"`
}

func newJSONPattern(p *state.Pattern, whole bool) JSONPattern {
	j := JSONPattern{ID: p.ID, Name: p.Name, Intent: p.Intent, Flow: p.Flow, FlowFile: p.FlowFile, Origin: p.Origin,
		Created: JSONTime(p.Created), Updated: JSONTime(p.Updated), Used: p.Used, RunsOK: p.RunsOK, RunsFailed: p.RunsFailed,
		TestPasses: p.TestPasses, TestFailures: p.TestFailures}
	if whole {
		j.Source, j.Blocks = p.Source, p.Blocks
	}
	return j
}
