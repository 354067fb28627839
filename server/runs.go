package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// runRequest is the body of POST /v1/flows/{flow}/runs.
type runRequest struct {
	Inputs    map[string]json.RawMessage `json:"inputs"`
	Namespace string                     `json:"namespace"`
}

// runLinks are a run's URLs.
func runLinks(id string) map[string]string {
	return map[string]string{"self": "/v1/runs/" + id, "events": "/v1/runs/" + id + "/events"}
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
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	if key != "" {
		id, ok := s.idem[key]
		if !ok {
			id, ok, _ = s.store.IdempotencyKey(key) // a key of an earlier process
		}
		if ok {
			s.mu.Unlock()
			s.writeRunStatus(w, http.StatusOK, id)
			return
		}
	}
	if s.draining {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "stopping", "The server is stopping.", nil, nil)
		return
	}
	if len(s.queue) >= s.opts.MaxQueue {
		s.mu.Unlock()
		writeError(w, http.StatusTooManyRequests, "queue_full", fmt.Sprintf("%d runs are queued already.", s.opts.MaxQueue), nil, nil)
		return
	}
	lr := s.enqueueLocked(prog, inputs, req.Namespace)
	if key != "" {
		s.idem[key] = lr.id
		s.store.SetIdempotencyKey(key, lr.id)
	}
	s.mu.Unlock()
	s.writeRunStatus(w, http.StatusAccepted, lr.id)
}

// enqueueLocked queues a run of prog and starts it when there is room.
func (s *Server) enqueueLocked(prog *compiler.Program, inputs map[string]cty.Value, ns string) *liveRun {
	lr := newLiveRun(state.NewRunID(), prog.Flow.Name, prog, inputs, ns)
	s.live[lr.id] = lr
	s.queue = append(s.queue, lr)
	s.dispatchLocked()
	return lr
}

// dispatchLocked starts queued runs while there is room.
func (s *Server) dispatchLocked() {
	for len(s.queue) > 0 && s.active < s.opts.MaxActive && s.ctx.Err() == nil && !s.draining {
		lr := s.queue[0]
		s.queue = s.queue[1:]
		s.active++
		ctx, cancel := context.WithCancel(s.ctx)
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
}

// finished takes a run that ended off the live ones and starts the next.
func (s *Server) finished(lr *liveRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	lr.mu.Lock()
	keep := lr.notStart != "" || !lr.done // could not start, or waits
	lr.mu.Unlock()
	if !keep {
		delete(s.live, lr.id) // the state has it
	}
	s.dispatchLocked()
}

func (s *Server) writeRunStatus(w http.ResponseWriter, code int, id string) {
	status := ""
	if lr := s.liveRun(id); lr != nil {
		lr.mu.Lock()
		status = lr.status
		lr.mu.Unlock()
	} else if run, err := s.store.Run(id); err == nil && run != nil {
		status = run.Status
	}
	writeJSON(w, code, map[string]any{"run_id": id, "status": status, "links": runLinks(id)})
}

func (s *Server) liveRun(id string) *liveRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id]
}

// runSummary is a run in GET /v1/runs.
type runSummary struct {
	RunID      string            `json:"run_id"`
	Flow       string            `json:"flow"`
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

// waitingFor are the approval steps a waiting run waits for.
func (s *Server) waitingFor(runID string) []waitingForJSON {
	as, err := s.store.Approvals(runID)
	if err != nil {
		return nil
	}
	var out []waitingForJSON
	for _, a := range as {
		if !a.Closed && !a.Decided() {
			out = append(out, waitingForJSON{Step: a.Step, Instance: a.Instance, Message: a.Message})
		}
	}
	return out
}

func (s *Server) getRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	flow, status, cursor := q.Get("flow"), q.Get("status"), q.Get("cursor")
	limit := 50
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, http.StatusBadRequest, "bad_request", "limit is a whole number from 1 to 1000.", nil, nil)
			return
		}
		limit = n
	}
	var all []runSummary
	s.mu.Lock()
	for _, lr := range slices.Backward(s.queue) {
		if lr.resume {
			continue // the state has it
		}
		all = append(all, runSummary{RunID: lr.id, Flow: lr.flow, Status: statusQueued, Links: runLinks(lr.id)})
	}
	s.mu.Unlock()
	runs, err := s.store.Runs(flow, 0)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "state", err.Error(), nil, nil)
		return
	}
	for _, run := range runs {
		all = append(all, runSummary{RunID: run.ID, Flow: run.Flow, Status: run.Status, StartedAt: timeJSON(run.StartedAt), FinishedAt: timeJSON(run.FinishedAt), Links: runLinks(run.ID)})
	}
	out := []runSummary{}
	skipping := cursor != ""
	next := ""
	for _, rs := range all {
		if skipping {
			skipping = rs.RunID != cursor
			continue
		}
		if (flow != "" && rs.Flow != flow) || (status != "" && rs.Status != status) {
			continue
		}
		if len(out) == limit {
			next = out[len(out)-1].RunID
			break
		}
		if rs.Status == string(runtime.StatusWaiting) {
			rs.WaitingFor = s.waitingFor(rs.RunID)
		}
		out = append(out, rs)
	}
	body := map[string]any{"runs": out}
	if next != "" {
		body["next_cursor"] = next
	}
	writeJSON(w, http.StatusOK, body)
}

// stepJSON is a step instance in GET /v1/runs/{id}.
type stepJSON struct {
	Step       string          `json:"step"`
	Instance   string          `json:"instance,omitempty"`
	Status     string          `json:"status"`
	Attempts   int             `json:"attempts"`
	StartedAt  *string         `json:"started_at"`
	FinishedAt *string         `json:"finished_at"`
	Error      string          `json:"error,omitempty"`
	Outputs    json.RawMessage `json:"outputs,omitempty"`
	Sensitive  bool            `json:"sensitive,omitempty"` // its outputs are sensitive, so not recorded
	Log        string          `json:"log,omitempty"`
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	run, err := s.store.Run(id)
	if err != nil || run == nil {
		if lr := s.liveRun(id); lr != nil {
			lr.mu.Lock()
			body := map[string]any{"run_id": id, "flow": lr.flow, "status": lr.status, "steps": []stepJSON{}, "links": runLinks(id)}
			if lr.notStart != "" {
				body["error"] = lr.notStart
			}
			lr.mu.Unlock()
			writeJSON(w, http.StatusOK, body)
			return
		}
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return
	}
	steps, err := s.store.Steps(id)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "state", err.Error(), nil, nil)
		return
	}
	out := []stepJSON{}
	for _, st := range steps {
		out = append(out, stepJSON{Step: st.Step, Instance: st.Instance, Status: st.Status, Attempts: st.Attempts,
			StartedAt: timeJSON(st.StartedAt), FinishedAt: timeJSON(st.FinishedAt), Error: st.Error, Outputs: st.Outputs,
			Sensitive: st.Sensitive, Log: st.Log})
	}
	body := map[string]any{
		"run_id": run.ID, "flow": run.Flow, "namespace": run.Namespace, "status": run.Status,
		"started_at": timeJSON(run.StartedAt), "finished_at": timeJSON(run.FinishedAt),
		"inputs": rawOrNull(run.Inputs), "outputs": rawOrNull(run.Outputs), "failed_outputs": rawOrNull(run.FailedOutputs),
		"steps": out, "links": runLinks(id),
	}
	if run.Error != "" {
		body["error"] = run.Error
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) postCancel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	lr := s.liveRun(id)
	if lr == nil {
		if run, err := s.store.Run(id); err == nil && run != nil {
			writeError(w, http.StatusConflict, "finished", fmt.Sprintf("Run %s has finished (%s).", id, run.Status), nil, nil)
			return
		}
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no run %q.", id), nil, nil)
		return
	}
	lr.mu.Lock()
	lr.cancelled = true
	waiting := lr.status == string(runtime.StatusWaiting)
	if waiting {
		lr.status = statusQueued // not woken by a decision meanwhile
	}
	lr.mu.Unlock()
	s.mu.Lock()
	i := slices.Index(s.queue, lr)
	if i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
	}
	s.mu.Unlock()
	if i >= 0 || waiting {
		s.cancelQueued(lr)
	} else {
		lr.mu.Lock()
		cancel := lr.cancel
		lr.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
	s.writeRunStatus(w, http.StatusAccepted, id)
}

// cancelQueued ends a run that never started: it is run with a context
// that has ended, so that it is recorded (every step cancelled) and its
// events streamed like any other run's.
func (s *Server) cancelQueued(lr *liveRun) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.mu.Lock()
	s.active++ // until finished
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.run(ctx, lr)
	}()
}
