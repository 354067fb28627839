package views

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	"github.com/flowctl/flowctl/thinker/thinkevent"
)

// Proposals renders the proposals think --edit staged.
type Proposals interface {
	List(ps []*state.Proposal) error
	Show(p *state.Proposal) error
}

var (
	_ Proposals = proposalsHuman{}
	_ Proposals = proposalsJSON{}
)

// NewProposals returns the view of proposals: tables (what a proposal
// weakens in red with color), or JSON.
func NewProposals(w io.Writer, color, jsonOut bool) Proposals {
	if jsonOut {
		return proposalsJSON{w}
	}
	return proposalsHuman{w, color}
}

type proposalsHuman struct {
	w     io.Writer
	color bool
}

func (v proposalsHuman) List(ps []*state.Proposal) error {
	if len(ps) == 0 {
		fmt.Fprintln(v.w, "No proposals.")
		return nil
	}
	tw := tabwriter.NewWriter(v.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROPOSAL\tFLOW\tSTATUS\tCREATED\tCHANGE\tINTENT")
	for _, p := range ps {
		c := changeOfProposal(p)
		intent := Cut(FirstLine(p.Intent), 60)
		if len(p.Weakenings) > 0 {
			intent = "WEAKENS " + strings.Join(weakenedKinds(p.Weakenings), ",") + ": " + intent
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t+%d ~%d -%d\t%s\n", p.ID, p.Flow, p.Status, p.Created.Local().Format("2006-01-02 15:04:05"),
			len(c.Added), len(c.Changed), len(c.Removed), intent)
	}
	return tw.Flush()
}

func (v proposalsHuman) Show(p *state.Proposal) error {
	fmt.Fprintf(v.w, "Proposal %s for %s (flow %q): %s\n", p.ID, p.FlowFile, p.Flow, p.Status)
	fmt.Fprintf(v.w, "Intent: %s\n", p.Intent)
	if p.RunID != "" {
		fmt.Fprintf(v.w, "Fixes run %s: %s\n", p.RunID, oneLine(p.Diagnosis))
		for _, l := range evidenceLines(p.Evidence) {
			fmt.Fprintln(v.w, l)
		}
	}
	WriteWeakenings(v.w, p.Weakenings, v.color)
	writeChange(v.w, changeOfProposal(p), p.Diff)
	return nil
}

// evidenceLines says in sentences what the evidence of a fix of explain
// (thinkevent.FixEvidence) shows: the steps that failed in the run, how they
// end with the fix, or what the fix needs that kept it from being run.
func evidenceLines(raw json.RawMessage) []string {
	if len(NonEmpty(raw)) == 0 {
		return nil
	}
	var ev thinkevent.FixEvidence
	if err := json.Unmarshal(raw, &ev); err != nil {
		return []string{"Evidence (unreadable): " + oneLine(string(raw))}
	}
	steps := func(names []string) string {
		if len(names) == 1 {
			return "step " + names[0]
		}
		return "steps " + strings.Join(names, ", ")
	}
	var out []string
	if len(ev.FailedBefore) > 0 {
		out = append(out, fmt.Sprintf("In the run, %s failed.", steps(ev.FailedBefore)))
	}
	if len(ev.NotVerified) > 0 {
		out = append(out, "The fix was not run, since it needs what the flow as it is does not use:")
		for _, n := range ev.NotVerified {
			out = append(out, "  - "+oneLine(n))
		}
		return out
	}
	verb := map[bool]string{true: "succeeds", false: "succeed"}
	if len(ev.SucceededNow) > 0 {
		out = append(out, fmt.Sprintf("With the fix, run again on a copy of the run, %s %s.", steps(ev.SucceededNow), verb[len(ev.SucceededNow) == 1]))
	}
	if len(ev.StillFailing) > 0 {
		out = append(out, fmt.Sprintf("With the fix, %s still %s.", steps(ev.StillFailing), map[bool]string{true: "fails", false: "fail"}[len(ev.StillFailing) == 1]))
	}
	if ev.RunStatusWith != "" {
		checked := "The fix is verified"
		if !ev.Verified {
			checked = "The fix is not verified"
		}
		out = append(out, fmt.Sprintf("%s: the run's copy ended %s with it.", checked, ev.RunStatusWith))
	}
	return out
}

// WriteWeakenings says what a proposal weakens, in red with color (a
// terminal that shows colours).
func WriteWeakenings(w io.Writer, ws []state.Weakening, color bool) {
	if len(ws) == 0 {
		return
	}
	red := func(s string) string {
		if color {
			return "\x1b[31m" + s + "\x1b[0m"
		}
		return s
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, red("WARNING: this change weakens the flow's safeguards:"))
	for _, x := range ws {
		fmt.Fprintln(w, red("  - "+x.Flow+": "+x.Message))
	}
}

// writeChange prints a change step by step, then its diff.
func writeChange(w io.Writer, c thinkevent.Change, diff string) {
	fmt.Fprintln(w)
	for _, l := range c.Lines() {
		fmt.Fprintln(w, l)
	}
	if diff != "" {
		fmt.Fprintln(w)
		fmt.Fprint(w, diff)
		if !strings.HasSuffix(diff, "\n") {
			fmt.Fprintln(w)
		}
	}
}

// weakenedKinds are the kinds of safeguards weakened, each once.
func weakenedKinds(ws []state.Weakening) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w.Kind) {
			out = append(out, w.Kind)
		}
	}
	return out
}

func changeOfProposal(p *state.Proposal) thinkevent.Change {
	var c thinkevent.Change
	json.Unmarshal(p.Summary, &c)
	return c
}

type proposalsJSON struct{ w io.Writer }

func (v proposalsJSON) List(ps []*state.Proposal) error {
	out := []api.Proposal{}
	for _, p := range ps {
		out = append(out, api.NewProposal(p, false))
	}
	return WriteJSON(v.w, out)
}

func (v proposalsJSON) Show(p *state.Proposal) error { return WriteJSON(v.w, api.NewProposal(p, true)) }
