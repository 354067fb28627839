package server

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

// getEvents streams a run's events as Server-Sent Events: those after
// Last-Event-ID (or ?after=N) first, then the new ones as they come, until
// the run has finished, or a rotation of the tokens has revoked the
// request's.
func (s *Server) getEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	after := int64(0)
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "bad_request", "Last-Event-ID and after are event numbers.", nil, nil)
			return
		}
		after = n
	}
	lr := s.liveRun(id)
	if lr == nil {
		if run, err := s.store.Run(id); err != nil || run == nil {
			writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
			return
		}
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(evs []state.Event) {
		for _, e := range evs {
			fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, e.Data)
			after = e.Seq
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	if lr != nil && after < lr.base {
		// A run resumed after a restart: its earlier events are in the
		// state only.
		if evs, err := s.store.Events(id, after, int(lr.base-after)); err == nil {
			send(evs)
		}
	}
	ctx, cancel := s.opts.Tokens.untilRevoked(r, RoleRead)
	defer cancel()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	stopping := s.stopping
	for {
		if ctx.Err() != nil {
			return // no event after a revocation
		}
		if lr == nil {
			// A finished run: everything is in the state.
			evs, err := s.store.Events(id, after, 0)
			if err == nil {
				send(evs)
			}
			return
		}
		evs, done, changed := lr.since(after)
		send(evs)
		if done {
			// Every event of a run that ended (or never started) went
			// through lr, after those an earlier server recorded (sent
			// above): the stream has them all, without reading them
			// again from the state (a query per run).
			return
		}
		select {
		case <-changed:
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			if flusher != nil {
				flusher.Flush()
			}
		case <-ctx.Done():
			return // the client went, or its token was revoked
		case <-stopping:
			lr.mu.Lock()
			waiting := lr.status == string(runtime.StatusWaiting)
			lr.mu.Unlock()
			if waiting {
				return // the run goes on in the next server
			}
			stopping = nil // a running run's stream ends with it
		}
	}
}
