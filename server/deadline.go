package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
)

// Every request has a deadline: requestTimeout, but for the event streams
// (which last as long as their runs) and explain (which waits for a
// model). A request's reads of the state have readTimeout of it
// (Server.reads): a state that does not answer them in that time
// (stopped, partitioned: a connection to it would take minutes to time
// out) is answered 503 state_unavailable with Retry-After, as a start is
// while the state does not answer.
const (
	requestTimeout = time.Minute
	readTimeout    = 5 * time.Second
)

// withDeadline gives a request its deadline.
func withDeadline(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/events") ||
			r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/explain") {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// reads is the state as a request reads it: its reads end after
// readTimeout, or with the request. cancel ends them.
func (s *Server) reads(r *http.Request) (*state.Store, context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(r.Context(), readTimeout)
	return s.store.Within(ctx), ctx, cancel
}

// readFailed answers a request whose read of the state (with ctx, from
// reads) failed: 503 state_unavailable with Retry-After when the state did
// not answer in time, or could not be reached, else 500.
func (s *Server) readFailed(w http.ResponseWriter, r *http.Request, ctx context.Context, err error) {
	if r.Context().Err() != nil {
		return // the client has gone
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || state.Unreachable(err) {
		s.log.Warn("request refused: the state does not answer", slog.String("request_id", requestID(r.Context())), slog.Any("error", err))
		w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
		writeError(w, http.StatusServiceUnavailable, "state_unavailable", "The state does not answer now: the run cannot be read. Try again later.", nil, nil)
		return
	}
	s.internalError(w, r, err)
}
