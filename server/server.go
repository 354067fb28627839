package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
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
	Dir string // the flows under it are served
	// NoRecordPrompts keeps the runs' model calls out of the state
	// (--no-record-prompts).
	NoRecordPrompts bool
	Registries      []string
	GoEngine        string
	Store           *state.Store
	Executors       *blocks.Executors
	// HTTP are the options Executors' http and scrape blocks have, whose
	// Egress is the HTTP allow list (nil for none): explain's check of a
	// fix confines them further (thinker.FixChecker).
	HTTP blocks.HTTPOptions
	// Tokens, when it has or had any, are required of every request but
	// the probes and the dashboard's pages, as Authorization: Bearer
	// TOKEN, each allowing what its roles say (auth.go); without tokens,
	// requests are guarded against other sites' pages (guard.go).
	Tokens *Tokens
	// AllowedHosts are the host names, besides the loopback ones, that a
	// request without a token may name in its Host header: the host of
	// --addr, and --allowed-host.
	AllowedHosts []string
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
	// NoTakeUp: interrupted runs are not taken up by this server, neither
	// when it starts nor while it runs (takeup.go): a person decides
	// (flowctl apply --resume).
	NoTakeUp bool
	// IdempotencyExpiry is how long an Idempotency-Key is kept
	// (DefaultIdempotencyExpiry when 0).
	IdempotencyExpiry time.Duration
	// Logger receives the server's log: requests, runs, refusals, errors
	// (nothing when nil).
	Logger *slog.Logger
	// Engine, when set, runs the runs instead of the process (the temporal
	// engine): its runs are recorded by its workers, and their approvals
	// are sent to it.
	Engine Engine
	// Model answers POST /v1/runs/{id}/explain, asked for ModelName
	// unless the request names another; without one, explain is refused
	// (503). MaxTokens, when set, is the most tokens one explain may use.
	Model     thinker.Model
	ModelName string
	MaxTokens int
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
	log     *slog.Logger
	store   *state.Store
	flows   *flowSet
	mux     *http.ServeMux
	handler http.Handler // everything, behind the request log
	routes  []string     // the API's, as "METHOD /path" (docs/serve.md lists them)
	csrf    string       // the dashboard's CSRF token (guard.go)
	ready   readiness
	metrics *metrics
	notify  *notifier
	nstop   context.CancelFunc
	ctx     context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup // the runs
	bg      sync.WaitGroup // the scheduler

	mu    sync.Mutex
	live  map[string]*liveRun
	queue []*liveRun
	// gated are the queued runs of flows with limits, which start when
	// their keys let them (limits.go); gateMu is held while one is
	// started or taken off, gateWake wakes the loop that starts them.
	gated    []*liveRun
	gateMu   sync.Mutex
	gateWake chan struct{}
	// recording counts the runs being recorded (postRun): each holds a
	// place in the queue.
	recording int
	active    int
	// explaining are the runs a POST /v1/runs/{id}/explain is under way
	// for.
	explaining map[string]bool
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
	if opts.IdempotencyExpiry <= 0 {
		opts.IdempotencyExpiry = DefaultIdempotencyExpiry
	}
	ctx, stopCause := context.WithCancelCause(context.Background())
	stop := func() { stopCause(runtime.ErrStopping) }
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts: opts, log: opts.Logger, store: opts.Store, ctx: ctx, stop: stop, csrf: newCSRFToken(),
		ready: readiness{stateOK: true},
		flows: &flowSet{dir: opts.Dir, registries: opts.Registries, goEngine: opts.GoEngine},
		live:  map[string]*liveRun{}, stopping: make(chan struct{}), gateWake: make(chan struct{}, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", s.getReadyz)
	handle := func(pattern string, role Role, h http.HandlerFunc) {
		mux.Handle(pattern, s.need(role, h))
		s.routes = append(s.routes, pattern)
	}
	handle("GET /v1/flows", RoleRead, s.getFlows)
	handle("GET /v1/flows/{flow}", RoleRead, s.getFlow)
	handle("POST /v1/flows/{flow}/runs", RoleRun, s.postRun)
	handle("GET /v1/runs", RoleRead, s.getRuns)
	handle("GET /v1/runs/{id}", RoleRead, s.getRun)
	handle("GET /v1/runs/{id}/events", RoleRead, s.getEvents)
	handle("GET /v1/runs/{id}/steps/{step}", RoleRead, s.getInstances)
	handle("GET /v1/runs/{id}/calls", RoleRead, s.getCalls)
	handle("GET /v1/runs/{id}/calls/{seq}", RoleRead, s.getCall)
	handle("POST /v1/runs/{id}/cancel", RoleRun, s.postCancel)
	handle("POST /v1/runs/{id}/pause", RoleRun, s.postPause)
	handle("POST /v1/runs/{id}/resume", RoleRun, s.postResumePaused)
	handle("POST /v1/runs/{id}/approvals/{step}", RoleApprove, s.postApproval)
	handle("POST /v1/runs/{id}/explain", RoleRun, s.postExplain)
	handle("GET /v1/proposals", RoleRead, s.getProposals)
	handle("GET /v1/proposals/{id}", RoleRead, s.getProposal)
	handle("POST /v1/proposals/{id}/accept", RoleAuthor, s.postAccept)
	handle("POST /v1/proposals/{id}/reject", RoleAuthor, s.postReject)
	handle("GET /v1/evals", RoleRead, s.getEvals)
	handle("GET /v1/evals/{id}", RoleRead, s.getEval)
	s.metrics = newMetrics(s)
	nctx, nstop := context.WithCancel(context.Background())
	s.notify, s.nstop = &notifier{urls: opts.NotifyURLs, secret: []byte(opts.NotifySecret), base: opts.BaseURL,
		client: &http.Client{Timeout: 30 * time.Second}, ctx: nctx}, nstop
	mux.Handle("GET /metrics", s.need(RoleRead, s.metrics.handler()))
	s.routes = append(s.routes, "GET /healthz", "GET /readyz", "GET /metrics")
	dashboard(mux, s.csrf)
	s.mux = mux
	// Each request is a span (a child of the caller's, when its
	// traceparent names one), named after its route; a run it starts is a
	// child of it (liverun.go).
	s.handler = otelhttp.NewHandler(s.logRequests(withDeadline(http.HandlerFunc(s.route))), "flowctl serve",
		otelhttp.WithSpanNameFormatter(func(op string, r *http.Request) string {
			if _, pattern := s.mux.Handler(r); pattern != "" {
				return pattern
			}
			return op
		}))
	s.recover()
	s.logUnverified()
	s.bg.Add(4)
	go func() {
		defer s.bg.Done()
		s.schedule()
	}()
	go func() {
		defer s.bg.Done()
		s.gateLoop()
	}()
	go func() {
		defer s.bg.Done()
		s.watchState()
	}()
	go func() {
		defer s.bg.Done()
		s.pruneKeys()
	}()
	if !opts.NoTakeUp {
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			s.takeUpLoop()
		}()
	}
	return s
}

// ServeHTTP serves a request: logged, with an ID, and checked: by its
// token and the token's roles when the server has tokens, else by the
// guard (but for the probes).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	probe := r.URL.Path == "/healthz" || r.URL.Path == "/readyz"
	// A webhook needs no token and no guard: its signature is its
	// authentication (webhook.go).
	if !lang.ReservedPath(r.URL.Path) {
		if e, t, others, methods := s.webhookFor(r.URL.Path, r.Method); t != nil {
			s.serveWebhook(w, r, e, t, others, methods)
			return
		}
	}
	if !probe && !s.opts.Tokens.required() && !s.guard(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// need serves h to requests whose token has role, when the server has
// tokens; the token is then in the request's context (tokenOf).
func (s *Server) need(role Role, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t, ok := authorize(s.opts.Tokens, role, w, r); ok {
			if t != nil {
				r = r.WithContext(context.WithValue(r.Context(), tokenKey, t))
			}
			h.ServeHTTP(w, r)
		}
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
// record how they ended: interrupted (liverun.go), taken up by the next
// server that starts on the state.
func (s *Server) Close() {
	s.stop()
	s.gateMu.Lock()
	s.mu.Lock()
	queued := append(s.queue, s.gated...)
	s.queue, s.gated = nil, nil
	s.mu.Unlock()
	s.gateMu.Unlock()
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
