package state

import (
	"context"
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

// owned are the lock files of the runs this store created and has not
// finished.
type owned struct {
	mu    sync.Mutex
	files map[string]*os.File
}

func (s *Store) lockPath(runID string) string {
	return filepath.Join(s.w.dir, "locks", runID)
}

// claim takes the lock of a new run. It reports false, and takes nothing,
// when this store holds it already (a run created twice, which the
// database then refuses).
func (s *Store) claim(runID string) (bool, error) {
	s.owned.mu.Lock()
	_, mine := s.owned.files[runID]
	s.owned.mu.Unlock()
	if mine {
		return false, nil
	}
	path := s.lockPath(runID)
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
	s.owned.mu.Lock()
	if s.owned.files == nil {
		s.owned.files = map[string]*os.File{}
	}
	s.owned.files[runID] = f
	s.owned.mu.Unlock()
	return true, nil
}

// release lets the lock of a run go.
func (s *Store) release(runID string) {
	s.owned.mu.Lock()
	f := s.owned.files[runID]
	delete(s.owned.files, runID)
	s.owned.mu.Unlock()
	if f != nil {
		os.Remove(f.Name())
		f.Close() // closing the file releases the lock
	}
}

// releaseAll lets every lock go (Close).
func (s *Store) releaseAll() {
	s.owned.mu.Lock()
	ids := make([]string, 0, len(s.owned.files))
	for id := range s.owned.files {
		ids = append(ids, id)
	}
	s.owned.mu.Unlock()
	for _, id := range ids {
		s.release(id)
	}
}

// abandoned reports whether nobody holds the lock of a running run: its
// lock file is gone (a run of an older flowctl, which took none), or can be
// locked.
func (s *Store) abandoned(runID string) bool {
	if !lockingWorks {
		return false // cannot tell: leave it running
	}
	f, err := os.OpenFile(s.lockPath(runID), os.O_RDWR, 0)
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

// reapInterrupted records as interrupted the running runs whose process is
// gone, and returns their IDs.
func (s *Store) reapInterrupted() ([]string, error) {
	rows, err := s.db.QueryContext(context.Background(), `SELECT id FROM runs WHERE status = 'running'`)
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
		if !s.abandoned(id) {
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
		os.Remove(s.lockPath(id))
		reaped = append(reaped, id)
	}
	return reaped, nil
}

const markInterruptedSQL = `
UPDATE runs SET status = ?, finished_at = ?, error = ?
WHERE id = ? AND status = 'running'`
