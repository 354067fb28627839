package server

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
)

// GET /v1/runs lists the runs a page at a time, newest first, by start
// time (the time it was accepted, for a run that has not started) and
// ID: every run a server accepted is in the state, queued until it
// starts. A page costs the page: one query on an index of its filters
// (state.RunPage) from where the last page ended, and the approvals its
// waiting runs wait for one more.

// runSummary is a run in GET /v1/runs.
type runSummary struct {
	RunID      string            `json:"run_id"`
	Flow       string            `json:"flow"`
	Namespace  string            `json:"namespace"`
	Status     string            `json:"status"`
	StartedAt  *string           `json:"started_at"`
	FinishedAt *string           `json:"finished_at"`
	Links      map[string]string `json:"links"`
	// WaitingFor, for a waiting run, are the approval steps it waits for.
	WaitingFor []waitingForJSON `json:"waiting_for,omitempty"`
}

type waitingForJSON struct {
	Step     string `json:"step"`
	Instance string `json:"instance,omitempty"`
	Message  string `json:"message"`
}

// defaultPage and maxPage bound GET /v1/runs's limit.
const (
	defaultPage = 50
	maxPage     = 1000
)

// A runCursor is where a page of runs ended, at a state.RunKey (at its
// start when the key's ID is ""). It travels as an opaque string: s (q in
// the cursors of servers that kept their queues in memory, read as s),
// the time in unix nanoseconds, and the run's ID.
type runCursor struct {
	key state.RunKey
}

func (c runCursor) String() string {
	t := "0"
	if c.key.ID != "" {
		t = strconv.FormatInt(c.key.StartedAt.UnixNano(), 10)
	}
	return base64.RawURLEncoding.EncodeToString([]byte("s" + t + ":" + c.key.ID))
}

func parseCursor(s string) (*runCursor, bool) {
	if s == "" {
		return nil, true
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 2 || (b[0] != 'q' && b[0] != 's') {
		return nil, false
	}
	t, id, ok := strings.Cut(string(b[1:]), ":")
	n, err := strconv.ParseInt(t, 10, 64)
	if !ok || err != nil || id == "" && b[0] == 'q' {
		return nil, false
	}
	return &runCursor{key: state.RunKey{StartedAt: time.Unix(0, n), ID: id}}, true
}

// pageLimit reads a page's ?limit= (defaultPage when absent), or answers
// 400 and reports false.
func pageLimit(w http.ResponseWriter, q url.Values) (int, bool) {
	l := q.Get("limit")
	if l == "" {
		return defaultPage, true
	}
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > maxPage {
		writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("limit is a whole number from 1 to %d.", maxPage), nil, nil)
		return 0, false
	}
	return n, true
}

func (s *Server) getRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := state.RunFilter{Flow: q.Get("flow"), Namespace: q.Get("namespace"), Status: q.Get("status")}
	limit, ok := pageLimit(w, q)
	if !ok {
		return
	}
	cur, ok := parseCursor(q.Get("cursor"))
	if !ok {
		writeError(w, http.StatusBadRequest, "bad_request", "cursor is not a next_cursor this server gave.", nil, nil)
		return
	}
	out := []runSummary{}
	var next *runCursor
	var after *state.RunKey
	if cur != nil && cur.key.ID != "" {
		after = &cur.key
	}
	st, ctx, cancel := s.reads(r)
	defer cancel()
	runs, key, err := st.RunPage(ctx, f, after, limit)
	if err != nil {
		s.readFailed(w, r, ctx, err)
		return
	}
	var waiting []string
	for _, run := range runs {
		out = append(out, runSummary{RunID: run.ID, Flow: run.Flow, Namespace: run.Namespace, Status: run.Status,
			StartedAt: api.Time(run.StartedAt), FinishedAt: api.Time(run.FinishedAt), Links: api.RunLinks(run.ID)})
		if run.Status == string(runtime.StatusWaiting) {
			waiting = append(waiting, run.ID)
		}
	}
	if err := addWaitingFor(st, out, waiting); err != nil {
		s.readFailed(w, r, ctx, err)
		return
	}
	if key != nil {
		next = &runCursor{key: *key}
	}
	body := map[string]any{"runs": out}
	if next != nil {
		body["next_cursor"] = next.String()
	}
	writeJSON(w, http.StatusOK, body)
}

// nsOf is a run's namespace as the state has it.
func nsOf(ns string) string {
	if ns == "" {
		return state.DefaultNamespace
	}
	return ns
}

// addWaitingFor fills in what the waiting runs of a page wait for, with
// one query.
func addWaitingFor(st *state.Store, page []runSummary, waiting []string) error {
	if len(waiting) == 0 {
		return nil
	}
	open, err := st.OpenApprovals(waiting)
	if err != nil {
		return err
	}
	for i := range page {
		for _, a := range open[page[i].RunID] {
			page[i].WaitingFor = append(page[i].WaitingFor, waitingForJSON{Step: a.Step, Instance: a.Instance, Message: a.Message})
		}
	}
	return nil
}
