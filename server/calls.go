package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state"
)

// The model calls of a run (docs/serve.md, "Model calls"): a page of them
// with their large texts capped, and one call whole.

// maxListedText is how much of a message or a reply a page of calls
// shows; the call's own view has all of it.
const maxListedText = 2000

// apiCall is a model call as the API shows it: its number, step and
// instance, and the call as recorded (blocks.ModelCall).
type apiCall struct {
	Seq      int64  `json:"seq"`
	Step     string `json:"step"`
	Instance string `json:"instance"`
	blocks.ModelCall
	// Truncated: a text was cut to maxListedText characters in a page.
	Truncated bool `json:"truncated,omitempty"`
}

// newAPICall decodes a recorded call; capped cuts its texts for a page.
func newAPICall(c state.Call, capped bool) (apiCall, error) {
	out := apiCall{Seq: c.Seq, Step: c.Step, Instance: c.Instance}
	if err := json.Unmarshal(c.Data, &out.ModelCall); err != nil {
		return out, fmt.Errorf("model call %d of run %s: %w", c.Seq, c.RunID, err)
	}
	if !capped {
		return out, nil
	}
	cut := func(s *string) {
		if r := []rune(*s); len(r) > maxListedText {
			*s = string(r[:maxListedText]) + "…"
			out.Truncated = true
		}
	}
	for i := range out.Request.Messages {
		cut(&out.Request.Messages[i].Content)
	}
	if out.Response != nil {
		text := *out.Response
		cut(&text)
		out.Response = &text
	}
	return out, nil
}

// getCalls is a page of a run's model calls (GET
// /v1/runs/{id}/calls?step=&limit=&cursor=), in the order they were made.
func (s *Server) getCalls(w http.ResponseWriter, r *http.Request) {
	id, q := r.PathValue("id"), r.URL.Query()
	limit, ok := pageLimit(w, q)
	if !ok {
		return
	}
	var after int64
	if c := q.Get("cursor"); c != "" {
		n, err := strconv.ParseInt(c, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "bad_request", "cursor is not a next_cursor this server gave.", nil, nil)
			return
		}
		after = n
	}
	st, ctx, cancel := s.reads(r)
	defer cancel()
	if !s.runExists(w, r, st, ctx, id) {
		return
	}
	calls, err := st.Calls(id, q.Get("step"), after, limit+1)
	if err != nil {
		s.readFailed(w, r, ctx, err)
		return
	}
	body := map[string]any{}
	if len(calls) > limit {
		calls = calls[:limit]
		body["next_cursor"] = strconv.FormatInt(calls[limit-1].Seq, 10)
	}
	out := make([]apiCall, 0, len(calls))
	for _, c := range calls {
		ac, err := newAPICall(c, true)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "internal", err.Error(), nil, nil)
			return
		}
		out = append(out, ac)
	}
	body["calls"] = out
	writeJSON(w, http.StatusOK, body)
}

// getCall is one model call of a run, whole (GET /v1/runs/{id}/calls/{seq}).
func (s *Server) getCall(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	seq, err := strconv.ParseInt(r.PathValue("seq"), 10, 64)
	if err != nil || seq < 1 {
		writeError(w, http.StatusBadRequest, "bad_request", "A call's number is a whole number from 1.", nil, nil)
		return
	}
	st, ctx, cancel := s.reads(r)
	defer cancel()
	if !s.runExists(w, r, st, ctx, id) {
		return
	}
	calls, err := st.Calls(id, "", seq-1, 1)
	if err != nil {
		s.readFailed(w, r, ctx, err)
		return
	}
	if len(calls) == 0 || calls[0].Seq != seq {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("Run %s has no model call %d.", id, seq), nil, nil)
		return
	}
	ac, err := newAPICall(calls[0], false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", err.Error(), nil, nil)
		return
	}
	writeJSON(w, http.StatusOK, ac)
}

// runExists answers 404 when there is no run id, or the error of reading
// it, and reports whether there is.
func (s *Server) runExists(w http.ResponseWriter, r *http.Request, st *state.Store, ctx context.Context, id string) bool {
	_, err := st.Run(id)
	switch {
	case errors.Is(err, state.ErrRunNotFound):
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return false
	case err != nil:
		s.readFailed(w, r, ctx, err)
		return false
	}
	return true
}
