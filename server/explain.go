package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	"github.com/flowctl/flowctl/thinker"
)

// POST /v1/runs/{id}/explain is flowctl explain under serve: the model
// (Options.Model) is told why the run failed (its flow, the failed steps'
// errors, logs and blocks, secrets redacted), and a fix it proposes is
// checked on a copy of the run before it is staged as a proposal
// (thinker.ExplainRun). The request waits for the answer.

// explainMaxCalls bounds the model requests of one explain, as the CLI's
// --max-calls default does.
const explainMaxCalls = 8

// explainRequest is the body of POST /v1/runs/{id}/explain.
type explainRequest struct {
	Model     string `json:"model"`      // default: Options.ModelName
	MaxTokens int    `json:"max_tokens"` // at most Options.MaxTokens when that is set
	NoFix     bool   `json:"no_fix"`
}

// explainReply is its answer.
type explainReply struct {
	RunID     string `json:"run_id"`
	Diagnosis string `json:"diagnosis"`
	// Proposal is the fix staged, whole (its files and diff); null when
	// none was asked for or none passed (NoFixReason says why).
	Proposal    *api.Proposal        `json:"proposal"`
	NoFixReason string               `json:"no_fix_reason,omitempty"`
	Checks      []thinker.FixChecked `json:"checks"` // each fix the model proposed, checked
	Usage       thinker.Usage        `json:"usage"`
	Links       map[string]string    `json:"links"`
}

func (s *Server) postExplain(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	req := explainRequest{}
	if !decodeBody(w, r, &req) {
		return
	}
	if req.MaxTokens < 0 {
		writeError(w, http.StatusBadRequest, "bad_request", `"max_tokens" is a whole number of at least 1.`, nil, nil)
		return
	}
	if s.opts.Model == nil {
		writeError(w, http.StatusServiceUnavailable, "no_model", "This server has no model to explain runs with.", nil, nil)
		return
	}
	// What the run's steps recorded is read whole: the writes under way
	// first.
	if err := s.store.FlushRun(id); err != nil {
		s.internalError(w, r, err)
		return
	}
	if lr := s.liveRun(id); lr != nil {
		lr.mu.Lock()
		notStarted := lr.notStart != nil || lr.status == statusQueued
		lr.mu.Unlock()
		if notStarted {
			// Queued, or refused before it started (its error says
			// why): the state has nothing of it to explain.
			writeError(w, http.StatusConflict, "not_started", fmt.Sprintf("Run %s has not started: there is nothing to explain; its error, if any, says why.", id), nil, nil)
			return
		}
	}
	run, err := thinker.ExplainableRun(s.store, id)
	switch {
	case errors.Is(err, state.ErrRunNotFound) || errors.Is(err, state.ErrAmbiguousRun):
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return
	case errors.Is(err, thinker.ErrNotExplainable):
		writeError(w, http.StatusConflict, "not_failed", sentence(err.Error()), nil, nil)
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	}
	file, ok := s.servedFile(run.FlowFile)
	if !ok {
		writeError(w, http.StatusConflict, "flow_not_served", fmt.Sprintf("Run %s ran the flow file %s, which is not among this server's flows.", run.ID, run.FlowFile), nil, nil)
		return
	}
	parser := lang.NewParser()
	prog, diags := compiler.Compile(file, compiler.Options{Parser: parser, RegistryDirs: s.opts.Registries, GoEngine: s.opts.GoEngine})
	if diags.HasErrors() {
		writeError(w, http.StatusConflict, "invalid_flow", fmt.Sprintf("Flow %q does not compile.", run.Flow), parser.Files(), diags)
		return
	}
	if !s.startExplain(run.ID) {
		writeError(w, http.StatusConflict, "explaining", fmt.Sprintf("Run %s is being explained already.", run.ID), nil, nil)
		return
	}
	defer s.endExplain(run.ID)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)() // the server stopping ends it too
	model := req.Model
	if model == "" {
		model = s.opts.ModelName
	}
	budget := s.opts.MaxTokens
	if req.MaxTokens > 0 && (budget == 0 || req.MaxTokens < budget) {
		budget = req.MaxTokens
	}
	reply := explainReply{RunID: run.ID, Checks: []thinker.FixChecked{}, Links: api.RunLinks(run.ID)}
	res, err := thinker.ExplainRun(ctx, thinker.ExplainRunOptions{
		Store: s.store, Run: run, Prog: prog, Registries: s.opts.Registries, GoEngine: s.opts.GoEngine, HTTP: s.opts.HTTP,
		Executors: func() (*blocks.Executors, func(), error) { return s.opts.Executors, func() {}, nil },
		Model:     s.opts.Model, ModelName: model, NoFix: req.NoFix, MaxCalls: explainMaxCalls, MaxTokens: budget,
		Observe: func(e thinker.Event) {
			if c, ok := e.(thinker.FixChecked); ok {
				reply.Checks = append(reply.Checks, c)
			}
		},
	})
	var te *thinker.Error
	switch {
	case errors.Is(err, thinker.ErrBudget):
		writeError(w, http.StatusUnprocessableEntity, "budget", sentence(err.Error()), nil, nil)
		return
	case errors.As(err, &te):
		writeError(w, http.StatusBadGateway, "model", "The model's answer could not be used: "+sentence(te.Msg), nil, nil)
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	}
	reply.Diagnosis, reply.NoFixReason, reply.Usage = res.Diagnosis, res.NoFixReason, res.Calls.JSON()
	if res.Proposal != "" {
		p, err := s.store.Proposal(res.Proposal)
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		sp := api.NewProposal(p, true)
		reply.Proposal = &sp
	}
	writeJSON(w, http.StatusOK, reply)
}

// servedFile is a flow file a run recorded, as a path from here, when it
// is under the server's directory.
func (s *Server) servedFile(file string) (string, bool) {
	if _, err := os.Stat(file); err != nil && !filepath.IsAbs(file) {
		file = filepath.Join(s.opts.Dir, file)
	}
	if _, err := os.Stat(file); err != nil {
		return "", false
	}
	return file, s.underDir(file)
}

// underDir reports whether path is in the server's directory.
func (s *Server) underDir(path string) bool {
	rel, err := thinker.RelTo(s.opts.Dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// startExplain marks a run as being explained; false when it is already.
func (s *Server) startExplain(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.explaining == nil {
		s.explaining = map[string]bool{}
	}
	if s.explaining[id] {
		return false
	}
	s.explaining[id] = true
	return true
}

func (s *Server) endExplain(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.explaining, id)
}

// sentence is an error's text as a sentence.
func sentence(msg string) string {
	msg = strings.TrimSuffix(strings.TrimSpace(msg), ".")
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}
