package server

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
)

// The results of evaluations kept in the state (docs/serve.md,
// "Evaluations"): the latest of each eval with the history of its scores,
// and one results' summary with a page of its cases.

// evalHistory is how many results of an eval GET /v1/evals gives the
// history of, at most.
const evalHistory = 50

// apiEvalResult is a results' record: Summary is null while it runs.
type apiEvalResult struct {
	ID        string          `json:"id"`
	Eval      string          `json:"eval"`
	File      string          `json:"file"`
	Flow      string          `json:"flow"`
	StartedAt time.Time       `json:"started_at"`
	Summary   *result.Summary `json:"summary"`
}

func newAPIEvalResult(r *state.EvalResult) apiEvalResult {
	return apiEvalResult{ID: r.ID, Eval: r.Eval, File: r.File, Flow: r.Flow, StartedAt: r.StartedAt.UTC(), Summary: r.Summary}
}

// apiEvalPoint is a finished results' place in its eval's history: each
// variant's score means, by variant then score.
type apiEvalPoint struct {
	ID        string                        `json:"id"`
	StartedAt time.Time                     `json:"started_at"`
	Means     map[string]map[string]float64 `json:"means"`
	Held      bool                          `json:"held"`
}

// apiEval is an eval: its latest finished results and the history of its
// scores, oldest first.
type apiEval struct {
	Eval    string         `json:"eval"`
	Latest  apiEvalResult  `json:"latest"`
	History []apiEvalPoint `json:"history"`
}

// getEvals is every eval with results in the state (GET
// /v1/evals?eval=NAME&limit=N): its latest results and the history of its
// scores (the limit newest finished results, evalHistory by default).
func (s *Server) getEvals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := evalHistory
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxPage {
			writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("limit is a whole number from 1 to %d.", maxPage), nil, nil)
			return
		}
		limit = n
	}
	st, ctx, cancel := s.reads(r)
	defer cancel()
	latest, err := st.LatestEvals()
	if err != nil {
		s.readFailed(w, r, ctx, err)
		return
	}
	out := []apiEval{}
	for _, l := range latest {
		if name := q.Get("eval"); name != "" && name != l.Eval {
			continue
		}
		rs, err := st.EvalResults(l.Eval, limit)
		if err != nil {
			s.readFailed(w, r, ctx, err)
			return
		}
		e := apiEval{Eval: l.Eval, Latest: newAPIEvalResult(l), History: []apiEvalPoint{}}
		for _, x := range slices.Backward(rs) {
			if x.Summary == nil {
				continue // running, or interrupted
			}
			p := apiEvalPoint{ID: x.ID, StartedAt: x.StartedAt.UTC(), Means: map[string]map[string]float64{}, Held: x.Summary.Held()}
			for _, v := range x.Summary.Variants {
				p.Means[v.Name] = map[string]float64{}
				for name, st := range v.Scores {
					p.Means[v.Name][name] = st.Mean
				}
			}
			e.History = append(e.History, p)
		}
		out = append(out, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"evals": out})
}

// errPageFull stops the reading of cases once a page is full.
var errPageFull = errors.New("page full")

// getEval is one results' record and a page of its cases (GET
// /v1/evals/{id}?limit=&cursor=), by variant, row and repetition.
func (s *Server) getEval(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, ok := pageLimit(w, q)
	if !ok {
		return
	}
	skip := 0
	if c := q.Get("cursor"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "bad_request", "cursor is not a next_cursor this server gave.", nil, nil)
			return
		}
		skip = n
	}
	st, ctx, cancel := s.reads(r)
	defer cancel()
	res, err := st.EvalResult(r.PathValue("id"))
	switch {
	case errors.Is(err, state.ErrEvalNotFound):
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There are no evaluation results %q.", r.PathValue("id")), nil, nil)
		return
	case err != nil:
		s.readFailed(w, r, ctx, err)
		return
	}
	cases, seen := []result.Case{}, 0
	more := false
	err = st.EvalCases(res.ID, func(c result.Case) error {
		seen++
		switch {
		case seen <= skip:
			return nil
		case len(cases) == limit:
			more = true
			return errPageFull
		}
		cases = append(cases, c)
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		s.readFailed(w, r, ctx, err)
		return
	}
	body := map[string]any{"result": newAPIEvalResult(res), "cases": cases}
	if more {
		body["next_cursor"] = strconv.Itoa(skip + limit)
	}
	writeJSON(w, http.StatusOK, body)
}
