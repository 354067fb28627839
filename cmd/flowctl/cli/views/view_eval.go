package views

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/hashicorp/hcl/v2"
)

// Eval renders the outcome of flowctl eval: it is the sink of the cases
// as they finish (result.Sink). For people it prints each eval's summary
// at its end; with --json, one line a case as it finishes, then a line of
// the summary.
type Eval struct {
	w      io.Writer
	json   bool
	wd     string
	repeat int // --repeat: pass^k is shown above 1
	mu     sync.Mutex
	failed bool // a gate failed
	// firstErr is, by eval and variant, the error of its first case
	// whose run failed, shown under the variant.
	firstErr map[[2]string]string
	cmp      *result.Comparison // the comparison with the baseline, shown with the summary
}

var _ result.Sink = (*Eval)(nil)

// NewEval returns the view of flowctl eval, showing files relative to the
// working directory wd; repeat is --repeat.
func NewEval(w io.Writer, jsonOut bool, wd string, repeat int) *Eval {
	return &Eval{w: w, json: jsonOut, wd: wd, repeat: repeat, firstErr: map[[2]string]string{}}
}

type jsonEvalCase struct {
	Type string `json:"type"` // "case"
	result.Case
}

type jsonEvalSummary struct {
	Type string `json:"type"` // "summary"
	result.Summary
	Held bool `json:"held"`
}

func (v *Eval) line(x any) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	_, err = v.w.Write(append(b, '\n'))
	return err
}

// Case prints a finished case (with --json only).
func (v *Eval) Case(c result.Case) error {
	if !v.json {
		k := [2]string{c.Eval, c.Variant}
		v.mu.Lock()
		if _, ok := v.firstErr[k]; !ok && c.Error != "" {
			v.firstErr[k] = fmt.Sprintf("row %d: %s", c.Row+1, c.Error)
		}
		v.mu.Unlock()
		return nil
	}
	return v.line(jsonEvalCase{Type: "case", Case: c})
}

// Summary prints an eval's summary: per variant each score's mean with
// its interval and pass rate (pass^k under --repeat), tokens, cost and
// time, then the gates' verdicts.
func (v *Eval) Summary(s result.Summary) error {
	v.failed = v.failed || !s.Held()
	if v.json {
		return v.line(jsonEvalSummary{Type: "summary", Summary: s, Held: s.Held()})
	}
	var b strings.Builder
	file := s.File
	if rel, err := filepath.Rel(v.wd, file); err == nil && !strings.HasPrefix(rel, "..") {
		file = rel
	}
	cases := 0
	for _, vr := range s.Variants {
		cases += vr.Cases
	}
	fmt.Fprintf(&b, "Eval %q (%s, flow %q): %s, %s, %s\n", s.Eval, file, s.Flow,
		Plural(cases, "case", "cases"), Plural(len(s.Variants), "variant", "variants"), s.Duration.Round(time.Millisecond))
	for _, vr := range s.Variants {
		fmt.Fprintf(&b, "\n%s: %s", vr.Name, Plural(vr.Cases, "case", "cases"))
		if vr.Cached > 0 {
			fmt.Fprintf(&b, " (%d cached)", vr.Cached)
		}
		if vr.Errors > 0 {
			fmt.Fprintf(&b, ", %s", Plural(vr.Errors, "failed run", "failed runs"))
		}
		fmt.Fprintf(&b, ", %s, $%.4f, %s\n", Plural(int(vr.Tokens), "token", "tokens"), vr.CostUSD, vr.Duration.Round(time.Millisecond))
		if e := v.firstErr[[2]string{s.Eval, vr.Name}]; e != "" {
			fmt.Fprintf(&b, "  first failed run, %s\n", strings.TrimSpace(e))
		}
		names := make([]string, 0, len(vr.Scores))
		width := 0
		for n := range vr.Scores {
			names = append(names, n)
			width = max(width, len(n))
		}
		sort.Strings(names)
		for _, n := range names {
			st := vr.Scores[n]
			fmt.Fprintf(&b, "  %-*s  %.3f  [%.3f, %.3f]  pass %3.0f%%", width, n, st.Mean, st.Low, st.High, 100*st.PassRate)
			if v.repeat > 1 {
				fmt.Fprintf(&b, "  pass^k %3.0f%%", 100*st.PassK)
			}
			b.WriteByte('\n')
		}
	}
	if v.cmp != nil {
		fmt.Fprintf(&b, "\nAgainst the baseline %s:\n", v.cmp.Base)
		writeComparison(&b, v.cmp)
		v.cmp = nil
	}
	if len(s.Gates) > 0 {
		b.WriteString("\nGates:\n")
		for _, g := range s.Gates {
			mark := "held"
			if !g.Held {
				mark = "FAILED"
			}
			var bounds []string
			if g.Min != nil {
				bounds = append(bounds, fmt.Sprintf("min %g", *g.Min))
			}
			if g.MaxRegression != nil {
				bounds = append(bounds, fmt.Sprintf("max_regression %g", *g.MaxRegression))
			}
			who := "every variant"
			if g.Variant != "" {
				who = "variant " + g.Variant
			}
			fmt.Fprintf(&b, "  %s: %s, %s (%s)", mark, g.Score, strings.Join(bounds, ", "), who)
			if g.Reason != "" {
				fmt.Fprintf(&b, ": %s", g.Reason)
			}
			b.WriteByte('\n')
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	_, err := io.WriteString(v.w, b.String())
	return err
}

// Done returns the command's error: ErrReported (exit 1) when a gate
// failed.
func (v *Eval) Done() error {
	if v.failed {
		return ErrReported
	}
	return nil
}

// EvalNotRun is the line after the diagnostics of evals that do not run:
// their errors, or that path holds none.
func EvalNotRun(diags hcl.Diagnostics, path string) string {
	if errs, _ := CountDiags(diags); errs > 0 {
		return fmt.Sprintf("Eval failed: %s.", Plural(errs, "error", "errors"))
	}
	return fmt.Sprintf("No eval (*.eval.hcl) in %s.", path)
}
