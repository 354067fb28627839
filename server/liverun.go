package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	"github.com/zclconf/go-cty/cty"
	"go.opentelemetry.io/otel/trace"
)

// Run statuses the server adds to the state's: a run waiting for a place
// (--max-active), and one that could not start.
const (
	statusQueued  = "queued"
	statusRunning = "running" // the state's
	// statusCancelling is the answer to the cancellation of a running run:
	// it stops its steps, then ends cancelled.
	statusCancelling = "cancelling"
)

// liveRun is a run the server started or queued, while it is not
// finished. Its events are kept here as well as in the state, so that
// streams read them without waiting for the state's writer.
type liveRun struct {
	id        string
	flow      string
	prog      *compiler.Program
	inputs    map[string]cty.Value
	namespace string
	// trace is the span of the request that started or resumed it, the
	// parent of the run's span.
	trace trace.SpanContext

	// resume: the run exists in the state and continues (after a
	// decision, a deadline, or a crash of the server).
	resume bool
	// queued: the run is recorded queued by this server
	// (state.Store.QueueRun) and has not started: it is started, not
	// created.
	queued bool
	// recorded: the run is recorded running by this server, which
	// starts it at once (postRun): it is neither created nor started.
	recorded bool
	// failResume, when set, is why a run that should be resumed cannot
	// be: it is recorded as failed with it instead.
	failResume string
	seq        int64 // the last event's number
	// base: the events numbered up to base were recorded by an earlier
	// server (before a restart); they are in the state, not in events.
	base int64

	mu       sync.Mutex
	status   string // queued, running, waiting, then the run's
	events   []state.Event
	changed  chan struct{} // closed and replaced when events or status change
	done     bool          // finished, and its events are in the state
	cancel   context.CancelFunc
	notStart *api.RunError // why the run could not start, when it could not
	// cancelled: someone cancelled it (POST …/cancel), as opposed to the
	// server stopping.
	cancelled bool

	// limits, of a run of a flow with limits, are its keys: it waits in
	// the server's gated runs (limits.go), since queuedAt; waitingFor
	// is why, once its turn was offered, and until when it waits at
	// least (a period: zero for a concurrency key).
	limits     *state.RunLimits
	queuedAt   time.Time
	waitingFor string
	until      time.Time // its turn comes this late at the earliest
}

func newLiveRun(id, flow string, prog *compiler.Program, inputs map[string]cty.Value, ns string) *liveRun {
	return &liveRun{id: id, flow: flow, prog: prog, inputs: inputs, namespace: ns,
		status: statusQueued, changed: make(chan struct{})}
}

// publish adds an event and wakes the streams.
func (lr *liveRun) publish(e state.Event) {
	lr.mu.Lock()
	lr.events = append(lr.events, e)
	lr.wakeLocked()
	lr.mu.Unlock()
}

func (lr *liveRun) wakeLocked() {
	close(lr.changed)
	lr.changed = make(chan struct{})
}

// since returns the events after seq, whether the run is done, and a
// channel closed when there is more. The events are in seq order and only
// appended to, so they are found by a binary search and returned without
// a copy: a stream that wakes for each of a 100,000-instance for_each's
// events reads the new ones, not all of them again.
func (lr *liveRun) since(seq int64) ([]state.Event, bool, <-chan struct{}) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	n := len(lr.events)
	i := sort.Search(n, func(i int) bool { return lr.events[i].Seq > seq })
	return lr.events[i:n:n], lr.done, lr.changed
}

// run runs the flow, or resumes it, and records its events, numbered
// from 1 across the run's resumptions.
func (s *Server) run(ctx context.Context, lr *liveRun) {
	if lr.failResume != "" {
		s.failToResume(lr)
		return
	}
	res, err := s.apply(ctx, lr)
	if lr.queued && errors.Is(err, state.ErrNotQueued) {
		// Taken for abandoned (this server lost its lease): it is
		// interrupted, and resumed here unless another server did.
		s.log.Warn("queued run taken for abandoned; resuming it", slog.String("run_id", lr.id), slog.String("flow", lr.flow))
		lr.queued, lr.resume = false, true
		res, err = s.apply(ctx, lr)
	}
	s.ended(lr, res, err)
}

// apply runs or resumes a live run, or starts it when it is queued.
func (s *Server) apply(ctx context.Context, lr *liveRun) (*runtime.Result, error) {
	var failed []string
	var started time.Time
	apply := runtime.Apply
	queued := lr.queued
	if s.opts.Engine != nil {
		apply = s.opts.Engine.Apply
		if queued {
			// Temporal's workers record the run: it is started for
			// them (and no process owns it).
			if err := s.store.StartQueued(lr.id, time.Now(), state.OriginTemporal); err != nil {
				return nil, err
			}
			lr.queued, queued = false, false
		}
	}
	return apply(ctx, lr.prog, runtime.Options{
		RunID: lr.id, Inputs: lr.inputs, Namespace: lr.namespace, Store: s.store, Executors: s.opts.Executors,
		Resume: lr.resume, Queued: queued, Recorded: lr.recorded, Origin: originServe, NoRecordPrompts: s.opts.NoRecordPrompts,
		Observe: func(e runtime.Event) {
			s.metrics.observe(lr.flow, e)
			switch e := e.(type) {
			case runtime.RunStarted:
				started = e.Time
				s.log.Info("run started", slog.String("run_id", lr.id), slog.String("flow", lr.flow),
					slog.String("namespace", nsOf(lr.namespace)), slog.Bool("resumed", e.Resumed))
			case runtime.StepFinished:
				if e.Status == runtime.StatusFailed && !slices.Contains(failed, e.Step) {
					failed = append(failed, e.Step)
				}
			case runtime.RunFinished:
				s.log.Info("run finished", slog.String("run_id", lr.id), slog.String("flow", lr.flow),
					slog.String("status", string(e.Status)), durationMS(e.Time.Sub(started)))
				s.notify.finished(lr.flow, e, failed)
			case runtime.RunWaiting:
				s.log.Info("run waiting", slog.String("run_id", lr.id), slog.String("flow", lr.flow),
					slog.Int("approvals", len(e.Waiting)), durationMS(e.Time.Sub(started)))
				s.notify.waiting(lr.flow, e)
			}
			typ, doc := runtime.EventJSON(e)
			if doc == nil {
				return
			}
			data, err := json.Marshal(doc)
			if err != nil {
				return
			}
			lr.mu.Lock() // GET /v1/runs/{id} reads seq
			lr.seq++
			ev := state.Event{RunID: lr.id, Seq: lr.seq, Type: typ, Data: data}
			lr.mu.Unlock()
			if typ != "step_delta" {
				// A streaming step's text is live only: its reply is
				// in its outputs and its call traces.
				s.store.RecordEvent(ev)
			}
			if typ == "run_started" {
				lr.mu.Lock()
				lr.status = "running"
				lr.queued, lr.recorded = false, false // the state has it running
				lr.mu.Unlock()
			}
			lr.publish(ev)
		},
	})
}

// ended records how a live run's apply ended, and starts what it makes
// ready.
func (s *Server) ended(lr *liveRun, res *runtime.Result, err error) {
	// The events are in the state before the run is taken off the live
	// ones: a stream that starts then reads them there.
	s.store.FlushRun(lr.id)
	lr.mu.Lock()
	switch {
	case errors.Is(err, state.ErrRunTaken):
		// This server lost its lease and another took the run over: it
		// started no step since it knew; the state says what it is.
		s.log.Warn("run taken over by another process: not going on with it", slog.String("run_id", lr.id), slog.String("flow", lr.flow))
		if run, e := s.store.Run(lr.id); e == nil && run.Status != "" {
			lr.status = run.Status
		}
	case err != nil && lr.resume:
		// Not resumed (another process holds the run): the state
		// says what it is.
		if run, e := s.store.Run(lr.id); e == nil && run.Status != "" {
			lr.status = run.Status
		}
	case errors.Is(err, runtime.ErrStopping):
		// Its engine keeps it going; the state says what it is.
		lr.status = "running"
	case err != nil && res != nil && res.RunID != "":
		// It started and its steps ran; the state did not take its end
		// (the runtime recorded it failed when it could). Not a run that
		// did not start, and not one to start again: the state says
		// what it is.
		s.log.Error("run not recorded", slog.String("run_id", lr.id), slog.String("flow", lr.flow), slog.Any("error", err))
		lr.status = string(runtime.StatusFailed)
		if run, e := s.store.Run(lr.id); e == nil && run.Status != "" {
			lr.status = run.Status
		}
	case err != nil && s.ctx.Err() == nil && !s.checkState(s.ctx):
		// The state does not answer: queued again, started when it does.
		lr.status = statusQueued
		lr.mu.Unlock()
		s.log.Warn("run not started: the state does not answer; queued again", slog.String("run_id", lr.id),
			slog.String("flow", lr.flow), slog.Any("error", err))
		s.requeue(lr)
		return
	case err != nil:
		s.log.Error("run not started", slog.String("run_id", lr.id), slog.String("flow", lr.flow), slog.Any("error", err))
		lr.status = "failed"
		lr.notStart = &api.RunError{Message: "The run could not start; the server's log says why, under run ID " + lr.id + ".", Diagnostics: []api.Diagnostic{}}
	case res.RunID == "":
		lr.status = "failed"
		lr.notStart = api.DiagnosticsError("The run could not start: "+runtime.DiagText(res.Diagnostics), nil, res.Diagnostics)
	default:
		lr.status = string(res.Status)
	}
	if err == nil && res.RunID != "" && res.Status == runtime.StatusCancelled && !lr.cancelled && s.ctx.Err() != nil {
		// Cancelled by the server stopping: the next server takes it up.
		if s.store.Interrupt(lr.id) == nil {
			lr.status = state.StatusInterrupted
		}
	}
	if lr.notStart != nil && (lr.queued || lr.recorded) {
		// Recorded, never started: recorded as failed.
		var e error
		if lr.queued {
			e = s.store.EndQueued(lr.id, lr.status, lr.notStart.Message)
		} else {
			e = s.store.FinishRun(&state.Run{ID: lr.id, Status: lr.status, Error: lr.notStart.Message})
		}
		if e != nil {
			s.log.Error("recording a run that could not start", slog.String("run_id", lr.id), slog.Any("error", e))
		}
	}
	lr.queued, lr.recorded = false, false
	waiting := err == nil && res.Status == runtime.StatusWaiting
	// Cancelled while it was stopping to wait: cancelled now.
	cancelNow := waiting && lr.cancelled
	if cancelNow {
		lr.status = statusQueued
	}
	lr.done = !waiting
	lr.resume = true // from now on it exists in the state
	lr.wakeLocked()
	lr.mu.Unlock()
	s.finished(lr)
	switch {
	case cancelNow:
		s.cancelQueued(lr)
	case waiting:
		s.waiting(lr, res.Waiting)
	}
}

// requeue puts a run that could not start back at the head of the queue.
func (s *Server) requeue(lr *liveRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	s.queue = slices.Insert(s.queue, 0, lr)
	s.dispatchLocked()
}

// originServe is the origin of the runs the server starts: it resumes
// those of them that a crash interrupted.
const originServe = "serve"
