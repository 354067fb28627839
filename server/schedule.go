package server

import (
	"log/slog"
	"time"

	"github.com/flowctl/flowctl/lang"
)

// scheduleTick is how often the schedules are looked at.
const scheduleTick = 250 * time.Millisecond

// schedule starts the runs of the flows' schedules, and of their on_run
// triggers (onrun.go), until the server closes. When each schedule last fired is kept in the state: a time
// missed while no server ran starts one run when the server starts, unless
// the schedule says catch_up = false; a schedule seen for the first time
// fires at its next time.
func (s *Server) schedule() {
	last := map[string]time.Time{}   // by flow/schedule
	marks := map[string]*onRunMark{} // by flow/trigger (onrun.go)
	t := time.NewTicker(scheduleTick)
	defer t.Stop()
	for {
		now := time.Now()
		for _, e := range s.flows.list() {
			if e.prog == nil {
				continue
			}
			for _, sch := range e.prog.Schedules {
				s.fire(e, sch, last, now)
			}
		}
		s.onRun(marks, now)
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fire starts a run of a schedule whose time has come. Each tick is
// claimed in the state (Store.ClaimScheduleFire), so that of the servers
// that share a state exactly one starts its run.
func (s *Server) fire(e *flowEntry, sch *lang.Schedule, last map[string]time.Time, now time.Time) {
	flow := e.prog.Flow.Name
	key := flow + "/" + sch.Name
	prev, ok := last[key]
	if !ok {
		fired, found, err := s.store.ScheduleFired(flow, sch.Name)
		if err != nil {
			return // tried again at the next tick
		}
		if !found || !sch.CatchUp && !sch.Next(fired).After(now) {
			// Nothing was missed, or what was is not made up for: the
			// schedule counts from now (another server may have done so
			// first: then its time is read at the next tick).
			var since time.Time
			if found {
				since = fired
			}
			if won, err := s.store.ClaimScheduleFire(flow, sch.Name, since, now); err != nil || !won {
				return
			}
			fired = now
		}
		prev = fired
		last[key] = prev
	}
	if sch.Next(prev).After(now) {
		return
	}
	won, err := s.store.ClaimScheduleFire(flow, sch.Name, prev, now)
	if err != nil {
		return // tried again at the next tick
	}
	if !won {
		delete(last, key) // another server fired it: read when, at the next tick
		return
	}
	last[key] = now
	inputs, diags := e.prog.ScheduleInputs(sch)
	if diags.HasErrors() {
		return // the compiler reports it
	}
	id, _, err := s.start(s.ctx, e.prog, inputs, StartOptions{})
	if err != nil {
		s.log.Warn("schedule fired, run not started", slog.String("flow", flow), slog.String("schedule", sch.Name), slog.Any("error", err))
		return
	}
	s.log.Info("schedule fired", slog.String("flow", flow), slog.String("schedule", sch.Name), slog.String("run_id", id))
}
