package views

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
)

// Evals renders flowctl eval list, show and compare: the results kept in
// the state (docs/evals.md, "Comparing with a baseline").
type Evals interface {
	List(rs []*state.EvalResult) error
	// Show prints a results' summary; with JSON, its cases too, one a
	// line, then the summary (a results file --baseline reads).
	Show(r *state.EvalResult, cases Cases) error
	Compare(cmp *result.Comparison) error
}

// NewEvals returns the view of eval list, show and compare.
func NewEvals(w io.Writer, jsonOut bool) Evals {
	if jsonOut {
		return evalsJSON{w}
	}
	return evalsHuman{w}
}

type evalsHuman struct{ w io.Writer }

func (v evalsHuman) List(rs []*state.EvalResult) error {
	if len(rs) == 0 {
		fmt.Fprintln(v.w, "No evaluation results are kept in the state: flowctl eval runs one.")
		return nil
	}
	var tb table
	tb.row("ID", "EVAL", "FLOW", "STARTED", "CASES", "GATES")
	for _, r := range rs {
		cases, gates := "-", "running or interrupted"
		if r.Summary != nil {
			n := 0
			for _, v := range r.Summary.Variants {
				n += v.Cases
			}
			cases, gates = fmt.Sprint(n), "held"
			if len(r.Summary.Gates) == 0 {
				gates = "-"
			} else if !r.Summary.Held() {
				gates = "failed"
			}
		}
		tb.row(r.ID, r.Eval, r.Flow, r.StartedAt.Local().Format(time.DateTime), cases, gates)
	}
	tb.write(v.w)
	return nil
}

func (v evalsHuman) Show(r *state.EvalResult, _ Cases) error {
	fmt.Fprintf(v.w, "Evaluation %s of eval %q (%s, flow %s), started %s\n", r.ID, r.Eval, r.File, r.Flow, r.StartedAt.Local().Format(time.DateTime))
	if r.Summary == nil {
		fmt.Fprintln(v.w, "It has no summary: it is running, or was interrupted.")
		return nil
	}
	WriteEvalSummary(v.w, *r.Summary)
	return nil
}

// WriteEvalSummary prints, per variant, each score's mean with its 95%
// confidence interval, pass rate and pass^k, then tokens, cost and time,
// and the gates' verdicts.
func WriteEvalSummary(w io.Writer, sum result.Summary) {
	for _, v := range sum.Variants {
		fmt.Fprintf(w, "\nVariant %s: %d cases, %d failed runs, %d cached; %d tokens, $%.4f, %s\n", v.Name, v.Cases, v.Errors, v.Cached, v.Tokens, v.CostUSD, v.Duration.Round(time.Millisecond))
		names := make([]string, 0, len(v.Scores))
		for n := range v.Scores {
			names = append(names, n)
		}
		slices.Sort(names)
		var tb table
		tb.row("  SCORE", "MEAN", "95% CI", "PASS", "PASS^K")
		for _, n := range names {
			st := v.Scores[n]
			k := "-"
			if st.PassK > 0 {
				k = fmt.Sprintf("%.0f%%", 100*st.PassK)
			}
			tb.row("  "+n, fmt.Sprintf("%.3f", st.Mean), fmt.Sprintf("%.3f–%.3f", st.Low, st.High), fmt.Sprintf("%.0f%%", 100*st.PassRate), k)
		}
		tb.write(w)
	}
	for _, g := range sum.Gates {
		verdict := "held"
		if !g.Held {
			verdict = "FAILED"
		}
		of := ""
		if g.Variant != "" {
			of = " of " + g.Variant
		}
		fmt.Fprintf(w, "\nGate on %s%s: %s", g.Score, of, verdict)
		if g.Reason != "" {
			fmt.Fprintf(w, ": %s", g.Reason)
		}
		fmt.Fprintln(w)
	}
}

// shownChanges is how many changed cases compare prints.
const shownChanges = 20

func (v evalsHuman) Compare(cmp *result.Comparison) error {
	fmt.Fprintf(v.w, "Evaluation %s against the baseline %s\n\n", cmp.Head, cmp.Base)
	writeComparison(v.w, cmp)
	return nil
}

// Compared shows an evaluation's comparison with its baseline
// (evaluate.Comparing) with its summary, before the gates; with --json,
// as a line of type "comparison" before the summary's.
func (v *Eval) Compared(cmp *result.Comparison) error {
	if v.json {
		return v.line(struct {
			Type string `json:"type"`
			*result.Comparison
		}{"comparison", cmp})
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.cmp = cmp
	return nil
}

// writeComparison prints per variant and score the difference with its
// interval and the paired test's verdict, then the changed cases, the
// worst first.
func writeComparison(w io.Writer, cmp *result.Comparison) {
	if len(cmp.Scores) == 0 {
		fmt.Fprintln(w, "They have no variant and score in common.")
		return
	}
	var tb table
	tb.row("VARIANT", "SCORE", "BASELINE", "NOW", "DIFFERENCE", "95% CI", "PAIRED", "P", "")
	for _, d := range cmp.Scores {
		noise := "noise"
		if d.Significant {
			noise = "more than noise"
		}
		tb.row(d.Variant, d.Score, fmt.Sprintf("%.3f", d.BaseMean), fmt.Sprintf("%.3f", d.HeadMean), fmt.Sprintf("%+.3f", d.Diff),
			fmt.Sprintf("%+.3f to %+.3f", d.Low, d.High), fmt.Sprint(d.Paired), fmt.Sprintf("%.3f", d.P), noise)
	}
	tb.write(w)
	fmt.Fprintf(w, "\n%d cases regressed, %d improved (paired bootstrap of the cases both have).\n", cmp.Regressed, cmp.Improved)
	for i, c := range cmp.Changed {
		if i == shownChanges {
			fmt.Fprintf(w, "… and %d more (--json has them all)\n", len(cmp.Changed)-i)
			break
		}
		how := "regressed"
		if c.Delta > 0 {
			how = "improved"
		}
		fmt.Fprintf(w, "  %s row %d, %s %s: %.3f → %.3f (run %s)\n", c.Variant, c.Row+1, c.Score, how, c.Base, c.Head, c.HeadRun)
	}
}

type evalsJSON struct{ w io.Writer }

func (v evalsJSON) List(rs []*state.EvalResult) error {
	type item struct {
		ID        string          `json:"id"`
		Eval      string          `json:"eval"`
		File      string          `json:"file"`
		Flow      string          `json:"flow"`
		StartedAt time.Time       `json:"started_at"`
		Summary   *result.Summary `json:"summary"`
	}
	out := make([]item, 0, len(rs))
	for _, r := range rs {
		out = append(out, item{r.ID, r.Eval, r.File, r.Flow, r.StartedAt.UTC(), r.Summary})
	}
	return json.NewEncoder(v.w).Encode(map[string]any{"results": out})
}

func (v evalsJSON) Show(r *state.EvalResult, cases Cases) error {
	enc := json.NewEncoder(v.w)
	if err := cases(func(c result.Case) error { return enc.Encode(map[string]any{"case": c}) }); err != nil {
		return err
	}
	return enc.Encode(map[string]any{"summary": r.Summarized()})
}

func (v evalsJSON) Compare(cmp *result.Comparison) error {
	return json.NewEncoder(v.w).Encode(cmp)
}
