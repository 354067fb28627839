// Package server is flowctl serve: an HTTP API that runs the flows under a
// directory with the local runtime and the same state as apply, and
// streams each run's events (the documents of apply --json) as
// Server-Sent Events, replayed from the state for a client that connects
// late or reconnects.
package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Defaults of Options.
const (
	DefaultMaxActive = 64
	DefaultMaxQueue  = 10000
	// maxBody bounds a request's body.
	maxBody = 1 << 20
	// keepAlive is how often a quiet event stream gets a comment.
	keepAlive = 15 * time.Second
)

// Options configure a Server.
type Options struct {
	Dir        string // the flows under it are served
	Registries []string
	GoEngine   string
	Store      *state.Store
	Executors  *blocks.Executors
	// Token, when set, is required of every request but GET /healthz, as
	// Authorization: Bearer TOKEN.
	Token string
	// MaxActive runs run at once; the others wait, queued, in order, up
	// to MaxQueue of them.
	MaxActive, MaxQueue int
	// NotifyURLs receive a POST of each finished run's summary, signed
	// with NotifySecret (HMAC-SHA256) when it is set; BaseURL is the
	// server's, for the summary's link.
	// NamespaceHeader, when set, names a request header a trusted proxy
	// sets to choose the memory namespace of the runs it starts; it wins
	// over the body's namespace.
	NamespaceHeader string
	NotifyURLs      []string
	NotifySecret    string
	BaseURL         string
	// Engine, when set, runs the runs instead of the process (the temporal
	// engine): its runs are recorded by its workers, and their approvals
	// are sent to it.
	Engine Engine
}

// An Engine runs flows elsewhere, as runtime.Apply runs them in the
// process.
type Engine interface {
	Apply(ctx context.Context, prog *compiler.Program, opts runtime.Options) (*runtime.Result, error)
	// Approve hands a decision recorded in the state to the run.
	Approve(ctx context.Context, runID, step, instance string, approved bool, comment, by string) error
}

// Server serves the API. It is an http.Handler.
type Server struct {
	opts    Options
	store   *state.Store
	flows   *flowSet
	mux     *http.ServeMux
	guarded http.Handler // mux behind the token
	metrics *metrics
	notify  *notifier
	nstop   context.CancelFunc
	ctx     context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup // the runs
	bg      sync.WaitGroup // the scheduler

	mu     sync.Mutex
	live   map[string]*liveRun
	queue  []*liveRun
	active int
	idem   map[string]string // Idempotency-Key → run id
	// draining: shutting down; queued runs stay queued, new ones are
	// refused. stopping is closed then.
	draining bool
	stopping chan struct{}
}

// New returns a server of the flows under opts.Dir.
func New(opts Options) *Server {
	if opts.MaxActive <= 0 {
		opts.MaxActive = DefaultMaxActive
	}
	if opts.MaxQueue <= 0 {
		opts.MaxQueue = DefaultMaxQueue
	}
	ctx, stopCause := context.WithCancelCause(context.Background())
	stop := func() { stopCause(runtime.ErrStopping) }
	s := &Server{
		opts: opts, store: opts.Store, ctx: ctx, stop: stop,
		flows: &flowSet{dir: opts.Dir, registries: opts.Registries, goEngine: opts.GoEngine},
		live:  map[string]*liveRun{}, idem: map[string]string{}, stopping: make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /v1/flows", s.getFlows)
	mux.HandleFunc("GET /v1/flows/{flow}", s.getFlow)
	mux.HandleFunc("POST /v1/flows/{flow}/runs", s.postRun)
	mux.HandleFunc("GET /v1/runs", s.getRuns)
	mux.HandleFunc("GET /v1/runs/{id}", s.getRun)
	mux.HandleFunc("GET /v1/runs/{id}/events", s.getEvents)
	mux.HandleFunc("POST /v1/runs/{id}/cancel", s.postCancel)
	mux.HandleFunc("POST /v1/runs/{id}/approvals/{step}", s.postApproval)
	s.metrics = newMetrics(s)
	nctx, nstop := context.WithCancel(context.Background())
	s.notify, s.nstop = &notifier{urls: opts.NotifyURLs, secret: []byte(opts.NotifySecret), base: opts.BaseURL,
		client: &http.Client{Timeout: 30 * time.Second}, ctx: nctx}, nstop
	mux.Handle("GET /metrics", s.metrics.handler())
	dashboard(mux)
	s.mux = mux
	s.guarded = RequireToken(opts.Token, mux)
	s.recover()
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		s.schedule()
	}()
	return s
}

// ServeHTTP checks the token (but for GET /healthz and the dashboard's
// pages, which hold no data and ask for the token), then serves the
// request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" || isDashboardPath(r.URL.Path) {
		s.mux.ServeHTTP(w, r)
		return
	}
	s.guarded.ServeHTTP(w, r)
}

// RequireToken serves h only to requests with Authorization: Bearer
// token, compared in constant time; the others get 401 with a JSON error.
// An empty token requires nothing.
func RequireToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			writeError(w, http.StatusUnauthorized, "unauthorized", "This server needs Authorization: Bearer TOKEN.", nil, nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Drain stops starting queued runs, ends the event streams of waiting
// runs, and waits, until ctx ends, for the running ones to finish; it
// reports whether they all did.
func (s *Server) Drain(ctx context.Context) bool {
	s.mu.Lock()
	if !s.draining {
		s.draining = true
		close(s.stopping)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// Close stops the runs that are running or queued and waits for them to
// record how they ended: interrupted (runs.go), taken up by the next
// server that starts on the state.
func (s *Server) Close() {
	s.stop()
	s.mu.Lock()
	queued := s.queue
	s.queue = nil
	s.mu.Unlock()
	for _, lr := range queued {
		s.cancelQueued(lr)
	}
	s.wg.Wait()
	s.bg.Wait()
	// Notifications under way get a few seconds more.
	ctx, cancel := context.WithTimeout(context.Background(), notifyGrace)
	defer cancel()
	s.notify.wait(ctx)
	s.nstop()
}

// notifyGrace is how long Close waits for notifications under way.
const notifyGrace = 5 * time.Second

// apiError is the body of every error reply.
type apiError struct {
	Error struct {
		Code        string                `json:"code"`
		Message     string                `json:"message"`
		Diagnostics []diagjson.Diagnostic `json:"diagnostics,omitempty"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string, files map[string]*hcl.File, diags hcl.Diagnostics) {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	if len(diags) > 0 {
		e.Error.Diagnostics = diagjson.New(files, diags).Diagnostics
	}
	writeJSON(w, status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// decodeBody reads a JSON body into v: at most maxBody bytes, no unknown
// fields. An empty body leaves v as it is.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("The body is over %d bytes.", maxBody), nil, nil)
			return false
		}
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not the JSON expected: "+err.Error()+".", nil, nil)
		return false
	}
	return true
}

// flowJSON is a flow in GET /v1/flows.
type flowJSON struct {
	Name        string                `json:"name"`
	File        string                `json:"file"`
	Description string                `json:"description,omitempty"`
	Inputs      []inputJSON           `json:"inputs"`
	Outputs     []string              `json:"outputs"`
	Errors      []diagjson.Diagnostic `json:"errors,omitempty"`
	// The graph, in GET /v1/flows/{flow} only: each step with its stage
	// and the steps it depends on, the critical path (by steps), and the
	// schedules.
	Steps        []graphStepJSON `json:"steps,omitempty"`
	CriticalPath []string        `json:"critical_path,omitempty"`
	Schedules    []scheduleJSON  `json:"schedules,omitempty"`
}

type graphStepJSON struct {
	Name      string   `json:"name"`
	Use       string   `json:"use"`
	Stage     int      `json:"stage"`
	DependsOn []string `json:"depends_on"`
	ForEach   bool     `json:"for_each,omitempty"`
	Approval  bool     `json:"approval,omitempty"`
}

type scheduleJSON struct {
	Name     string `json:"name"`
	Cron     string `json:"cron"`
	Timezone string `json:"timezone"`
}

type inputJSON struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Default     any    `json:"default,omitempty"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
	Sensitive   bool   `json:"sensitive,omitempty"`
}

func (s *Server) getFlows(w http.ResponseWriter, r *http.Request) {
	out := []flowJSON{}
	for _, e := range s.flows.list() {
		out = append(out, newFlowJSON(e, false))
	}
	writeJSON(w, http.StatusOK, map[string]any{"flows": out})
}

// getFlow is one flow with its graph.
func (s *Server) getFlow(w http.ResponseWriter, r *http.Request) {
	e := s.flows.get(r.PathValue("flow"))
	if e == nil {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no flow %q.", r.PathValue("flow")), nil, nil)
		return
	}
	writeJSON(w, http.StatusOK, newFlowJSON(e, true))
}

// newFlowJSON describes a flow: with graph, its steps, critical path and
// schedules too.
func newFlowJSON(e *flowEntry, graph bool) flowJSON {
	f := flowJSON{Name: e.name(), File: e.file, Inputs: []inputJSON{}, Outputs: []string{}}
	if e.diags.HasErrors() {
		f.Errors = diagjson.New(e.files, e.diags).Diagnostics
	}
	p := e.prog
	if p == nil {
		return f
	}
	f.Description = p.Flow.Description
	for _, in := range p.Inputs {
		ij := inputJSON{Name: in.Name, Type: in.Type.Type.FriendlyName(), Required: in.Default == cty.NilVal, Description: in.Description, Sensitive: in.Sensitive}
		if in.Default != cty.NilVal && !in.Sensitive {
			ij.Default = runtime.PlainJSON(in.Default)
		}
		f.Inputs = append(f.Inputs, ij)
	}
	for _, o := range p.Outputs {
		f.Outputs = append(f.Outputs, o.Name)
	}
	if !graph {
		return f
	}
	f.Steps, f.CriticalPath, f.Schedules = []graphStepJSON{}, compiler.Names(p.CriticalPath), []scheduleJSON{}
	for _, st := range p.Steps {
		f.Steps = append(f.Steps, graphStepJSON{Name: st.Name, Use: st.Use, Stage: st.Stage, DependsOn: compiler.Names(st.Deps),
			ForEach: st.ForEach != nil, Approval: st.Block != nil && st.Block.Builtin() && st.Block.Name == "approval"})
	}
	for _, sc := range p.Schedules {
		f.Schedules = append(f.Schedules, scheduleJSON{Name: sc.Name, Cron: sc.Cron, Timezone: sc.Location.String()})
	}
	return f
}

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

func timeJSON(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := runtime.JSONTime(t)
	return &s
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

func rawOrNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
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

// getEvents streams a run's events as Server-Sent Events: those after
// Last-Event-ID (or ?after=N) first, then the new ones as they come, until
// the run has finished.
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
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	stopping := s.stopping
	for {
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
			if s.liveRun(id) == nil {
				lr = nil // read the rest, if any, from the state
				continue
			}
			return // it never started
		}
		select {
		case <-changed:
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			if flusher != nil {
				flusher.Flush()
			}
		case <-r.Context().Done():
			return
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
