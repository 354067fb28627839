package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
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
	guarded http.Handler // mux behind the token
	handler http.Handler // everything, behind the request log
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
	// starting are the runs taken off the queue that the state does not
	// have yet (no run_started): GET /v1/runs lists them with the queue.
	starting map[string]*liveRun
	active   int
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
		opts: opts, log: opts.Logger, store: opts.Store, ctx: ctx, stop: stop,
		flows: &flowSet{dir: opts.Dir, registries: opts.Registries, goEngine: opts.GoEngine},
		live:  map[string]*liveRun{}, starting: map[string]*liveRun{}, stopping: make(chan struct{}),
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
	s.handler = s.logRequests(http.HandlerFunc(s.route))
	s.recover()
	s.bg.Add(2)
	go func() {
		defer s.bg.Done()
		s.schedule()
	}()
	go func() {
		defer s.bg.Done()
		s.pruneKeys()
	}()
	return s
}

// ServeHTTP checks the token (but for GET /healthz and the dashboard's
// pages, which hold no data and ask for the token), then serves the
// request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" || isDashboardPath(r.URL.Path) {
		s.mux.ServeHTTP(w, r)
		return
	}
	s.guarded.ServeHTTP(w, r)
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
