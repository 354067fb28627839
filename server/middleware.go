package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"time"
)

// Every request gets an ID (the X-Request-Id header of its reply), is
// logged when it ends (method, path, status, duration: never a header,
// a query or a body, which may hold tokens), and an error the client
// cannot act on answers with a generic message and the request's ID while
// the log says what happened.

type ctxKey int

const requestIDKey ctxKey = iota

// requestID is the ID of the request of ctx, "" outside of one.
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// newRequestID is 16 random hex digits.
func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter remembers the status of a reply. It passes Flush on, for
// event streams, and Unwrap gives http.ResponseController the writer
// beneath.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests gives each request an ID and logs it when it ends.
func (s *Server) logRequests(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := newRequestID()
		w.Header().Set("X-Request-Id", id)
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		h.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", sw.status), durationMS(time.Since(start)))
	})
}

// internalError answers a request that failed for a reason of the
// server's own (the state, an engine) with 500, a message that holds no
// detail but the request's ID, and logs the error.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, err error) {
	s.failed(w, r, http.StatusInternalServerError, "internal", err)
}

// failed answers with status and code, a generic message and the request's
// ID, and logs err.
func (s *Server) failed(w http.ResponseWriter, r *http.Request, status int, code string, err error) {
	id := requestID(r.Context())
	s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
		slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
	var e apiError
	e.Error.Code = code
	e.Error.Message = "The server could not answer this request; its log says why, under request ID " + id + "."
	e.Error.RequestID = id
	writeJSON(w, status, e)
}

// durationMS is a duration as the log gives it: duration_ms, in
// milliseconds (to the microsecond), in both formats; slog's own would be
// nanoseconds in JSON.
func durationMS(d time.Duration) slog.Attr {
	return slog.Float64("duration_ms", float64(d.Microseconds())/1000)
}
