package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	"github.com/zclconf/go-cty/cty"
	"go.opentelemetry.io/otel/trace"
)

// runRequest is the body of POST /v1/flows/{flow}/runs.
type runRequest struct {
	Inputs    map[string]json.RawMessage `json:"inputs"`
	Namespace string                     `json:"namespace"`
	// Priority orders the queue of the flow's concurrency key: higher
	// first (0 by default).
	Priority int `json:"priority"`
}

func (s *Server) postRun(w http.ResponseWriter, r *http.Request) {
	e := s.flows.get(r.PathValue("flow"))
	if e == nil {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no flow %q.", r.PathValue("flow")), nil, nil)
		return
	}
	if e.prog == nil {
		writeError(w, http.StatusConflict, "invalid_flow", fmt.Sprintf("Flow %q does not compile.", e.name()), e.files, e.diags)
		return
	}
	var req runRequest
	if !decodeBody(w, r, &req) {
		return
	}
	given := map[string]compiler.InputValue{}
	for name, raw := range req.Inputs {
		v, err := jsonval.Decode(raw)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("Input %q is not JSON: %s.", name, err), nil, nil)
			return
		}
		given[name] = compiler.InputValue{Value: v, Source: "the request"}
	}
	if h := s.opts.NamespaceHeader; h != "" && r.Header.Get(h) != "" {
		req.Namespace = r.Header.Get(h)
	}
	prog := e.prog
	inputs, diags := prog.ResolveInputs(given)
	if diags.HasErrors() {
		writeError(w, http.StatusBadRequest, "invalid_inputs", "The inputs do not fit the flow's.", e.files, diags)
		return
	}
	lim, diags := runtime.RunLimits(prog, inputs, req.Priority)
	if diags.HasErrors() {
		writeError(w, http.StatusBadRequest, "invalid_inputs", "The inputs give no key for the flow's limits.", e.files, diags)
		return
	}
	var key *state.IdempotencyKey
	if k := r.Header.Get("Idempotency-Key"); k != "" {
		key = &state.IdempotencyKey{Flow: prog.Flow.Name, Namespace: req.Namespace, Key: k, Request: requestDigest(prog, req.Inputs)}
	}
	id, had, ok := s.startRun(w, r, prog, inputs, req.Namespace, lim, key)
	switch {
	case !ok:
	case had != nil:
		s.answerKey(w, prog, key, had)
	default:
		s.writeRunStatus(w, http.StatusAccepted, id)
	}
}

// startRun records a run of prog with inputs, in namespace ns, and
// starts or queues it: through its flow's limits (lim, runtime.RunLimits;
// nil for none), with key, unless the key started a run before (had, that
// key as recorded; nothing started). A debounced start's id is the queued
// run of its key that it joined. It answers the requests it refuses
// itself (ok false); the caller answers the others.
func (s *Server) startRun(w http.ResponseWriter, r *http.Request, prog *compiler.Program, inputs map[string]cty.Value, ns string, lim *state.RunLimits, key *state.IdempotencyKey) (id string, had *state.IdempotencyKey, ok bool) {
	if !s.stateReady(r.Context()) {
		s.refuseUnavailable(w, prog.Flow.Name)
		return "", nil, false
	}
	expiry := time.Now().Add(-s.opts.IdempotencyExpiry)
	// A place in the queue is held while the run is recorded, so that
	// requests at once take no more places than there are.
	s.mu.Lock()
	if code, reason, msg := s.refuseStartLocked(); code != 0 {
		s.mu.Unlock()
		// A retry of a request that started a run answers with it,
		// whatever the queue.
		if key != nil {
			if had, err := s.store.IdempotencyKeyOf(key.Flow, key.Namespace, key.Key, expiry); err == nil && had != nil {
				return had.RunID, had, true
			}
		}
		s.refuse(w, prog.Flow.Name, code, reason, msg)
		return "", nil, false
	}
	// A run with a place among the active ones at once (none queued) is
	// recorded running and started, one write; another is recorded
	// queued and started from the queue.
	direct := lim == nil && s.opts.Engine == nil && len(s.queue) == 0 && s.active < s.opts.MaxActive && s.ctx.Err() == nil
	if direct {
		s.active++
	} else {
		s.recording++
	}
	s.mu.Unlock()
	// The run, and its Idempotency-Key, are in the state, in one
	// transaction, before the answer: a server that dies now loses no run
	// it answered for (it is taken up as interrupted), and a retry with
	// the key finds the run.
	// runID, not the result id: the goroutine that starts a run recorded
	// after its 503 reads it once this function has returned "".
	runID := state.NewRunID()
	rec := runtime.QueuedRun(prog, runtime.Options{RunID: runID, Inputs: inputs, Namespace: ns, Origin: originServe})
	if direct {
		rec.Status = statusRunning
	}
	rec.Limits = lim
	parent := trace.SpanContextFromContext(r.Context())
	// The write has writeTimeout (the client's going away does not end
	// it). One still waiting for the writer then is withdrawn, nothing of
	// it written; one under way (sent, its outcome unknown) is left to
	// end: a run it recorded is run, as any recorded run.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	type outcome struct {
		had *state.IdempotencyKey
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		had, err := s.store.QueueRunWithin(ctx, rec, key, expiry)
		done <- outcome{had, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		select {
		case o = <-done:
		default:
			go func() {
				o := <-done
				cancel()
				s.recorded(direct, runID, prog, inputs, ns, parent, lim, o.had, o.err)
				if o.err == nil && o.had == nil {
					s.log.Warn("run recorded after its start was answered 503", slog.String("run_id", runID), slog.String("flow", prog.Flow.Name))
				}
			}()
			s.log.Warn("run not recorded in time", slog.String("request_id", requestID(r.Context())), slog.String("run_id", runID), slog.String("flow", prog.Flow.Name))
			w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
			s.refuse(w, prog.Flow.Name, http.StatusServiceUnavailable, "state_unavailable",
				"The state did not record the run in time: its write was under way, and if it commits the run is run. A retry with the same Idempotency-Key gets that run rather than another. Try again later.")
			return "", nil, false
		}
	}
	cancel()
	had, err := o.had, o.err
	s.recorded(direct, runID, prog, inputs, ns, parent, lim, had, err)
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || !s.checkState(r.Context())):
		// Withdrawn unwritten (QueueRunWithin), or the state went away.
		s.refuseUnavailable(w, prog.Flow.Name)
		return "", nil, false
	case err != nil:
		s.internalError(w, r, err)
		return "", nil, false
	case had != nil:
		return had.RunID, had, true
	case lim != nil && lim.Joined != "":
		// Debounced: the queued run of its key runs, with these inputs.
		return lim.Joined, nil, true
	}
	return runID, nil, true
}

// writeTimeout bounds the write that records a started run before the
// answer (postRun), as readTimeout bounds reads: a start the state cannot
// record in time is answered 503 state_unavailable with Retry-After.
const writeTimeout = readTimeout

// recorded starts, or queues, a run whose recording (QueueRun) ended with
// had and err, and gives back the place postRun held for it (direct: one
// among the active runs, else one in the queue).
func (s *Server) recorded(direct bool, id string, prog *compiler.Program, inputs map[string]cty.Value, namespace string, parent trace.SpanContext, lim *state.RunLimits, had *state.IdempotencyKey, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case direct && err == nil && had == nil:
		lr := newLiveRun(id, prog.Flow.Name, prog, inputs, namespace)
		lr.trace, lr.recorded = parent, true
		s.live[id] = lr
		s.launchLocked(lr)
	case direct:
		s.active--
		s.dispatchLocked()
	default:
		s.recording--
		if err == nil && had == nil && (lim == nil || lim.Joined == "") {
			s.enqueueLocked(id, prog, inputs, namespace, parent, lim)
		}
	}
}

// answerKey answers a start whose Idempotency-Key started a run before
// (had): with that run, or 422 when the key came with another request.
func (s *Server) answerKey(w http.ResponseWriter, prog *compiler.Program, key, had *state.IdempotencyKey) {
	if had.Request != key.Request {
		writeError(w, http.StatusUnprocessableEntity, "idempotency_key_reused", fmt.Sprintf(
			"The Idempotency-Key was used for another request of flow %s at %s (run %s); use a new key for a new request.",
			prog.Flow.Name, runtime.JSONTime(had.CreatedAt), had.RunID), nil, nil)
		return
	}
	s.writeRunStatus(w, http.StatusOK, had.RunID)
}

// refuseUnavailable refuses a start while the state does not answer.
func (s *Server) refuseUnavailable(w http.ResponseWriter, flow string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
	s.refuse(w, flow, http.StatusServiceUnavailable, "state_unavailable", "The state does not answer now: no run can start. Try again later.")
}

// refuse answers a start request that the server refuses, and logs it.
func (s *Server) refuse(w http.ResponseWriter, flow string, status int, code, msg string) {
	if code == "queue_full" {
		w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
	}
	s.log.Warn("run refused", slog.String("flow", flow), slog.Int("status", status), slog.String("reason", code))
	writeError(w, status, code, msg, nil, nil)
}

// refuseStartLocked is why a run cannot be queued now (an HTTP status, an
// error code and a message), 0 when it can. Both refusals are 503 with
// Retry-After: a full queue (--max-queue, the runs this server holds
// recorded and not started, and those being recorded) empties as runs
// end.
func (s *Server) refuseStartLocked() (int, string, string) {
	switch {
	case s.draining:
		return http.StatusServiceUnavailable, "stopping", "The server is stopping."
	case len(s.queue)+len(s.gated)+s.recording >= s.opts.MaxQueue:
		return http.StatusServiceUnavailable, "queue_full", fmt.Sprintf("%d runs are queued already; try again later.", s.opts.MaxQueue)
	}
	return 0, "", ""
}

// enqueueLocked queues a run of prog and starts it when there is room;
// parent, when valid, is the span its span is a child of.
func (s *Server) enqueueLocked(id string, prog *compiler.Program, inputs map[string]cty.Value, ns string, parent trace.SpanContext, lim *state.RunLimits) *liveRun {
	lr := newLiveRun(id, prog.Flow.Name, prog, inputs, ns)
	lr.trace = parent
	lr.queued = true
	s.live[lr.id] = lr
	if lim != nil {
		lr.limits, lr.queuedAt = lim, time.Now()
		s.gated = append(s.gated, lr)
		s.wakeGate()
		return lr
	}
	s.queue = append(s.queue, lr)
	s.dispatchLocked()
	return lr
}

// dispatchLocked starts queued runs while there is room.
func (s *Server) dispatchLocked() {
	for len(s.queue) > 0 && s.active < s.opts.MaxActive && s.ctx.Err() == nil && !s.draining && s.stateIsReady() {
		lr := s.queue[0]
		s.queue = s.queue[1:]
		s.active++
		s.launchLocked(lr)
	}
}

// launchLocked runs a live run that has its place among the active ones.
func (s *Server) launchLocked(lr *liveRun) {
	ctx, cancel := context.WithCancel(s.ctx)
	if lr.trace.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, lr.trace)
	}
	lr.mu.Lock()
	lr.cancel = cancel
	lr.status = "running"
	lr.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		s.run(ctx, lr)
	}()
}

// finished takes a run that ended off the live ones and starts the next.
func (s *Server) finished(lr *liveRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	lr.mu.Lock()
	keep := lr.notStart != nil || !lr.done // could not start, or waits
	lr.mu.Unlock()
	if !keep {
		delete(s.live, lr.id) // the state has it
	}
	s.dispatchLocked()
	if len(s.gated) > 0 {
		s.wakeGate() // a place of a key may be free
	}
}

func (s *Server) writeRunStatus(w http.ResponseWriter, code int, id string) {
	status := ""
	if lr := s.liveRun(id); lr != nil {
		lr.mu.Lock()
		status = lr.status
		lr.mu.Unlock()
	}
	if status == "" {
		// Not live here (another server's, or ended), or live with a
		// status only the state knows: the state says.
		if run, err := s.store.Run(id); err == nil && run != nil {
			status = run.Status
		}
	}
	if status == "" {
		// The run is recorded (its answer says so) and its status could
		// not be read: a retry gets it, an empty one would say nothing.
		w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
		writeError(w, http.StatusServiceUnavailable, "state_unavailable", fmt.Sprintf("Run %s is recorded, but its status cannot be read now; try again later.", id), nil, nil)
		return
	}
	writeJSON(w, code, map[string]any{"run_id": id, "status": status, "links": api.RunLinks(id)})
}

func (s *Server) liveRun(id string) *liveRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id]
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	st, ctx, cancel := s.reads(r)
	defer cancel()
	run, err := st.Run(id)
	if err != nil && !errors.Is(err, state.ErrRunNotFound) {
		s.readFailed(w, r, ctx, err)
		return
	}
	if lr := s.liveRun(id); lr != nil && (run == nil || lr.notStart != nil) {
		// A run that could not start: its record says so, in fewer
		// words than its diagnostics.
		lr.mu.Lock()
		out := api.Run{RunID: id, Flow: lr.flow, Namespace: nsOf(lr.namespace), Status: lr.status, Error: lr.notStart,
			Inputs: api.RawOrNull(nil), Outputs: api.RawOrNull(nil), FailedOutputs: api.RawOrNull(nil),
			Steps: []api.Step{}, LastEvent: lr.seq, Links: api.RunLinks(id)}
		lr.mu.Unlock()
		writeJSON(w, http.StatusOK, out)
		return
	}
	if run == nil {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return
	}
	out, err := api.ReadRun(st, run)
	if err != nil {
		s.readFailed(w, r, ctx, err)
		return
	}
	if lr := s.liveRun(id); lr != nil && ended(out.Status) {
		// A run this server runs is recorded as ended before its last
		// events are: until they are (its live status changes), it is
		// running, so that a client that sees it ended finds its
		// run_finished event.
		lr.mu.Lock()
		if lr.status == "running" {
			out.Status = lr.status
		}
		lr.mu.Unlock()
	}
	writeJSON(w, http.StatusOK, out)
}

// getInstances is a page of a step's instances (GET
// /v1/runs/{id}/steps/{step}?status=&limit=&cursor=), in the order of
// their keys, for the steps a run summarizes.
func (s *Server) getInstances(w http.ResponseWriter, r *http.Request) {
	id, step := r.PathValue("id"), r.PathValue("step")
	q := r.URL.Query()
	limit, ok := pageLimit(w, q)
	if !ok {
		return
	}
	after := ""
	if c := q.Get("cursor"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil || len(b) == 0 {
			writeError(w, http.StatusBadRequest, "bad_request", "cursor is not a next_cursor this server gave.", nil, nil)
			return
		}
		after = string(b)
	}
	st, ctx, cancel := s.reads(r)
	defer cancel()
	run, err := st.Run(id)
	switch {
	case errors.Is(err, state.ErrRunNotFound):
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return
	case err != nil:
		s.readFailed(w, r, ctx, err)
		return
	}
	sq := state.StepQuery{Step: step, After: after, Limit: limit + 1}
	if v := q.Get("status"); v != "" {
		sq.Statuses = strings.Split(v, ",")
	}
	steps, err := st.StepResults(run.ID, sq)
	if err != nil {
		s.readFailed(w, r, ctx, err)
		return
	}
	body := map[string]any{}
	if len(steps) > limit {
		steps = steps[:limit]
		body["next_cursor"] = base64.RawURLEncoding.EncodeToString([]byte(steps[limit-1].Instance))
	}
	out := make([]api.Step, 0, len(steps))
	for _, st := range steps {
		out = append(out, api.NewStep(st))
	}
	body["instances"] = out
	writeJSON(w, http.StatusOK, body)
}

// postCancel cancels a run. A queued run, or one waiting for approvals,
// is cancelled at once: the answer (200) says it is cancelled. A running
// run is told to stop (202, "cancelling"): its steps are cancelled and it
// ends cancelled, as its events say. Of a cancellation and a decision on a
// waiting run, exactly one wins (state.CancelWaiting): the other gets 409.
func (s *Server) postCancel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	lr := s.liveRun(id)
	if lr == nil {
		run, err := s.store.Run(id)
		switch {
		case errors.Is(err, state.ErrRunNotFound):
			writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		case err != nil:
			s.internalError(w, r, err)
		case run.Status == statusRunning || run.Status == string(runtime.StatusWaiting):
			writeError(w, http.StatusConflict, "not_held", fmt.Sprintf("Run %s is %s in another process, which alone can cancel it.", id, run.Status), nil, nil)
		default:
			writeError(w, http.StatusConflict, "finished", fmt.Sprintf("Run %s has finished (%s).", id, run.Status), nil, nil)
		}
		return
	}
	// A decision that a resumed run has not taken yet wins; else no
	// decision can be recorded any more.
	switch err := s.store.CancelWaiting(id); {
	case errors.Is(err, state.ErrDecided):
		writeError(w, http.StatusConflict, "decided", fmt.Sprintf("A decision on run %s came first: the run goes on with it.", id), nil, nil)
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	}
	if !s.settle(r.Context(), lr) {
		return
	}
	lr.mu.Lock()
	lr.cancelled = true
	waiting := lr.status == string(runtime.StatusWaiting)
	if waiting {
		lr.status = statusQueued // not woken by a deadline meanwhile
	}
	lr.mu.Unlock()
	s.gateMu.Lock()
	s.mu.Lock()
	i := slices.Index(s.queue, lr)
	if i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
	} else if s.ungateLocked(lr) {
		i = 0
	}
	s.mu.Unlock()
	s.gateMu.Unlock()
	if i < 0 && !waiting {
		lr.mu.Lock()
		if lr.done {
			status := lr.status
			lr.mu.Unlock()
			writeError(w, http.StatusConflict, "finished", fmt.Sprintf("Run %s has finished (%s).", id, status), nil, nil)
			return
		}
		cancel := lr.cancel
		lr.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		writeJSON(w, http.StatusAccepted, map[string]any{"run_id": id, "status": statusCancelling, "links": api.RunLinks(id)})
		return
	}
	select {
	case <-s.cancelQueued(lr):
	case <-r.Context().Done():
		return
	}
	s.writeRunStatus(w, http.StatusOK, id)
}

// settle waits while a live run that is running has ended in the state
// (finished, or stopped to wait) and the server has not yet seen it end, so
// that what it does next is decided on what the run is. It returns false
// when ctx ends first.
func (s *Server) settle(ctx context.Context, lr *liveRun) bool {
	for {
		lr.mu.Lock()
		status, changed := lr.status, lr.changed
		lr.mu.Unlock()
		if status != statusRunning {
			return true
		}
		run, err := s.store.Run(lr.id)
		if err != nil || run.Status == statusRunning {
			return true
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return false
		}
	}
}

// cancelQueued ends a run that never started: it is run with a context
// that has ended, so that it is recorded (every step cancelled) and its
// events streamed like any other run's. The channel is closed once it is
// recorded.
func (s *Server) cancelQueued(lr *liveRun) <-chan struct{} {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.mu.Lock()
	s.active++ // until finished
	s.mu.Unlock()
	s.wg.Add(1)
	done := make(chan struct{})
	go func() {
		defer s.wg.Done()
		defer close(done)
		s.run(ctx, lr)
	}()
	return done
}

// ended reports whether a run's status is one it ends with.
func ended(status string) bool {
	switch runtime.Status(status) {
	case runtime.StatusOK, runtime.StatusFailed, runtime.StatusCancelled:
		return true
	}
	return false
}
