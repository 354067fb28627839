package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	"github.com/zclconf/go-cty/cty"
	"go.opentelemetry.io/otel/trace"
)

// A run that waits for approvals stays among the live runs, status
// "waiting", its event stream open. A decision (POST
// /v1/runs/{id}/approvals/{step}, or flowctl approve) or the earliest
// deadline of its approvals queues it again, resumed: the steps that
// finished keep their results.

// approvalRequest is the body of POST /v1/runs/{id}/approvals/{step}.
type approvalRequest struct {
	Approved *bool  `json:"approved"`
	Comment  string `json:"comment"`
	By       string `json:"by"`
	Instance string `json:"instance"` // of a for_each approval step
	// Inputs are the values of the step's input fields, by name.
	Inputs map[string]json.RawMessage `json:"inputs"`
}

func (s *Server) postApproval(w http.ResponseWriter, r *http.Request) {
	id, step := r.PathValue("id"), r.PathValue("step")
	var req approvalRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Approved == nil {
		writeError(w, http.StatusBadRequest, "bad_request", `The body needs "approved": true or false.`, nil, nil)
		return
	}
	if t := tokenOf(r); t != nil && s.opts.Tokens.isNamed() {
		// Who decided is who the token is: the body cannot say otherwise.
		if req.By != "" && req.By != t.Name {
			writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf(
				`"by" is the name of the request's token (%s) on this server: leave it out.`, t.Name), nil, nil)
			return
		}
		req.By = t.Name
	}
	run, err := s.store.Run(id)
	if err != nil || run == nil {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return
	}
	if run.Status != string(runtime.StatusWaiting) && run.Status != "running" {
		writeError(w, http.StatusConflict, "not_waiting", fmt.Sprintf("Run %s has finished (%s).", run.ID, run.Status), nil, nil)
		return
	}
	inputs, ok := s.approvalInputs(w, run.ID, step, req)
	if !ok {
		return
	}
	a, err := s.store.DecideApprovalWith(run.ID, step, req.Instance, *req.Approved, req.Comment, req.By, inputs)
	switch {
	case errors.Is(err, state.ErrNotWaiting):
		label := step
		if req.Instance != "" {
			label += "[" + req.Instance + "]"
		}
		writeError(w, http.StatusConflict, "not_waiting", fmt.Sprintf("Step %s of run %s is not waiting for a decision.", label, run.ID), nil, nil)
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	}
	if run.Origin == state.OriginTemporal && s.opts.Engine != nil {
		if err := s.opts.Engine.Approve(r.Context(), run.ID, step, req.Instance, *req.Approved, req.Comment, req.By); err != nil {
			s.failed(w, r, http.StatusBadGateway, "engine", err)
			return
		}
	}
	if s.liveRun(run.ID) == nil && run.Status == string(runtime.StatusWaiting) && run.Origin != state.OriginTemporal {
		// A run another server started, waiting since this one started:
		// it is resumed here (the other finds it taken when it wakes).
		s.takeUp(run.ID, run.Flow, false)
	}
	if lr := s.liveRun(run.ID); lr != nil {
		lr.mu.Lock()
		lr.trace = trace.SpanContextFromContext(r.Context()) // the resumed run is part of the decision's trace
		lr.mu.Unlock()
	}
	s.wake(run.ID, "a decision")
	writeJSON(w, http.StatusOK, map[string]any{
		"run_id": run.ID, "step": a.Step, "instance": a.Instance, "approved": a.Approved,
		"comment": a.Comment, "by": a.By, "decided_at": runtime.JSONTime(a.DecidedAt), "inputs": api.RawOrNull(a.Inputs), "links": api.RunLinks(run.ID),
	})
}

// approvalInputs checks the values of an approval's input fields that a
// decision gives against the fields its request recorded, and returns
// them as recorded; a value of the wrong type, or a required field left
// out, is 400 and the approval stays pending. A rejection records none.
func (s *Server) approvalInputs(w http.ResponseWriter, runID, step string, req approvalRequest) (json.RawMessage, bool) {
	if !*req.Approved {
		return nil, true
	}
	a, err := s.store.Approval(runID, step, req.Instance)
	if err != nil {
		s.log.Error("reading an approval", slog.String("run_id", runID), slog.Any("error", err))
	}
	if a == nil || a.Closed || a.Decided() {
		return nil, true // not waiting: DecideApproval says so
	}
	given := make(map[string]cty.Value, len(req.Inputs))
	for name, raw := range req.Inputs {
		v, err := jsonval.Decode(raw)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_inputs", fmt.Sprintf("The value of input field %q is not JSON: %s.", name, err), nil, nil)
			return nil, false
		}
		given[name] = v
	}
	inputs, err := runtime.ApprovalValues(a.Fields, given)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_inputs", sentence(err.Error()), nil, nil)
		return nil, false
	}
	return inputs, true
}

// wake resumes a waiting run of this server, when it has one by that ID:
// a decision or a deadline came. A run still running takes its decisions
// when it stops (waiting).
func (s *Server) wake(id, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lr := s.live[id]
	if lr == nil {
		return
	}
	lr.mu.Lock()
	waiting := lr.status == string(runtime.StatusWaiting)
	if waiting {
		lr.status = statusQueued
		lr.wakeLocked()
	}
	lr.mu.Unlock()
	if !waiting || s.ctx.Err() != nil {
		return
	}
	s.log.Info("run resumed", slog.String("run_id", id), slog.String("flow", lr.flow), slog.String("why", why))
	s.queue = append(s.queue, lr)
	s.dispatchLocked()
}

// waiting follows a run that stopped to wait: it is resumed at once when
// a decision came while it ran, else at its earliest deadline (or by a
// decision).
func (s *Server) waiting(lr *liveRun, ws []runtime.Waiting) {
	if runtime.DecidedMeanwhile(s.store, lr.id) {
		s.wake(lr.id, "a decision")
		return
	}
	var first time.Time
	for _, w := range ws {
		if !w.Deadline.IsZero() && (first.IsZero() || w.Deadline.Before(first)) {
			first = w.Deadline
		}
	}
	if first.IsZero() {
		return
	}
	t := time.AfterFunc(time.Until(first), func() { s.wake(lr.id, "a deadline") })
	go func() {
		<-s.ctx.Done()
		t.Stop()
	}()
}

// recover takes up, when the server starts, the runs a server left: those
// of its runs that were running when it was killed (recorded as
// interrupted) are resumed, and the waiting runs of the flows it serves
// wait again, live. A run whose flow changed since, or whose sensitive
// inputs are gone with the process that had them, is recorded as failed,
// saying why.
func (s *Server) recover() {
	var runs []*state.Run
	for _, status := range []string{state.StatusInterrupted, string(runtime.StatusWaiting)} {
		found, err := s.runsWithStatus(status)
		if err != nil {
			s.log.Error("reading the runs to take up", slog.Any("error", err))
			return
		}
		runs = append(runs, found...)
	}
	slices.SortFunc(runs, func(a, b *state.Run) int { return a.StartedAt.Compare(b.StartedAt) }) // oldest first
	for _, run := range runs {
		interrupted := run.Status == state.StatusInterrupted
		if interrupted && (run.Origin != originServe || s.opts.NoTakeUp) || run.Origin == state.OriginTemporal {
			continue // a waiting run on Temporal waits there, not here
		}
		s.takeUp(run.ID, run.Flow, interrupted)
	}
}

// takeUp makes a run of the state one of this server's live runs: an
// interrupted one is queued to resume, a waiting one waits here (resumed
// at once when it has a decision, else at its deadline or by a decision).
// Nothing happens when the run is live here already, or its flow is not
// served here. Of several servers that take up a run, the state lets one
// reopen it (state.Store.ReopenRun); the others find it taken and read
// what it is from the state.
func (s *Server) takeUp(id, flow string, interrupted bool) {
	e := s.flows.get(flow)
	if e == nil || e.prog == nil || s.liveRun(id) != nil {
		return // not served here, or live here already
	}
	run, err := s.store.Run(id) // with its inputs and fingerprints
	if err != nil {
		s.log.Error("reading a run to take up", slog.String("run_id", id), slog.Any("error", err))
		return
	}
	prog, why := s.versionOf(e, run.ID)
	lr := newLiveRun(run.ID, run.Flow, prog, nil, run.Namespace)
	lr.resume = true
	if seq, err := s.store.LastEventSeq(run.ID); err == nil {
		lr.seq, lr.base = seq, seq
	}
	steps, _ := s.store.Steps(run.ID)
	if why != "" {
		lr.failResume = why
	} else if err := runtime.ResumeCheck(prog, run, steps); err != nil {
		lr.failResume = err.Error()
	} else if in, diags := runtime.ResumeInputs(prog, run, nil); diags.HasErrors() {
		lr.failResume = diags[0].Detail
	} else {
		lr.inputs = in
	}
	gated := interrupted && lr.failResume == "" && s.requeueLimited(lr, run)
	s.mu.Lock()
	if s.live[lr.id] != nil {
		s.mu.Unlock()
		return // taken up meanwhile
	}
	s.log.Info("run taken up", slog.String("run_id", run.ID), slog.String("flow", run.Flow), slog.String("status", run.Status))
	s.live[lr.id] = lr
	if gated {
		s.gated = append(s.gated, lr)
		s.wakeGate()
		s.mu.Unlock()
		return
	}
	if interrupted {
		s.queue = append(s.queue, lr)
		s.dispatchLocked()
		s.mu.Unlock()
		return
	}
	lr.status = string(runtime.StatusWaiting)
	s.mu.Unlock()
	if lr.failResume != "" {
		return // failed when woken: a decision cannot be taken
	}
	var ws []runtime.Waiting
	if as, err := s.store.Approvals(run.ID); err == nil {
		for _, a := range as {
			if !a.Closed {
				ws = append(ws, runtime.Waiting{Step: a.Step, Message: a.Message, Since: a.RequestedAt, Deadline: a.Deadline})
			}
		}
	}
	s.waiting(lr, ws)
}

// versionOf is the program a run of flow e taken up resumes with: the
// version it started with (runtime.PinnedVersion), the flow served
// otherwise (a run that recorded none). why says why the run cannot
// resume: its version does not compile here.
func (s *Server) versionOf(e *flowEntry, runID string) (prog *compiler.Program, why string) {
	v, err := runtime.PinnedVersion(s.store, runID)
	if err != nil {
		s.log.Warn("reading the version of a run", slog.String("run_id", runID), slog.Any("error", err))
	}
	if v == nil {
		return e.prog, ""
	}
	if hash, _ := e.prog.Version(); hash == v.Hash {
		return e.prog, ""
	}
	prog, diags := s.flows.pinnedProgram(e.file, v)
	if diags.HasErrors() {
		return e.prog, fmt.Sprintf("the version of flow %q the run started with (%s) does not compile here: %s", e.name(), short(v.Hash), runtime.DiagText(diags[:1]))
	}
	return prog, ""
}

// short is a version's hash as shown: its first 12 digits.
func short(hash string) string { return hash[:min(12, len(hash))] }

// runsWithStatus are the runs of a status, a page at a time on its index.
func (s *Server) runsWithStatus(status string) ([]*state.Run, error) {
	var out []*state.Run
	var after *state.RunKey
	for {
		runs, next, err := s.store.RunPage(s.ctx, state.RunFilter{Status: status}, after, maxPage)
		if err != nil {
			return nil, err
		}
		out = append(out, runs...)
		if next == nil {
			return out, nil
		}
		after = next
	}
}

// failToResume records as failed a run that cannot be resumed, and why.
func (s *Server) failToResume(lr *liveRun) {
	msg := "cannot resume: " + lr.failResume
	if err := s.store.ReopenRun(lr.id, nil); err == nil {
		s.store.FinishRun(&state.Run{ID: lr.id, Status: string(runtime.StatusFailed), Error: msg})
	}
	lr.mu.Lock()
	lr.status, lr.done = string(runtime.StatusFailed), true
	lr.wakeLocked()
	lr.mu.Unlock()
	s.finished(lr)
}
