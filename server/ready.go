package server

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Liveness and readiness. GET /healthz says the process serves; GET
// /readyz says whether it can run flows now: the state answers, and the
// engine (Temporal) when the runs run on one. While the state does not
// answer, the server starts no queued run and refuses new ones with 503
// and Retry-After, rather than accepting them and failing them: a
// watcher looks every readyEvery and wakes the queue when the state is
// back.

const (
	// readyEvery is how often the state is looked at.
	readyEvery = time.Second
	// readyTimeout bounds one look.
	readyTimeout = 2 * time.Second
	// retryAfter is the Retry-After of a start refused while the state does
	// not answer.
	retryAfter = 5 * time.Second
)

// A Checker is a dependency whose readiness /readyz reports (an Engine
// may be one).
type Checker interface {
	Ready(ctx context.Context) error
}

// readiness is what the watcher last saw of the state.
type readiness struct {
	mu      sync.Mutex
	stateOK bool
	checked time.Time
}

// stateReady reports whether the state answered when last looked at. A
// state that did not is looked at again now (a start must not wait for the
// watcher to see it back), at most once every readyEvery.
func (s *Server) stateReady(ctx context.Context) bool {
	s.ready.mu.Lock()
	ok, stale := s.ready.stateOK, time.Since(s.ready.checked) >= readyEvery
	s.ready.mu.Unlock()
	if ok || !stale {
		return ok
	}
	return s.checkState(ctx)
}

// checkState looks at the state, records what it saw, logs a change, and
// wakes the queue when the state is back.
func (s *Server) checkState(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	err := s.store.Ready(ctx)
	s.ready.mu.Lock()
	was := s.ready.stateOK
	s.ready.stateOK, s.ready.checked = err == nil, time.Now()
	s.ready.mu.Unlock()
	switch {
	case err != nil && was:
		s.log.Error("the state does not answer: no run starts until it does", slog.Any("error", err))
	case err == nil && !was:
		s.log.Info("the state answers again")
		s.mu.Lock()
		s.dispatchLocked()
		s.mu.Unlock()
	}
	return err == nil
}

// watchState looks at the state every readyEvery until the server
// closes.
func (s *Server) watchState() {
	t := time.NewTicker(readyEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.checkState(s.ctx)
		}
	}
}

// stateIsReady is the last thing seen, without looking again (for the
// dispatcher, which holds the server's lock).
func (s *Server) stateIsReady() bool {
	s.ready.mu.Lock()
	defer s.ready.mu.Unlock()
	return s.ready.stateOK
}

// getReadyz answers 200 when the state (and the engine, when there is one
// that can say) answer, 503 otherwise; what failed is logged, not told.
func (s *Server) getReadyz(w http.ResponseWriter, r *http.Request) {
	checks := map[string]string{}
	ready := true
	if s.checkState(r.Context()) {
		checks["state"] = "ok"
	} else {
		checks["state"] = "unreachable"
		ready = false
	}
	if c, ok := s.opts.Engine.(Checker); ok {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		err := c.Ready(ctx)
		cancel()
		if err == nil {
			checks["engine"] = "ok"
		} else {
			checks["engine"] = "unreachable"
			ready = false
			s.log.Error("the engine does not answer", slog.Any("error", err))
		}
	}
	if !ready {
		w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unready", "checks": checks})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
}
