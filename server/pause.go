package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
)

// POST /v1/runs/{id}/pause pauses a run that has not finished: the steps
// running finish, and no step starts until POST /v1/runs/{id}/resume.
// The pause is in the state (state.Store.PauseRun), so it holds for a run
// another server runs, and across restarts.

func (s *Server) postPause(w http.ResponseWriter, r *http.Request) {
	run, ok := s.runToPause(w, r)
	if !ok {
		return
	}
	by := "api"
	if t := tokenOf(r); t != nil && s.opts.Tokens.isNamed() {
		by = t.Name
	}
	switch err := s.store.PauseRun(run.ID, by); {
	case errors.Is(err, state.ErrNotPausable):
		writeError(w, http.StatusConflict, "finished", fmt.Sprintf("Run %s has finished (%s): there is nothing to pause.", run.ID, run.Status), nil, nil)
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	}
	s.log.Info("run paused", slog.String("run_id", run.ID), slog.String("by", by))
	writeJSON(w, http.StatusOK, map[string]any{"run_id": run.ID, "paused": true, "links": api.RunLinks(run.ID)})
}

func (s *Server) postResumePaused(w http.ResponseWriter, r *http.Request) {
	run, ok := s.runToPause(w, r)
	if !ok {
		return
	}
	was, err := s.store.ResumeRun(run.ID)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if was {
		s.log.Info("run resumed from its pause", slog.String("run_id", run.ID))
	}
	writeJSON(w, http.StatusOK, map[string]any{"run_id": run.ID, "paused": false, "was_paused": was, "links": api.RunLinks(run.ID)})
}

// runToPause is the run a pause or resume names; 404 when none.
func (s *Server) runToPause(w http.ResponseWriter, r *http.Request) (*state.Run, bool) {
	id := r.PathValue("id")
	run, err := s.store.Run(id)
	switch {
	case errors.Is(err, state.ErrRunNotFound):
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return nil, false
	case err != nil:
		s.internalError(w, r, err)
		return nil, false
	}
	return run, true
}
