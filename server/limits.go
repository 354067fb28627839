package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
	"go.opentelemetry.io/otel/trace"
)

// The queued runs of a flow with limits (concurrency, rate_limit,
// debounce: docs/serve.md, "Limits") wait in the server's gated list
// rather than its queue: a loop offers each its turn
// (state.Store.StartLimited), highest priority first, then in the order
// they came, while the server has room (--max-active), when one of the
// server's runs ends, when a run is queued, and every runtime.LimitPoll
// (a place freed by another server's run, or a period that ended). A run
// that the state starts runs at once; one that waits has its reason
// recorded (waiting_for).

// gateLoop offers the gated runs their turn until the server closes.
func (s *Server) gateLoop() {
	t := time.NewTimer(runtime.LimitPoll)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.gateWake:
		case <-t.C:
		}
		next := s.gatePass()
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(next)
	}
}

// wakeGate has the gate loop look at the gated runs now.
func (s *Server) wakeGate() {
	select {
	case s.gateWake <- struct{}{}:
	default:
	}
}

// gatePass offers each gated run its turn, and returns when to look
// again.
func (s *Server) gatePass() time.Duration {
	s.mu.Lock()
	runs := slices.Clone(s.gated)
	s.mu.Unlock()
	if len(runs) == 0 {
		return time.Hour // until a run is queued (wakeGate)
	}
	slices.SortStableFunc(runs, func(a, b *liveRun) int {
		if a.limits.Priority != b.limits.Priority {
			return b.limits.Priority - a.limits.Priority
		}
		return a.queuedAt.Compare(b.queuedAt)
	})
	next := runtime.LimitPoll
	now := time.Now()
	// A concurrency key that held a run back holds back the runs after
	// it in this pass: they are not offered their turn again (a write
	// each), once they have been and know why they wait.
	held := map[string]bool{}
	for _, lr := range runs {
		lr.mu.Lock()
		told, until := lr.waitingFor != "", lr.until
		lr.mu.Unlock()
		c := lr.limits.Concurrency
		if told && (until.After(now) || c != nil && held[*c]) {
			if until.After(now) {
				next = min(next, until.Sub(now))
			}
			continue
		}
		started, wait, ok := s.offerTurn(lr)
		if !ok {
			break
		}
		if !started {
			next = min(next, wait)
			if c != nil {
				held[*c] = true
			}
		}
	}
	return max(next, time.Millisecond)
}

// offerTurn starts a gated run when its limits let it. ok is false when
// the server has no room, or the state did not answer: the pass ends.
func (s *Server) offerTurn(lr *liveRun) (started bool, wait time.Duration, ok bool) {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	s.mu.Lock()
	room := s.active < s.opts.MaxActive && s.ctx.Err() == nil && !s.draining && s.stateIsReady()
	gated := slices.Contains(s.gated, lr)
	s.mu.Unlock()
	if !room {
		return false, 0, false
	}
	if !gated {
		return false, runtime.LimitPoll, true // cancelled meanwhile
	}
	origin := ""
	if s.opts.Engine != nil {
		origin = state.OriginTemporal // no process owns it: Temporal's workers run it (liverun.go)
	}
	turn, err := s.store.StartLimited(lr.id, lr.limits, origin)
	switch {
	case errors.Is(err, state.ErrNotQueued):
		// Taken for abandoned: the queue's path resumes it.
		s.mu.Lock()
		s.ungateLocked(lr)
		s.queue = append(s.queue, lr)
		s.dispatchLocked()
		s.mu.Unlock()
		return false, runtime.LimitPoll, true
	case err != nil:
		s.log.Warn("offering a queued run its turn", slog.String("run_id", lr.id), slog.Any("error", err))
		return false, 0, false
	case !turn.Started:
		lr.mu.Lock()
		lr.waitingFor, lr.until = turn.WaitingFor, turn.Until
		lr.mu.Unlock()
		return false, runtime.NextLook(turn, time.Now()), true
	}
	if lr.limits.Debounce != nil {
		// The inputs of the last start of its key.
		if in, diags := runtime.TurnInputs(lr.prog, lr.id, turn); !diags.HasErrors() {
			lr.inputs = in
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ungateLocked(lr)
	lr.mu.Lock()
	lr.waitingFor = ""
	lr.mu.Unlock()
	lr.queued, lr.recorded = false, true // the state has it running
	s.active++
	s.launchLocked(lr)
	return true, 0, true
}

// ungateLocked takes a run off the gated ones; it reports whether it
// was there.
func (s *Server) ungateLocked(lr *liveRun) bool {
	i := slices.Index(s.gated, lr)
	if i >= 0 {
		s.gated = slices.Delete(s.gated, i, i+1)
	}
	return i >= 0
}

// StartOptions are how Start starts a run.
type StartOptions struct {
	Namespace string
	// Priority orders the queue of a concurrency key: higher first.
	Priority int
	// Parent, when valid, is the span the run's span is a child of.
	Parent trace.SpanContext
	// Key, when set, is the idempotency key recorded with the run, in its
	// transaction: a key that started a run before starts none (an
	// on_run trigger's, of the trigger and the ended run).
	Key *state.IdempotencyKey
}

// errNoLimitKey is why start refuses inputs that give no key for the
// flow's limits: trying again gives none either.
var errNoLimitKey = errors.New("the inputs give no key for the flow's limits")

// Start starts a run of a flow this server serves, with inputs resolved
// (compiler.Program.ResolveInputs), as every start that is not an API
// request does (schedules, on_run triggers): recorded queued, through its
// flow's limits, and run when it may. It returns the run's id: a
// debounced start's is the queued run of its key that it joined. It
// fails when the server refuses runs (stopping, a full queue), when the
// flow does not compile, or the state does not record it.
func (s *Server) Start(ctx context.Context, flow string, inputs map[string]cty.Value, o StartOptions) (string, error) {
	e := s.flows.get(flow)
	if e == nil || e.prog == nil {
		return "", errors.New("there is no flow " + flow + " that compiles")
	}
	id, _, err := s.start(ctx, e.prog, inputs, o)
	return id, err
}

// start is Start of a compiled flow; had is o.Key as recorded when it
// started a run before (nothing started then).
func (s *Server) start(ctx context.Context, prog *compiler.Program, inputs map[string]cty.Value, o StartOptions) (id string, had *state.IdempotencyKey, err error) {
	lim, diags := runtime.RunLimits(prog, inputs, o.Priority)
	if diags.HasErrors() {
		return "", nil, fmt.Errorf("%w: %s", errNoLimitKey, runtime.DiagText(diags))
	}
	s.mu.Lock()
	if code, _, msg := s.refuseStartLocked(); code != 0 {
		s.mu.Unlock()
		return "", nil, errors.New(msg)
	}
	s.recording++
	s.mu.Unlock()
	id = state.NewRunID()
	rec := runtime.QueuedRun(prog, runtime.Options{RunID: id, Inputs: inputs, Namespace: o.Namespace, Origin: originServe})
	rec.Limits = lim
	had, err = s.store.QueueRunWithin(ctx, rec, o.Key, time.Now().Add(-s.opts.IdempotencyExpiry))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recording--
	switch {
	case err != nil:
		return "", nil, err
	case had != nil:
		return had.RunID, had, nil
	case lim != nil && lim.Joined != "":
		return lim.Joined, nil, nil
	}
	s.enqueueLocked(id, prog, inputs, o.Namespace, o.Parent, lim)
	return id, nil, nil
}

// requeueLimited queues again, to wait for its turn, a run taken up that
// a server queued and did not start before it ended, of a flow with
// limits (state.Store.RequeueInterrupted); it reports whether it did.
func (s *Server) requeueLimited(lr *liveRun, run *state.Run) bool {
	if lr.prog.Limits.Empty() {
		return false
	}
	lim, diags := runtime.RunLimits(lr.prog, lr.inputs, 0)
	if diags.HasErrors() {
		return false
	}
	priority, ok, err := s.store.RequeueInterrupted(run.ID)
	if err != nil || !ok {
		if err != nil {
			s.log.Warn("queuing a run taken up again", slog.String("run_id", run.ID), slog.Any("error", err))
		}
		return false
	}
	lim.Priority = priority
	lr.resume, lr.queued, lr.limits, lr.queuedAt = false, true, lim, run.StartedAt
	return true
}
