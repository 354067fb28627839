package state

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInterruptedRuns: a running run whose lock nobody holds is recorded
// as interrupted when the state is next opened; one whose process still
// holds it is left running.
func TestInterruptedRuns(t *testing.T) {
	if !lockingWorks {
		t.Skip("no file locks on this system")
	}
	dir := t.TempDir()
	a := openSQLiteIn(t, dir)
	live := createRun(t, a, "", "f", time.Time{})
	dead := createRun(t, a, "", "f", time.Time{})
	done := createRun(t, a, "", "f", time.Time{})
	if err := a.FinishRun(&Run{ID: done.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	// dead's process is gone: its lock file is there, locked by no one.
	o := a.owner.(*fileOwner)
	o.mu.Lock()
	o.files[dead.ID].Close()
	delete(o.files, dead.ID)
	o.mu.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "locks", dead.ID)); err != nil {
		t.Fatal(err)
	}

	b := openSQLiteIn(t, dir)
	for id, want := range map[string]string{live.ID: "running", dead.ID: StatusInterrupted, done.ID: "ok"} {
		r, err := b.Run(id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != want {
			t.Errorf("run %s: %s, want %s", id, r.Status, want)
		}
		if want == StatusInterrupted && (r.Error != interruptedError || r.FinishedAt.IsZero()) {
			t.Errorf("interrupted run: error %q, finished %v", r.Error, r.FinishedAt)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "locks", dead.ID)); !os.IsNotExist(err) {
		t.Errorf("the lock file of the interrupted run is left: %v", err)
	}
	// A run that finishes lets its lock go and leaves no file.
	if err := a.FinishRun(&Run{ID: live.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "locks", live.ID)); !os.IsNotExist(err) {
		t.Errorf("the lock file of a finished run is left: %v", err)
	}
	// A running run without a lock file (an older flowctl's) is taken for
	// interrupted too.
	old := &Run{ID: NewRunID(), Flow: "f", Status: "running"}
	if _, err := b.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.insertRun.ExecContext(ctx, old.ID, old.Flow, "default", "", "", nil, "running", nil, nil, nil, "", nil, nil, "", nil, "", "", "")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	c := openSQLiteIn(t, dir)
	if r, err := c.Run(old.ID); err != nil || r.Status != StatusInterrupted {
		t.Errorf("a run without a lock file: %v, %v", r, err)
	}
}

// TestOwnerGone, on either backend: a run whose process let its locks go
// (died) is interrupted when the state is next opened; a run of a live
// process, and a run on Temporal, are left running.
func TestOwnerGone(t *testing.T) {
	if !lockingWorks {
		t.Skip("no file locks on this system")
	}
	dir := t.TempDir()
	a := openStoreIn(t, dir)
	b := openStoreIn(t, dir)
	dead := createRun(t, a, "", "f", time.Time{})
	live := createRun(t, b, "", "f", time.Time{})
	durable := &Run{Flow: "f", Origin: OriginTemporal}
	if err := a.CreateRun(durable); err != nil {
		t.Fatal(err)
	}
	flush(t, a)
	// As the process's end does: its locks go, or its lease is left to
	// expire.
	switch o := a.owner.(type) {
	case *fileOwner:
		o.unlockAll()
	case *lease:
		a.stop <- struct{}{} // no heartbeat renews it
		otherMachine(t, a)   // no process of this machine's is taken for gone
		if _, err := a.w.do(func(ctx context.Context, st *writerStmts) error {
			_, err := st.conn.ExecContext(ctx, `UPDATE owners SET expires_at = 0 WHERE id = ?`, o.id())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		// A lease short enough for the database to have been up for two.
		t.Setenv(EnvLease, "100ms")
	}
	c := openStoreIn(t, dir)
	for id, want := range map[string]string{dead.ID: StatusInterrupted, live.ID: "running", durable.ID: "running"} {
		if r, err := c.Run(id); err != nil || r.Status != want {
			t.Errorf("run %s: %+v, %v; want %s", id, r, err, want)
		}
	}
}
