package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
)

// TestEvalResults: an evaluation's cases are written as they come, a
// batch at a time (none held past evalBatch), read back in order with
// every field, the summary kept once it ends; results are listed newest
// first, found by ID prefix, and the latest finished one of an eval (and
// of each eval) is found. Runs on both backends.
func TestEvalResults(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1_800_000_000, 0)
	w, err := s.NewEvalResult(&EvalResult{Eval: "triage", File: "triage.eval.hcl", Flow: "triage", StartedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	n := evalBatch + 7
	for i := range n {
		row := n - 1 - i // in no order
		c := result.Case{Eval: "triage", Variant: []string{"base", "short"}[row%2], Row: row, Repeat: 0,
			Inputs: json.RawMessage(fmt.Sprintf(`{"ticket":"t%d"}`, row)), Outputs: json.RawMessage(`{"category":"bug"}`),
			RunID: fmt.Sprintf("run%d", row), Scores: []result.Score{{Name: "category", Value: 1, Pass: true}, {Name: "reply", Value: 0.75, Reason: "polite"}},
			Tokens: 12, CostUSD: 0.000125, Duration: 3 * time.Millisecond, Cached: row%3 == 0}
		if row == 4 {
			c.Error, c.Outputs, c.Scores = "model refused", nil, []result.Score{{Name: "category", Error: "no output"}}
		}
		if err := w.Case(c); err != nil {
			t.Fatal(err)
		}
		if len(w.pending) >= evalBatch {
			t.Fatalf("the writer holds %d cases", len(w.pending))
		}
	}
	// Before the summary, the first batch is written already.
	count := 0
	if err := s.EvalCases(w.ID(), func(result.Case) error { count++; return nil }); err != nil || count != evalBatch {
		t.Fatalf("before the summary: %d cases, %v", count, err)
	}
	if r, err := s.LatestEval("triage"); err != nil || r != nil {
		t.Fatalf("an unfinished evaluation is the latest: %+v, %v", r, err)
	}
	if err := w.Summary(result.Summary{Eval: "triage", File: "triage.eval.hcl", Flow: "triage", StartedAt: t0,
		Variants: []result.Variant{{Name: "base", Cases: n / 2, Scores: map[string]result.Stat{"category": {Mean: 0.9, Low: 0.8, High: 1, N: n / 2}}}}}); err != nil {
		t.Fatal(err)
	}
	var got []result.Case
	if err := s.EvalCases(w.ID(), func(c result.Case) error { got = append(got, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != n || got[0].Variant != "base" || got[0].Row != 0 || got[1].Row != 2 || got[n/2+1].Variant != "short" {
		t.Fatalf("%d cases, first %+v", len(got), got[0])
	}
	c := got[0]
	if c.Eval != "triage" || string(c.Inputs) != `{"ticket":"t0"}` || string(c.Outputs) != `{"category":"bug"}` || c.RunID != "run0" ||
		c.Tokens != 12 || c.CostUSD != 0.000125 || c.Duration != 3*time.Millisecond || !c.Cached || len(c.Scores) != 2 || c.Scores[1].Reason != "polite" || c.Scores[1].Value != 0.75 {
		t.Errorf("case read back: %+v", c)
	}
	if e := got[2]; e.Row != 4 || e.Error != "model refused" || e.Outputs != nil || e.Scores[0].Error != "no output" {
		t.Errorf("failed case read back: %+v", e)
	}

	// A later one, and one of another eval.
	// An ID of its own: two made at once may differ in their last
	// characters only, and w is looked up by prefix.
	w2, err := s.NewEvalResult(&EvalResult{ID: "zzzzzzzzzzzzzzzz", Eval: "triage", File: "triage.eval.hcl", Flow: "triage", StartedAt: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Summary(result.Summary{Eval: "triage"}); err != nil {
		t.Fatal(err)
	}
	w3, err := s.NewEvalResult(&EvalResult{ID: "xxxxxxxxxxxxxxxx", Eval: "answers", File: "a.eval.hcl", Flow: "qa", StartedAt: t0.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w3.Summary(result.Summary{Eval: "answers"}); err != nil {
		t.Fatal(err)
	}
	all, err := s.EvalResults("", 0)
	if err != nil || len(all) != 3 || all[0].ID != w2.ID() || all[2].ID != w3.ID() {
		t.Fatalf("all results: %v, %v", all, err)
	}
	mine, err := s.EvalResults("triage", 1)
	if err != nil || len(mine) != 1 || mine[0].ID != w2.ID() {
		t.Fatalf("triage's newest: %v, %v", mine, err)
	}
	r, err := s.EvalResult(w.ID()[:len(w.ID())-2])
	if err != nil || r.ID != w.ID() || r.Summary == nil || r.Summary.ID != w.ID() || r.Summary.Variants[0].Scores["category"].Low != 0.8 || !r.StartedAt.Equal(t0) {
		t.Fatalf("by prefix: %+v, %v", r, err)
	}
	if _, err := s.EvalResult("yyyyyy"); !errors.Is(err, ErrEvalNotFound) {
		t.Errorf("unknown ID: %v", err)
	}
	if err := s.EvalCases("nope", func(result.Case) error { return nil }); !errors.Is(err, ErrEvalNotFound) {
		t.Errorf("cases of an unknown ID: %v", err)
	}
	if r, err := s.LatestEval("triage"); err != nil || r == nil || r.ID != w2.ID() {
		t.Errorf("latest of triage: %+v, %v", r, err)
	}
	latest, err := s.LatestEvals()
	if err != nil || len(latest) != 2 || latest[0].Eval != "answers" || latest[1].ID != w2.ID() {
		t.Errorf("latest of each: %v, %v", latest, err)
	}
}
