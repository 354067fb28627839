package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A running run is owned by the process that created (or resumed) it,
// and a run whose process is gone is recorded as "interrupted", to be
// resumed or cancelled by a person or a server: a run never stays
// "running" for good, and no run is resumed while its process still runs
// it. How a process shows that it is alive depends on the database:
//
//   - SQLite (fileOwner): CreateRun takes an exclusive lock on a file of
//     the run's own (locks/RUN_ID) before the run exists in the database,
//     and FinishRun (or Close, or the process's end, however it ends)
//     lets it go. The kernel releases a dead process's locks, so a run
//     whose lock nobody holds is one whose process died.
//   - PostgreSQL (lease.go): a lease. Each process has a row in owners,
//     renewed by every batch it writes and by a heartbeat, and its runs
//     name it. A process whose row has not been renewed for twice its
//     lease, while the database was up, is taken for gone. Unlike a
//     session's advisory lock, a lease outlives a lost connection: a
//     restart of the database takes no run from a process that comes
//     back to it.

// StatusInterrupted is the status of a run whose process ended before it
// finished.
const StatusInterrupted = "interrupted"

// interruptedError is the error recorded with an interrupted run.
const interruptedError = "the process running it ended before the run finished (it was killed, or the machine stopped); the steps it recorded are kept"

// An owner keeps what shows that this process owns the running runs it
// created or resumed: lock files in a state directory (fileOwner), or a
// lease in a shared database (lease).
type owner interface {
	// claim takes the lock of a run before it is created or resumed. It
	// reports false, and takes nothing, when this store holds it already
	// (a run created twice, which the database then refuses).
	claim(runID string) (bool, error)
	// release lets the lock of a run go.
	release(runID string)
	// queue is the owner the runs this store queues record (QueueRun),
	// held for as long as the store is open; "" for id()'s, read in the
	// transaction that records them.
	queue() (string, error)
	// id is what the runs this store creates or resumes record as their
	// owner ("" for none); held records, on the writer, that the row of a
	// run now names it.
	id() string
	held(runID string)
	// lost reports whether another process took a run of this store's
	// over.
	lost(runID string) bool
	// mark runs first in each transaction of the writer, which it marks
	// mark: committed then reports, on a new connection, whether the
	// transaction so marked committed.
	mark(ctx context.Context, st *writerStmts, mark int64) error
	committed(ctx context.Context, conn *sqlConn, mark int64) (bool, error)
	// renewed is told that the transaction last marked committed.
	renewed()
	// renew runs last in a transaction of the writer that began at began.
	renew(ctx context.Context, st *writerStmts, began time.Time) error
	// reap records as interrupted the running runs whose process is gone,
	// on the writer, and returns their IDs.
	reap(ctx context.Context, st *writerStmts) ([]string, error)
}

// fileOwner locks a file of each run (locks/RUN_ID in the state
// directory).
type fileOwner struct {
	dir   string
	mu    sync.Mutex
	files map[string]*os.File // the runs this store created and has not finished
	// proc is the id of this store's own lock file (locks/process-…),
	// the owner of the runs it queues; "" until it queues one.
	proc string
}

// queuePrefix begins the lock files of processes that queued runs.
const queuePrefix = "process-"

func (o *fileOwner) queue() (string, error) {
	o.mu.Lock()
	id := o.proc
	o.mu.Unlock()
	if id != "" {
		return id, nil
	}
	id = queuePrefix + NewRunID()
	if ok, err := o.claim(id); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("the lock file %s is held already", o.lockPath(id))
		}
		return "", fmt.Errorf("locking this process's queue: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.proc != "" { // another caller made one meanwhile
		go o.release(id)
		return o.proc, nil
	}
	o.proc = id
	return id, nil
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

func (o *fileOwner) id() string                                               { return "" }
func (o *fileOwner) held(string)                                              {}
func (o *fileOwner) lost(string) bool                                         { return false }
func (o *fileOwner) mark(context.Context, *writerStmts, int64) error          { return nil }
func (o *fileOwner) committed(context.Context, *sqlConn, int64) (bool, error) { return false, nil }
func (o *fileOwner) renew(context.Context, *writerStmts, time.Time) error     { return nil }
func (o *fileOwner) renewed()                                                 {}

// unlockAll lets every lock go (Store.Close): the runs still running are
// left running, locked by no one, and the next store opened takes them
// for interrupted, as when the process dies.
func (o *fileOwner) unlockAll() {
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

// OriginTemporal is the origin of runs on the temporal engine: Temporal
// keeps them going, not a process, so they take no lock and are never
// reaped.
const OriginTemporal = "temporal"

// reap records as interrupted the running runs whose lock file nobody
// holds.
func (o *fileOwner) reap(ctx context.Context, st *writerStmts) ([]string, error) {
	rows, err := st.conn.QueryContext(ctx, `SELECT id FROM runs WHERE status = 'running' AND origin != ?`, OriginTemporal)
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
		if !o.abandoned(id) {
			continue
		}
		// Only if it is still running: another process may have reaped
		// it, or (with no lock file) finished it, meanwhile.
		if _, err := st.markInterrupted.ExecContext(ctx, StatusInterrupted, nanos(time.Now()), interruptedError, id); err != nil {
			return reaped, err
		}
		o.forget(id)
		reaped = append(reaped, id)
	}
	queued, err := o.reapQueued(ctx, st)
	return append(reaped, queued...), err
}

// reapQueued records as interrupted the queued runs whose process's lock
// file nobody holds.
func (o *fileOwner) reapQueued(ctx context.Context, st *writerStmts) ([]string, error) {
	owners, err := queryIDs(ctx, st.conn, `SELECT DISTINCT owner FROM runs WHERE status = '`+StatusQueued+`' AND owner != ''`)
	if err != nil {
		return nil, err
	}
	var reaped []string
	for _, owner := range owners {
		if owner == o.queueID() || !o.abandoned(owner) {
			continue
		}
		ids, err := queryIDs(ctx, st.conn, `UPDATE runs SET status = ?, finished_at = ?, error = ?
			WHERE owner = ? AND status = '`+StatusQueued+`' RETURNING id`,
			StatusInterrupted, time.Now().UnixNano(), queuedInterruptedError, owner)
		if err != nil {
			return reaped, err
		}
		o.forget(owner)
		reaped = append(reaped, ids...)
	}
	return reaped, nil
}

func (o *fileOwner) queueID() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.proc
}

// Reap records as interrupted the running and queued runs whose process
// is gone (owner.go), as every store does when it opens and, on a shared
// database, once a lease; it returns their IDs. A server calls it to take
// up such runs while it runs.
func (s *Store) Reap() ([]string, error) { return s.reapInterrupted() }

// Lease is how long this process's ownership of its runs lasts in a shared
// database without being renewed (Options.Lease); 0 for a state directory,
// whose runs are held by lock files.
func (s *Store) Lease() time.Duration {
	if l, ok := s.owner.(*lease); ok {
		return l.dur
	}
	return 0
}

// reapInterrupted records as interrupted the running runs whose process
// is gone, and returns their IDs.
func (s *Store) reapInterrupted() ([]string, error) {
	var reaped []string
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		var err error
		reaped, err = s.owner.reap(ctx, st)
		return err
	})
	return reaped, err
}

const markInterruptedSQL = `
UPDATE runs SET status = ?, finished_at = ?, error = ?
WHERE id = ? AND status = 'running'`
