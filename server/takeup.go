package server

import (
	"log/slog"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
)

// A live server takes up interrupted runs by itself (Options.NoTakeUp
// turns it off): those whose process died or was stopped for longer than
// its lease, or stopped with SIGTERM, and the runs a server accepted and
// did not start before it died (queued, recorded interrupted then). Every
// takeUpEvery (a fifth of the lease, at most 5 s) it records the runs whose
// process is gone as interrupted (state.Store.Reap) and takes up as many
// of the interrupted runs of its flows as it has places for (--max-active,
// less the runs it runs and queues). Several servers may take up one run:
// the state lets one reopen it (state.Store.ReopenRun), and the others
// drop it. A dead server's runs are so resumed within two leases and a
// fifth of it of its last renewal, on a server with room for them.

// takeUpEvery is how often a server with room looks for interrupted runs,
// at most.
const takeUpEvery = 5 * time.Second

// takeUpPages bounds the pages of interrupted runs one look reads, when
// the first hold runs of other flows.
const takeUpPages = 10

// takeUpLoop looks for interrupted runs to take up until the server
// closes.
func (s *Server) takeUpLoop() {
	every := takeUpEvery
	if l := s.store.Lease(); l > 0 {
		every = min(every, l/5)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		s.takeUpInterrupted()
	}
}

// takeUpInterrupted takes up interrupted runs while this server has room
// for them.
func (s *Server) takeUpInterrupted() {
	room := s.room()
	if room <= 0 || !s.stateIsReady() {
		return
	}
	if _, err := s.store.Reap(); err != nil {
		s.log.Warn("recording the runs of processes gone as interrupted", slog.Any("error", err))
		return
	}
	var after *state.RunKey
	for range takeUpPages {
		runs, next, err := s.store.RunPage(s.ctx, state.RunFilter{Status: state.StatusInterrupted}, after, maxPage)
		if err != nil {
			s.log.Warn("reading the interrupted runs", slog.Any("error", err))
			return
		}
		for _, run := range runs {
			if run.Origin != originServe || s.liveRun(run.ID) != nil {
				continue
			}
			if e := s.flows.get(run.Flow); e == nil || e.prog == nil {
				continue
			}
			s.takeUp(run.ID, run.Flow, true)
			if room--; room <= 0 {
				return
			}
		}
		if next == nil {
			return
		}
		after = next
	}
}

// room is how many more runs this server can start now: --max-active less
// the runs it runs and queues; 0 while it stops.
func (s *Server) room() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining || s.ctx.Err() != nil {
		return 0
	}
	return s.opts.MaxActive - s.active - len(s.queue)
}
