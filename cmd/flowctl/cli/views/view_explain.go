package views

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker/thinkevent"
)

// Explain shows flowctl explain: as lines for a person, or as JSON
// events (--json).
type Explain struct {
	w    io.Writer
	json *thinkJSON // nil for the human view
}

// NewExplain returns the view of explain, printing on w.
func NewExplain(w io.Writer, jsonOut bool) *Explain {
	v := &Explain{w: w}
	if jsonOut {
		v.json = newThinkJSON(w)
	}
	return v
}

type (
	jsonExplained struct {
		Type      string `json:"type"`
		Time      string `json:"time"`
		Try       int    `json:"try"`
		Diagnosis string `json:"diagnosis"`
		HasFix    bool   `json:"has_fix"`
	}
	jsonFixChecked struct {
		Type string `json:"type"`
		Time string `json:"time"`
		thinkevent.FixChecked
	}
	jsonExplainDone struct {
		Type        string          `json:"type"`
		Time        string          `json:"time"`
		RunID       string          `json:"run_id"`
		Diagnosis   string          `json:"diagnosis"`
		Proposal    string          `json:"proposal,omitempty"`
		Summary     string          `json:"summary,omitempty"`
		Evidence    json.RawMessage `json:"evidence,omitempty"`
		NotVerified []string        `json:"not_verified,omitempty"`
		NoFixReason string          `json:"no_fix_reason,omitempty"`
	}
)

func (v *Explain) Event(e thinkevent.Event) {
	if v.json != nil {
		var out any
		switch e := e.(type) {
		case thinkevent.Explained:
			out = jsonExplained{"explained", JSONTime(e.Time), e.Try, e.Diagnosis, e.HasFix}
		case thinkevent.FixChecked:
			e.Files = nonNil(e.Files)
			out = jsonFixChecked{"fix_checked", JSONTime(e.Time), e}
		default:
			v.json.Event(e)
			return
		}
		v.json.mu.Lock()
		defer v.json.mu.Unlock()
		v.json.enc.Encode(out)
		return
	}
	w := v.w
	switch e := e.(type) {
	case thinkevent.StageStarted:
		if e.Try == 1 {
			fmt.Fprintln(w, "· asking the model why the run failed")
		}
	case thinkevent.FixChecked:
		switch {
		case len(e.NotVerified) > 0:
			fmt.Fprintf(w, "    ! fix %d (%s) was not run: %s\n", e.Try, oneLine(e.Summary), oneLine(thinkevent.CapText(strings.Join(e.NotVerified, "; "), 600)))
		case e.OK:
			fmt.Fprintf(w, "    ✓ fix %d (%s): the failed steps succeed with it\n", e.Try, oneLine(e.Summary))
		default:
			fmt.Fprintf(w, "    ✗ fix %d (%s) did not pass (%s): %s\n", e.Try, oneLine(e.Summary), e.Phase, oneLine(thinkevent.CapText(e.Problem, 300)))
		}
	case thinkevent.UsageReported:
		fmt.Fprintln(w, usageLine(e.Usage))
	}
}

// usageLine is the last line of a command that asked a model: its calls
// and tokens, by stage.
func usageLine(u thinkevent.Usage) string {
	var parts []string
	for _, s := range u.Stages {
		parts = append(parts, fmt.Sprintf("%s %d (%d+%d)", s.Stage, s.Calls, s.PromptTokens, s.CompletionTokens))
	}
	by := ""
	if len(parts) > 0 {
		by = ": " + strings.Join(parts, ", ")
	}
	return fmt.Sprintf("Usage: %s, %d prompt + %d completion tokens%s.", Plural(u.Calls, "model call", "model calls"), u.PromptTokens, u.CompletionTokens, by)
}

// Done shows the diagnosis and the proposal, or why there is none.
func (v *Explain) Done(run *state.Run, res *thinkevent.ExplainResult) error {
	proposal := res.Proposal
	if v.json != nil {
		d := jsonExplainDone{Type: "explain_done", Time: JSONTime(time.Now()), RunID: run.ID, Diagnosis: res.Diagnosis, Proposal: proposal, NoFixReason: res.NoFixReason}
		if res.Fix != nil {
			d.Summary, d.Evidence, d.NotVerified = res.Fix.Summary, res.Verification.Evidence, res.Verification.NotVerified
		}
		v.json.mu.Lock()
		defer v.json.mu.Unlock()
		v.json.enc.Encode(d)
		return nil
	}
	w := v.w
	fmt.Fprintf(w, "\nRun %s of %s %s.\n%s\n\n", run.ID, run.Flow, run.Status, res.Diagnosis)
	switch {
	case proposal != "" && len(res.Verification.NotVerified) > 0:
		fmt.Fprintf(w, "Proposed fix, not verified: %s (review it, then accept with flowctl proposals accept %s)\n  %s\n", proposal, proposal, oneLine(res.Fix.Summary))
		fmt.Fprintln(w, "  It was not run, since it needs what the flow as it is does not use:")
		for _, n := range res.Verification.NotVerified {
			fmt.Fprintf(w, "  - %s\n", oneLine(n))
		}
		fmt.Fprintf(w, "Then: flowctl apply --resume %s --upgrade\n", run.ID) // the fix is a new version of the flow
	case proposal != "":
		fmt.Fprintf(w, "Proposed fix: %s (accept with flowctl proposals accept %s)\n  %s\n", proposal, proposal, oneLine(res.Fix.Summary))
		var ev thinkevent.FixEvidence
		json.Unmarshal(res.Verification.Evidence, &ev)
		if len(ev.SucceededNow) > 0 {
			fmt.Fprintf(w, "  checked: %s failed in the run and succeed%s with it.\n", strings.Join(ev.SucceededNow, ", "), map[bool]string{true: "s", false: ""}[len(ev.SucceededNow) == 1])
		}
		if ev.RecheckedCount > 0 {
			fmt.Fprintf(w, "  checked: %s succeeded in the run and succeed%s again with it.\n", someNames(ev.Rechecked, ev.RecheckedCount), map[bool]string{true: "s", false: ""}[ev.RecheckedCount == 1])
		}
		then := "flowctl apply --resume " + run.ID + " --upgrade" // the fix is a new version of the flow
		if ev.KeptCount > 0 {
			// The check kept them: resuming as it did keeps them too.
			var why []string
			for _, step := range slices.Sorted(maps.Keys(ev.KeptBecause)) {
				why = append(why, fmt.Sprintf("step %s: %s", step, ev.KeptBecause[step]))
				then += " --keep-succeeded step." + step
			}
			fmt.Fprintf(w, "  not checked: %s succeeded in the run and kept what %s recorded (%s).\n",
				someNames(ev.Kept, ev.KeptCount), map[bool]string{true: "it", false: "they"}[ev.KeptCount == 1], strings.Join(why, "; "))
		}
		fmt.Fprintf(w, "Then: %s\n", then)
	case res.NoFixReason != "":
		fmt.Fprintf(w, "No fix could be verified: %s.\n", strings.TrimSuffix(oneLine(res.NoFixReason), "."))
	}
	return nil
}

// someNames are the first names of a list of count, and how many more.
func someNames(names []string, count int) string {
	const most = 10
	shown := names[:min(len(names), most)]
	s := strings.Join(shown, ", ")
	if more := count - len(shown); more > 0 {
		s += fmt.Sprintf(" and %s more", comma(more))
	}
	return s
}

// Fail ends explain without a diagnosis: a budget stop says how far it got.
func (v *Explain) Fail(err error) error {
	if v.json != nil {
		return ErrReported
	}
	if errors.Is(err, thinkevent.ErrBudget) {
		return Failure{"Token budget reached", strings.TrimSuffix(err.Error(), ".") + "."}
	}
	return err
}

// jsonUsage is the event "usage": what a command's model requests used.
type jsonUsage struct {
	Type string `json:"type"`
	Time string `json:"time"`
	thinkevent.Usage
}

func newJSONUsage(e thinkevent.UsageReported) jsonUsage {
	return jsonUsage{Type: "usage", Time: JSONTime(e.Time), Usage: e.Usage.JSON()}
}
