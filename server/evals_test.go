package server

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
)

// TestEvals: GET /v1/evals gives each eval's latest finished results and
// the history of its scores, oldest first (an unfinished one left out);
// GET /v1/evals/ID gives the results and their cases a page at a time;
// both need the read role; an unknown ID is 404.
func TestEvals(t *testing.T) {
	list, err := ParseTokens("tokens", []byte("reader read read-token-00000001\nrunner run run-token-000000001\n"))
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, files{}, func(o *Options) { o.Tokens = NewTokens(list, true) })
	t0 := time.Now().Add(-time.Hour)
	var ids []string
	for i, mean := range []float64{0.5, 0.75, 1} {
		w, err := ts.store.NewEvalResult(&state.EvalResult{Eval: "triage", File: "triage.eval.hcl", Flow: "triage", StartedAt: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		for row := range 3 {
			if err := w.Case(result.Case{Variant: "baseline", Row: row, Inputs: json.RawMessage(fmt.Sprintf(`{"n":%d}`, row)), Scores: []result.Score{{Name: "exact", Value: mean}}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Summary(result.Summary{Eval: "triage", Flow: "triage", Variants: []result.Variant{{Name: "baseline", Cases: 3, Scores: map[string]result.Stat{"exact": {Mean: mean}}}}}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID())
	}
	if _, err := ts.store.NewEvalResult(&state.EvalResult{Eval: "triage", StartedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err) // running: in no history
	}

	ts.token = "run-token-000000001"
	if code := ts.code("GET", "/v1/evals", "", nil); code != 403 {
		t.Errorf("GET /v1/evals without the read role: %d", code)
	}
	ts.token = "read-token-00000001"
	var evals struct {
		Evals []struct {
			Eval   string `json:"eval"`
			Latest struct {
				ID      string          `json:"id"`
				Summary *result.Summary `json:"summary"`
			} `json:"latest"`
			History []struct {
				ID    string                        `json:"id"`
				Means map[string]map[string]float64 `json:"means"`
			} `json:"history"`
		} `json:"evals"`
	}
	if code := ts.code("GET", "/v1/evals", "", &evals); code != 200 || len(evals.Evals) != 1 {
		t.Fatalf("GET /v1/evals: %d %+v", code, evals)
	}
	e := evals.Evals[0]
	if e.Latest.ID != ids[2] || e.Latest.Summary == nil || len(e.History) != 3 || e.History[0].ID != ids[0] || e.History[2].Means["baseline"]["exact"] != 1 || e.History[1].Means["baseline"]["exact"] != 0.75 {
		t.Errorf("evals %+v", e)
	}
	var one struct {
		Result struct {
			ID string `json:"id"`
		} `json:"result"`
		Cases      []result.Case `json:"cases"`
		NextCursor string        `json:"next_cursor"`
	}
	if code := ts.code("GET", "/v1/evals/"+ids[1]+"?limit=2", "", &one); code != 200 || one.Result.ID != ids[1] || len(one.Cases) != 2 || one.NextCursor != "2" || one.Cases[1].Row != 1 {
		t.Fatalf("GET /v1/evals/ID: %d %+v", code, one)
	}
	one.Cases, one.NextCursor = nil, ""
	if code := ts.code("GET", "/v1/evals/"+ids[1]+"?limit=2&cursor=2", "", &one); code != 200 || len(one.Cases) != 1 || one.NextCursor != "" || one.Cases[0].Row != 2 || one.Cases[0].Scores[0].Value != 0.75 {
		t.Errorf("the second page: %d %+v", code, one)
	}
	if code := ts.code("GET", "/v1/evals/nosuchresults", "", nil); code != 404 {
		t.Errorf("an unknown ID: %d", code)
	}
}
