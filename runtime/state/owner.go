package state

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A running run is owned by the process that created it: CreateRun takes
// an exclusive lock on a file of the run's own (locks/RUN_ID) before the
// run exists in the database, and FinishRun (or Close, or the process's
// end, however it ends) lets it go. When a store is opened, runs still
// "running" whose lock nobody holds are runs whose process died — killed,
// or the machine stopped — and are recorded as "interrupted". The kernel
// releases a dead process's locks, so no PID is guessed at.

// StatusInterrupted is the status of a run whose process ended before it
// finished.
const StatusInterrupted = "interrupted"

// interruptedError is the error recorded with an interrupted run.
const interruptedError = "the process running it ended before the run finished (it was killed, or the machine stopped); the steps it recorded are kept"

// An owner keeps the locks by which a process owns the running runs it
// created: lock files in a state directory (fileOwner), or PostgreSQL's
// advisory locks (pgOwner).
type owner interface {
	// claim takes the lock of a new run. It reports false, and takes
	// nothing, when this store holds it already (a run created twice,
	// which the database then refuses).
	claim(runID string) (bool, error)
	// release lets the lock of a run go.
	release(runID string)
	// close lets every lock go (Store.Close).
	close()
	// abandoned reports whether nobody holds the lock of a running run.
	abandoned(runID string) bool
	// forget drops what is left of the lock of a run that was reaped.
	forget(runID string)
}

// fileOwner locks a file of each run (locks/RUN_ID in the state
// directory).
type fileOwner struct {
	dir   string
	mu    sync.Mutex
	files map[string]*os.File // the runs this store created and has not finished
}

func (o *fileOwner) lockPath(runID string) string {
	return filepath.Join(o.dir, "locks", runID)
}

func (o *fileOwner) forget(runID string) { os.Remove(o.lockPath(runID)) }

func (o *fileOwner) claim(runID string) (bool, error) {
	o.mu.Lock()
	_, mine := o.files[runID]
	o.mu.Unlock()
	if mine {
		return false, nil
	}
	path := o.lockPath(runID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return false, err
	}
	if ok, err := tryLock(f); err != nil || !ok {
		f.Close()
		if err == nil {
			err = fmt.Errorf("another process holds the lock of run %s", runID)
		}
		return false, err
	}
	o.mu.Lock()
	if o.files == nil {
		o.files = map[string]*os.File{}
	}
	o.files[runID] = f
	o.mu.Unlock()
	return true, nil
}

func (o *fileOwner) release(runID string) {
	o.mu.Lock()
	f := o.files[runID]
	delete(o.files, runID)
	o.mu.Unlock()
	if f != nil {
		os.Remove(f.Name())
		f.Close() // closing the file releases the lock
	}
}

func (o *fileOwner) close() {
	o.mu.Lock()
	ids := make([]string, 0, len(o.files))
	for id := range o.files {
		ids = append(ids, id)
	}
	o.mu.Unlock()
	for _, id := range ids {
		o.release(id)
	}
}

// abandoned: the run's lock file is gone (a run of an older flowctl, which
// took none), or can be locked.
func (o *fileOwner) abandoned(runID string) bool {
	if !lockingWorks {
		return false // cannot tell: leave it running
	}
	f, err := os.OpenFile(o.lockPath(runID), os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLock(f)
	return err == nil && ok // the lock goes with f.Close
}

// pgOwner holds a session-level advisory lock per running run, keyed by
// the hash of its ID, on a connection of its own: PostgreSQL lets them go
// when the process's connection ends, however it ends.
type pgOwner struct {
	conn *sql.Conn
	mu   sync.Mutex
	held map[string]bool
}

func (o *pgOwner) claim(runID string) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held[runID] {
		return false, nil
	}
	var ok bool
	if err := o.conn.QueryRowContext(context.Background(), `SELECT pg_try_advisory_lock($1)`, keyHash("run "+runID)).Scan(&ok); err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("another process holds the lock of run %s", runID)
	}
	o.held[runID] = true
	return true, nil
}

func (o *pgOwner) release(runID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held[runID] {
		delete(o.held, runID)
		o.conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, keyHash("run "+runID))
	}
}

func (o *pgOwner) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.held) > 0 {
		o.held = map[string]bool{}
		o.conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock_all()`)
	}
	o.conn.Close()
}

func (o *pgOwner) abandoned(runID string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held[runID] {
		return false
	}
	ctx := context.Background()
	var ok bool
	if err := o.conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, keyHash("run "+runID)).Scan(&ok); err != nil || !ok {
		return false
	}
	o.conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, keyHash("run "+runID))
	return true
}

func (o *pgOwner) forget(string) {}

// OriginTemporal is the origin of runs on the temporal engine: Temporal
// keeps them going, not a process, so they take no lock and are never
// reaped.
const OriginTemporal = "temporal"

// reapInterrupted records as interrupted the running runs whose process is
// gone, and returns their IDs.
func (s *Store) reapInterrupted() ([]string, error) {
	rows, err := s.db.QueryContext(context.Background(), `SELECT id FROM runs WHERE status = 'running' AND origin != ?`, OriginTemporal)
	if err != nil {
		return nil, err
	}
	var running []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		running = append(running, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var reaped []string
	for _, id := range running {
		if !s.owner.abandoned(id) {
			continue
		}
		now := time.Now()
		_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
			// Only if it is still running: another process may have
			// reaped it, or (with no lock file) finished it, meanwhile.
			_, err := st.markInterrupted.ExecContext(ctx, StatusInterrupted, nanos(now), interruptedError, id)
			return err
		})
		if err != nil {
			return reaped, err
		}
		s.owner.forget(id)
		reaped = append(reaped, id)
	}
	return reaped, nil
}

const markInterruptedSQL = `
UPDATE runs SET status = ?, finished_at = ?, error = ?
WHERE id = ? AND status = 'running'`
