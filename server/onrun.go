package server

import (
	"errors"
	"log/slog"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// An on_run trigger starts a run of its flow for each run of another
// flow that ends with one of its statuses, from the time a server first
// serves the trigger. Every server that serves it reads the ended runs in
// the state (Store.FinishedRuns); the run each starts is recorded with an
// idempotency key of the trigger and the ended run, in one transaction,
// so that of the servers that share a state exactly one starts it.

// onRunGrace is how far back, before the newest end seen, the ended runs
// are read again: a run whose end another server wrote late, with an
// earlier time, is not missed.
const onRunGrace = 10 * time.Second

// onRunBatch bounds the ended runs read at once (a variable for the
// tests).
var onRunBatch = 500

// onRunMark is what a server knows of an on_run trigger: the ends from
// which it reads, and the runs it handled since.
type onRunMark struct {
	// first is when the server first served the trigger: runs that ended
	// before start nothing.
	first   time.Time
	since   time.Time
	handled map[string]time.Time // run ID → when it ended
}

// onRun starts the runs of the flows' on_run triggers for the runs that
// ended since the last tick (called by schedule, at each of its ticks).
func (s *Server) onRun(marks map[string]*onRunMark, now time.Time) {
	for _, e := range s.flows.list() {
		if e.prog == nil {
			continue
		}
		for _, t := range e.prog.Triggers {
			if t.OnRun == nil {
				continue
			}
			key := e.prog.Flow.Name + "/" + t.Name
			m := marks[key]
			if m == nil {
				m = &onRunMark{first: now, since: now, handled: map[string]time.Time{}}
				marks[key] = m
			}
			s.onRunTick(e.prog, t, m)
		}
	}
}

func (s *Server) onRunTick(prog *compiler.Program, t *lang.Trigger, m *onRunMark) {
	from := m.since.Add(-onRunGrace)
	for {
		runs, err := s.store.FinishedRuns(t.OnRun.Flow, t.OnRun.Status, from, onRunBatch)
		if err != nil {
			return // read again at the next tick
		}
		for _, run := range runs {
			if _, ok := m.handled[run.ID]; ok || run.FinishedAt.Before(m.first) {
				continue
			}
			if !s.onRunStart(prog, t, run) {
				return // tried again at the next tick
			}
			m.handled[run.ID] = run.FinishedAt
			if run.FinishedAt.After(m.since) {
				m.since = run.FinishedAt
			}
		}
		// A full batch: the next, from the last end read (the runs
		// ended then are read again, and skipped).
		if len(runs) < onRunBatch || !runs[len(runs)-1].FinishedAt.After(from) {
			break
		}
		from = runs[len(runs)-1].FinishedAt
	}
	for id, at := range m.handled {
		if at.Before(m.since.Add(-2 * onRunGrace)) {
			delete(m.handled, id)
		}
	}
}

// onRunStart starts the run of trigger t for the ended run, unless
// another server did; false when it is to be tried again.
func (s *Server) onRunStart(prog *compiler.Program, t *lang.Trigger, run *state.Run) bool {
	flow := prog.Flow.Name
	outputs := cty.EmptyObjectVal
	if len(run.Outputs) > 0 {
		if v, err := jsonval.Decode(run.Outputs); err == nil && !v.IsNull() {
			outputs = v
		}
	}
	vars := compiler.TriggerVars(t, cty.NilVal, cty.NilVal, cty.NilVal, cty.NilVal, map[string]cty.Value{
		"outputs": outputs, "status": cty.StringVal(run.Status), "id": cty.StringVal(run.ID), "flow": cty.StringVal(run.Flow)})
	log := s.log.With(slog.String("flow", flow), slog.String("trigger", t.Name), slog.String("after_run", run.ID))
	start, diags := prog.TriggerWhen(t, vars)
	if diags.HasErrors() {
		log.Error("on_run trigger not started: its when does not evaluate", slog.String("error", lang.ErrorSentence(diags, true)))
		return true
	}
	if !start {
		return true
	}
	inputs, diags := prog.TriggerInputs(t, vars)
	if diags.HasErrors() {
		log.Error("on_run trigger not started: its inputs do not fit", slog.String("error", lang.ErrorSentence(diags, true)))
		return true
	}
	key := &state.IdempotencyKey{Flow: flow, Key: "on_run " + t.Name + " " + run.ID, Request: run.ID}
	id, had, err := s.start(s.ctx, prog, inputs, StartOptions{Priority: t.Priority, Key: key})
	switch {
	case errors.Is(err, errNoLimitKey):
		log.Error("on_run trigger not started: its inputs give no key for the flow's limits", slog.Any("error", err))
		return true
	case err != nil:
		log.Warn("on_run trigger: run not started, tried again at the next tick", slog.Any("error", err))
		return false
	case had != nil:
		return true // another server started it
	}
	log.Info("on_run trigger started a run", slog.String("run_id", id))
	return true
}
