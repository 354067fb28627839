package state

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestQueueRun: a queued run is recorded with its Idempotency-Key in one
// transaction; the key sent again finds the run; the run starts once
// (running, this process's), ends as a created run does, and a queued run
// that cannot start is recorded as failed.
func TestQueueRun(t *testing.T) {
	s := openStore(t)
	expiry := time.Now().Add(-time.Hour)
	r := &Run{Flow: "f", Inputs: []byte(`{"n":1}`), Origin: "serve"}
	key := &IdempotencyKey{Flow: "f", Key: "k1", Request: "d1"}
	if had, err := s.QueueRun(r, key, expiry); err != nil || had != nil {
		t.Fatalf("QueueRun = %+v, %v", had, err)
	}
	got, err := s.Run(r.ID)
	if err != nil || got.Status != StatusQueued || string(got.Inputs) != `{"n":1}` || got.Origin != "serve" {
		t.Fatalf("the queued run: %+v, %v", got, err)
	}
	// The key again: no second run, the first one's.
	again := &Run{Flow: "f"}
	had, err := s.QueueRun(again, &IdempotencyKey{Flow: "f", Key: "k1", Request: "d2"}, expiry)
	if err != nil || had == nil || had.RunID != r.ID || had.Request != "d1" {
		t.Fatalf("the key again = %+v, %v; want run %s", had, err, r.ID)
	}
	if _, err := s.Run(again.ID); !errors.Is(err, ErrRunNotFound) {
		t.Errorf("a run was recorded for a key recorded already: %v", err)
	}
	// Started once.
	if err := s.StartQueued(r.ID, time.Now(), ""); err != nil {
		t.Fatal(err)
	}
	if err := s.StartQueued(r.ID, time.Now(), ""); !errors.Is(err, ErrNotQueued) {
		t.Errorf("started twice: %v", err)
	}
	var owner string
	if err := s.db.QueryRow(`SELECT owner FROM runs WHERE id = ?`, r.ID).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Run(r.ID); got.Status != "running" || owner != s.owner.id() {
		t.Errorf("the started run: %+v, owner %q", got, owner)
	}
	if err := s.FinishRun(&Run{ID: r.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	// One that cannot start.
	bad := &Run{Flow: "f"}
	if _, err := s.QueueRun(bad, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := s.EndQueued(bad.ID, "failed", "no secret"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Run(bad.ID); got.Status != "failed" || got.Error != "no secret" || got.FinishedAt.IsZero() {
		t.Errorf("a queued run that could not start: %+v", got)
	}
	if err := s.StartQueued(bad.ID, time.Now(), ""); !errors.Is(err, ErrNotQueued) {
		t.Errorf("a failed run started: %v", err)
	}
}

// TestQueuedRunsOfProcessGone: the queued runs of a process that is gone
// are recorded as interrupted when the state is next opened (SQLite: its
// lock file is free; PostgreSQL: its lease expired), so that a server
// takes them up; a live process's stay queued, and one taken so cannot be
// started by the process that queued it.
func TestQueuedRunsOfProcessGone(t *testing.T) {
	if !lockingWorks {
		t.Skip("no file locks on this system")
	}
	dir := t.TempDir()
	a := openStoreIn(t, dir)
	b := openStoreIn(t, dir)
	dead := &Run{Flow: "f"}
	live := &Run{Flow: "f"}
	if _, err := a.QueueRun(dead, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.QueueRun(live, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	switch o := a.owner.(type) {
	case *fileOwner:
		o.unlockAll()
	case *lease:
		a.stop <- struct{}{}
		otherMachine(t, a)
		if _, err := a.w.do(func(ctx context.Context, st *writerStmts) error {
			_, err := st.conn.ExecContext(ctx, `UPDATE owners SET expires_at = 0 WHERE id = ?`, o.id())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		t.Setenv(EnvLease, "100ms")
	}
	c := openStoreIn(t, dir)
	for id, want := range map[string]string{dead.ID: StatusInterrupted, live.ID: StatusQueued} {
		if r, err := c.Run(id); err != nil || r.Status != want {
			t.Errorf("run %s: %+v, %v; want %s", id, r, err, want)
		}
	}
	if r, _ := c.Run(dead.ID); r.Error != queuedInterruptedError {
		t.Errorf("the interrupted queued run says %q", r.Error)
	}
	if err := a.StartQueued(dead.ID, time.Now(), ""); !errors.Is(err, ErrNotQueued) {
		t.Errorf("a queued run taken for abandoned was started: %v", err)
	}
	// Taken up as any interrupted run is: once.
	if err := c.ReopenRun(dead.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.StartQueued(live.ID, time.Now(), ""); err != nil {
		t.Fatal(err)
	}
}

// TestPruneKeepsQueued: runs prune never deletes a queued run, however
// old: it has not started.
func TestPruneKeepsQueued(t *testing.T) {
	s := openStore(t)
	q := &Run{Flow: "f", StartedAt: time.Now().Add(-100 * 24 * time.Hour)}
	if _, err := s.QueueRun(q, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Prune(context.Background(), PruneOptions{Before: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Run(q.ID); err != nil || r.Status != StatusQueued || res.Runs != 0 {
		t.Errorf("after runs prune: %+v, %v (%d pruned); want the queued run kept", r, err, res.Runs)
	}
}

// TestQueueRunWithin: a run whose recording waits for a writer that is
// busy (here with an op that blocks) past its deadline is withdrawn:
// QueueRunWithin fails with the deadline, and nothing of it, neither the
// run nor its Idempotency-Key, is written once the writer goes on. On
// time, it is recorded as QueueRun records it.
func TestQueueRunWithin(t *testing.T) {
	s := openStore(t)
	release := make(chan struct{})
	blocked := make(chan struct{})
	go s.w.do(func(context.Context, *writerStmts) error {
		close(blocked)
		<-release
		return nil
	})
	<-blocked
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r := &Run{Flow: "f", Origin: "serve"}
	key := &IdempotencyKey{Flow: "f", Key: "late", Request: "d"}
	had, err := s.QueueRunWithin(ctx, r, key, time.Time{})
	close(release)
	if !errors.Is(err, context.DeadlineExceeded) || had != nil {
		t.Fatalf("QueueRunWithin behind a blocked writer = %+v, %v; want the deadline", had, err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Run(r.ID); !errors.Is(err, ErrRunNotFound) {
		t.Errorf("the withdrawn run was recorded: %+v, %v", got, err)
	}
	if k, err := s.IdempotencyKeyOf("f", "", "late", time.Time{}); err != nil || k != nil {
		t.Errorf("the withdrawn run's key was recorded: %+v, %v", k, err)
	}
	// In time: recorded.
	ok := &Run{Flow: "f"}
	if had, err := s.QueueRunWithin(context.Background(), ok, key, time.Time{}); err != nil || had != nil {
		t.Fatalf("QueueRunWithin = %+v, %v", had, err)
	}
	if got, err := s.Run(ok.ID); err != nil || got.Status != StatusQueued {
		t.Errorf("the run recorded in time: %+v, %v", got, err)
	}
}

// TestNulText: a step's log and error, and a run's error, holding a NUL
// byte (or bytes that are not UTF-8) are recorded, with U+FFFD for it, on
// either backend (PostgreSQL's text refuses both: the result could not
// have been recorded); an output
// holding the JSON escape \u0000 is recorded as it is.
func TestNulText(t *testing.T) {
	s := openStore(t)
	r := &Run{Flow: "f", Status: "running"}
	if err := s.CreateRun(r); err != nil {
		t.Fatal(err)
	}
	s.RecordStep(&StepResult{RunID: r.ID, Step: "s", Status: "failed", Attempts: 1,
		Outputs: []byte(`{"v":"a\u0000b"}`), Error: "bad\x00byte", Log: "a\x00line\n\xffraw\n"})
	if err := s.FinishRun(&Run{ID: r.ID, Status: "failed", Error: "run\x00error"}); err != nil {
		t.Fatalf("FinishRun: %v", err)
	}
	steps, err := s.Steps(r.ID)
	if err != nil || len(steps) != 1 {
		t.Fatalf("Steps = %v, %v", steps, err)
	}
	st := steps[0]
	if string(st.Outputs) != `{"v":"a\u0000b"}` || st.Error != "bad\uFFFDbyte" || st.Log != "a\uFFFDline\n\uFFFDraw\n" {
		t.Errorf("the step recorded: outputs %s, error %q, log %q", st.Outputs, st.Error, st.Log)
	}
	if got, err := s.Run(r.ID); err != nil || got.Error != "run\uFFFDerror" {
		t.Errorf("the run recorded: %+v, %v", got, err)
	}
}
