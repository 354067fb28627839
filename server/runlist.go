package server

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
)

// GET /v1/runs lists the runs a page at a time, newest first: the runs
// queued in this server, or starting (in its memory, not yet in the
// state) first, then
// the state's, by start time and ID. A page costs the page: the state's
// part is one query on an index of its filters (state.RunPage) from where
// the last page ended, and the approvals its waiting runs wait for one
// more; only the queue, which --max-queue bounds, is looked at whole (and
// sorted: a few microseconds for the default's 10,000).

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

// A runCursor is where a page of runs ended: in the queue (at a run queued
// at a time) or in the state (at a state.RunKey; at its start when the
// key's ID is ""). It travels as an opaque string: q or s, the time in
// unix nanoseconds, and the run's ID.
type runCursor struct {
	queued bool
	key    state.RunKey
}

func (c runCursor) String() string {
	kind, t := "s", "0"
	if c.queued {
		kind = "q"
	}
	if c.key.ID != "" {
		t = strconv.FormatInt(c.key.StartedAt.UnixNano(), 10)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(kind + t + ":" + c.key.ID))
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
	return &runCursor{queued: b[0] == 'q', key: state.RunKey{StartedAt: time.Unix(0, n), ID: id}}, true
}

func (s *Server) getRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := state.RunFilter{Flow: q.Get("flow"), Namespace: q.Get("namespace"), Status: q.Get("status")}
	limit := defaultPage
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxPage {
			writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("limit is a whole number from 1 to %d.", maxPage), nil, nil)
			return
		}
		limit = n
	}
	cur, ok := parseCursor(q.Get("cursor"))
	if !ok {
		writeError(w, http.StatusBadRequest, "bad_request", "cursor is not a next_cursor this server gave.", nil, nil)
		return
	}
	out := []runSummary{}
	var next *runCursor
	if cur == nil || cur.queued {
		out, next = s.queuedPage(f, cur, limit)
	}
	inState := f.Status != statusQueued
	if next == nil && len(out) == limit && inState && (cur == nil || cur.queued) {
		next = &runCursor{} // the queue is done: the state's runs from the newest
	} else if next == nil && len(out) < limit && inState {
		var after *state.RunKey
		if cur != nil && !cur.queued && cur.key.ID != "" {
			after = &cur.key
		}
		runs, key, err := s.store.RunPage(r.Context(), f, after, limit-len(out))
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		var waiting []string
		inMemory := map[string]bool{}
		for _, rs := range out {
			inMemory[rs.RunID] = true
		}
		for _, run := range runs {
			if inMemory[run.ID] {
				continue // starting: listed already
			}
			out = append(out, runSummary{RunID: run.ID, Flow: run.Flow, Namespace: run.Namespace, Status: run.Status,
				StartedAt: api.Time(run.StartedAt), FinishedAt: api.Time(run.FinishedAt), Links: api.RunLinks(run.ID)})
			if run.Status == string(runtime.StatusWaiting) {
				waiting = append(waiting, run.ID)
			}
		}
		if err := s.addWaitingFor(out, waiting); err != nil {
			s.internalError(w, r, err)
			return
		}
		if key != nil {
			next = &runCursor{key: *key}
		}
	}
	body := map[string]any{"runs": out}
	if next != nil {
		body["next_cursor"] = next.String()
	}
	writeJSON(w, http.StatusOK, body)
}

// queuedPage is the part of a page in this server's memory: the queued
// runs and those starting, which the state does not have yet, that f
// chooses, newest first, after cur, at most limit; and the cursor of the
// next page when there are more.
func (s *Server) queuedPage(f state.RunFilter, cur *runCursor, limit int) ([]runSummary, *runCursor) {
	s.mu.Lock()
	type item struct {
		lr     *liveRun
		status string
	}
	items := make([]item, 0, len(s.queue)+len(s.starting))
	for _, lr := range s.queue {
		if !lr.resume { // else the state has it
			items = append(items, item{lr, statusQueued})
		}
	}
	for _, lr := range s.starting {
		items = append(items, item{lr, statusRunning})
	}
	s.mu.Unlock()
	slices.SortFunc(items, func(a, b item) int { // newest first
		if c := b.lr.queuedAt.Compare(a.lr.queuedAt); c != 0 {
			return c
		}
		return strings.Compare(b.lr.id, a.lr.id)
	})
	out := []runSummary{}
	var last *liveRun
	for _, it := range items {
		lr := it.lr
		if f.Flow != "" && lr.flow != f.Flow || f.Namespace != "" && nsOf(lr.namespace) != f.Namespace || f.Status != "" && f.Status != it.status {
			continue
		}
		if cur != nil && !queuedBefore(lr, cur.key) {
			continue
		}
		if len(out) == limit {
			return out, &runCursor{queued: true, key: state.RunKey{StartedAt: last.queuedAt, ID: last.id}}
		}
		out = append(out, runSummary{RunID: lr.id, Flow: lr.flow, Namespace: nsOf(lr.namespace), Status: it.status, Links: api.RunLinks(lr.id)})
		last = lr
	}
	return out, nil
}

// queuedBefore reports whether lr comes after key in the list, newest
// first: queued before it, or at the same time with a smaller ID.
func queuedBefore(lr *liveRun, key state.RunKey) bool {
	return lr.queuedAt.Before(key.StartedAt) || lr.queuedAt.Equal(key.StartedAt) && lr.id < key.ID
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
func (s *Server) addWaitingFor(page []runSummary, waiting []string) error {
	if len(waiting) == 0 {
		return nil
	}
	open, err := s.store.OpenApprovals(waiting)
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
