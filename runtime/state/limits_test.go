package state

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

func queueLimitedRun(t *testing.T, s *Store, flow string, inputs string, l RunLimits) (*Run, *RunLimits) {
	t.Helper()
	r := &Run{Flow: flow, Inputs: json.RawMessage(inputs), Limits: &l}
	if _, err := s.QueueRun(r, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return r, r.Limits
}

func key(s string) *string { return &s }

// TestStartLimited: a concurrency key of 1 starts one run of the key at
// a time, and the next by priority, then arrival; another key is not
// held back; a rate limit of 1 a minute starts one run and says until
// when the next waits; a debounce key makes the starts within its period
// one queued run with the last inputs.
func TestStartLimited(t *testing.T) {
	s := openStore(t)
	c := func(k string, prio int) RunLimits {
		return RunLimits{Concurrency: key(k), ConcurrencyLimit: 1, Priority: prio}
	}
	a1, l1 := queueLimitedRun(t, s, "f", `{}`, c("a", 0))
	a2, l2 := queueLimitedRun(t, s, "f", `{}`, c("a", 0))
	a3, l3 := queueLimitedRun(t, s, "f", `{}`, c("a", 5))
	b1, lb := queueLimitedRun(t, s, "f", `{}`, c("b", 0))
	turn := func(r *Run, l *RunLimits) Turn {
		t.Helper()
		tr, err := s.StartLimited(r.ID, l, "")
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	// a1 is behind a3 (priority 5): a3 first.
	if tr := turn(a1, l1); tr.Started || tr.WaitingFor != `concurrency key "a"` {
		t.Fatalf("a1 before a3 = %+v, want waiting for concurrency key \"a\"", tr)
	}
	if tr := turn(a3, l3); !tr.Started {
		t.Fatalf("a3 = %+v, want started", tr)
	}
	if tr := turn(b1, lb); !tr.Started {
		t.Fatalf("b1 = %+v, want started (another key)", tr)
	}
	if tr := turn(a1, l1); tr.Started {
		t.Fatalf("a1 while a3 runs = %+v, want waiting", tr)
	}
	if got, err := s.Run(a1.ID); err != nil || got.WaitingFor != `concurrency key "a"` {
		t.Fatalf("a1 recorded = %+v, %v; want waiting_for concurrency key \"a\"", got, err)
	}
	if err := s.FinishRun(&Run{ID: a3.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if tr := turn(a2, l2); tr.Started {
		t.Fatalf("a2 before a1 = %+v, want waiting (a1 came first)", tr)
	}
	if tr := turn(a1, l1); !tr.Started {
		t.Fatalf("a1 once a3 ended = %+v, want started", tr)
	}
	if got, _ := s.Run(a1.ID); got.WaitingFor != "" || got.Status != "running" {
		t.Fatalf("a1 started = %+v", got)
	}

	rl := RunLimits{Rate: key("r"), RateLimit: 1, RatePeriod: time.Minute}
	r1, lr1 := queueLimitedRun(t, s, "g", `{}`, rl)
	r2, lr2 := queueLimitedRun(t, s, "g", `{}`, rl)
	if tr := turn(r1, lr1); !tr.Started {
		t.Fatalf("r1 = %+v, want started", tr)
	}
	if tr := turn(r2, lr2); tr.Started || tr.WaitingFor != `rate limit key "r"` || time.Until(tr.Until) < 50*time.Second {
		t.Fatalf("r2 = %+v, want waiting a minute for rate limit key \"r\"", tr)
	}

	dl := RunLimits{Debounce: key("d"), DebouncePeriod: time.Hour}
	d1, ld1 := queueLimitedRun(t, s, "h", `{"n":1}`, dl)
	for n := 2; n <= 10; n++ {
		_, ld := queueLimitedRun(t, s, "h", `{"n":`+string(rune('0'+n%10))+`}`, dl)
		if ld.Joined != d1.ID {
			t.Fatalf("start %d joined %q, want %s", n, ld.Joined, d1.ID)
		}
	}
	tr := turn(d1, ld1)
	if tr.Started || tr.WaitingFor != `debounce key "d"` || string(tr.Inputs) != `{"n":0}` {
		t.Fatalf("d1 = %+v (inputs %s), want waiting with the last inputs", tr, tr.Inputs)
	}
	runs, err := s.ListRuns(RunFilter{Flow: "h"}, 0)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs of h = %d, %v; want 1", len(runs), err)
	}
}

// TestPruneLimitSlots: pruning runs deletes the places of limits they
// took, but a rate limit's place whose period has not ended.
func TestPruneLimitSlots(t *testing.T) {
	s := openStore(t)
	for _, l := range []RunLimits{
		{Concurrency: key("c"), ConcurrencyLimit: 1},
		{Rate: key("r"), RateLimit: 1, RatePeriod: time.Nanosecond},
		{Rate: key("q"), RateLimit: 1, RatePeriod: time.Hour},
	} {
		r, lr := queueLimitedRun(t, s, "f", `{}`, l)
		if tr, err := s.StartLimited(r.ID, lr, ""); err != nil || !tr.Started {
			t.Fatalf("start = %+v, %v", tr, err)
		}
		if err := s.FinishRun(&Run{ID: r.ID, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM limit_slots`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 3 {
		t.Fatalf("%d places before the prune, want 3", n)
	}
	if _, err := s.Prune(context.Background(), PruneOptions{Before: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Errorf("%d places after the prune, want 1 (the rate limit's of this hour)", n)
	}
}

// TestDebouncedKeyOnce: a start with an idempotency key that started a
// run before (a webhook's delivery id redelivered, an on_run claim
// another server won) gets that key back and joins no debounced run: the
// queued run keeps the inputs and the time of the starts that came with
// keys of their own.
func TestDebouncedKeyOnce(t *testing.T) {
	s := openStore(t)
	dl := func() *RunLimits { return &RunLimits{Debounce: key("d"), DebouncePeriod: time.Hour} }
	start := func(k, inputs string) (*Run, *IdempotencyKey) {
		t.Helper()
		r := &Run{ID: NewRunID(), Flow: "h", Inputs: json.RawMessage(inputs), Limits: dl()}
		had, err := s.QueueRun(r, &IdempotencyKey{Flow: "h", Key: k, Request: inputs}, time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return r, had
	}
	first, had := start("k1", `{"n":1}`)
	if had != nil || first.Limits.Joined != "" {
		t.Fatalf("the first start: had %+v, joined %q", had, first.Limits.Joined)
	}
	second, had := start("k2", `{"n":2}`)
	if had != nil || second.Limits.Joined != first.ID {
		t.Fatalf("a second key: had %+v, joined %q; want %s", had, second.Limits.Joined, first.ID)
	}
	again, had := start("k2", `{"n":3}`)
	if had == nil || had.RunID != first.ID || had.Request != `{"n":2}` || again.Limits.Joined != "" {
		t.Fatalf("the second key again: had %+v, joined %q; want the key of run %s", had, again.Limits.Joined, first.ID)
	}
	got, err := s.Run(first.ID)
	if err != nil || string(got.Inputs) != `{"n":2}` {
		t.Fatalf("the queued run's inputs = %s, %v; want those of the last start with a key of its own", got.Inputs, err)
	}
}

// TestPausedRunHoldsItsPlace: a paused run keeps its place under its
// concurrency key (its running steps go on, and resuming it waits for no
// turn): the next run of the key waits while it is paused and after it is
// resumed, and starts once it has ended. A queued run that is paused
// waits for its turn as any other.
func TestPausedRunHoldsItsPlace(t *testing.T) {
	s := openStore(t)
	c := RunLimits{Concurrency: key("k"), ConcurrencyLimit: 1}
	a, la := queueLimitedRun(t, s, "f", `{}`, c)
	b, lb := queueLimitedRun(t, s, "f", `{}`, c)
	turn := func(r *Run, l *RunLimits) Turn {
		t.Helper()
		tr, err := s.StartLimited(r.ID, l, "")
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	if tr := turn(a, la); !tr.Started {
		t.Fatalf("a = %+v, want started", tr)
	}
	if err := s.PauseRun(a.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := s.PauseRun(b.ID, "alice"); err != nil {
		t.Fatalf("pausing a queued run: %v", err)
	}
	if tr := turn(b, lb); tr.Started || tr.WaitingFor != `concurrency key "k"` {
		t.Fatalf("b while a is paused = %+v, want waiting for concurrency key \"k\"", tr)
	}
	if was, err := s.ResumeRun(a.ID); err != nil || !was {
		t.Fatalf("resuming a = %v, %v", was, err)
	}
	if tr := turn(b, lb); tr.Started {
		t.Fatalf("b while a runs again = %+v, want waiting", tr)
	}
	if err := s.FinishRun(&Run{ID: a.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if tr := turn(b, lb); !tr.Started {
		t.Fatalf("b once a ended = %+v, want started", tr)
	}
	if p, err := s.Paused(b.ID); err != nil || p == nil || p.By != "alice" {
		t.Fatalf("b started paused = %+v, %v; want its pause kept (no step starts until resumed)", p, err)
	}
}
