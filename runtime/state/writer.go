package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// maxPending bounds the queue: a writer that falls this far behind makes
// RecordStep and CachePut wait for it rather than grow the queue without
// limit. A variable for tests.
var maxPending = 1 << 15

// After a commit, the writer waits up to commitGap for more ops before
// it begins the next transaction, unless a caller waits for it (a
// synchronous op, Flush, Close) or gatherOps ops are queued already.
// Every commit writes each page it dirtied to the WAL: a run that records
// thousands of small results a second would otherwise commit a few rows
// at a time and write the same pages again and again (a for_each of
// 20,000 js calls, at 2ms, spent a third more of the writer's time than
// at 10ms, most of it writing pages to the WAL). Asynchronous writes are
// still committed within 10ms.
const (
	commitGap = 10 * time.Millisecond
	gatherOps = 4096
)

// writerCacheKiB is the page cache size of the writer's connection.
const writerCacheKiB = 32 << 10

// The writer is the single goroutine that writes to the database. Every
// write, asynchronous or not, is an op in one FIFO queue. The writer waits
// for the first op, takes every op queued by then, and applies them all in
// one transaction on its own connection (group commit). Ops are numbered in
// the order they are queued (seq, from 1); done is the seq of the last op
// whose transaction has ended, which is what Flush waits for.
//
// A batch that fails transiently (retry.go) — the connection was lost, the
// server restarts, the transaction lost a deadlock — is written again,
// whole, on a new connection when the old one broke, until it commits or
// the state has been unreachable for longer than the store's wait
// (Options.Wait): a step result handed over while the database was away
// is recorded once it is back. Every statement of a batch is an upsert
// keyed by what it writes, or runs in a transaction that was rolled back;
// a COMMIT whose answer was lost is looked up by the batch's mark
// (owner.go) rather than written twice.
type writer struct {
	db    *sql.DB
	conn  *sqlConn // nil until connected, and after it broke
	b     backend
	dir   string // the state directory, for blobs
	owner owner
	avail *availability // nil for SQLite: a file does not go away
	wait  time.Duration // see Options.Wait
	// refused is set while the database takes no writes (refusesWrites:
	// a full disk, a read-only database), from the first try that found
	// it so until a write commits; WaitWritable starts nothing meanwhile.
	refused atomic.Pointer[refusal]
	// maxBackoff bounds the wait between two tries of a batch: a fifth
	// of the lease, so that a process renews it soon after the database
	// is back (lease.go).
	maxBackoff                  time.Duration
	stmts                       writerStmts
	steps, cache, events, calls *table
	args                        args
	att                         attempt // the batch being written
	marks                       int64   // batches marked so far (owner.go)
	// unsure is the mark of a batch whose COMMIT got no answer, 0 when
	// none: the next try looks it up before writing the batch again.
	unsure int64
	// careful: the batch is written with each of its statements in a
	// savepoint of its own (PostgreSQL), after a try without them met a
	// failed statement (see errCareful).
	careful bool
	// pipeline holds the statements of a hopeful try not yet sent
	// (pipeline.go).
	pipeline pipeline

	mu      sync.Mutex
	work    sync.Cond // the queue grew, or the writer must stop
	space   sync.Cond // the writer took the queue
	settled sync.Cond // done advanced
	pending []op
	spare   []op   // the other buffer, reused while the writer is idle
	seq     uint64 // ops queued so far
	done    uint64 // ops whose transaction has ended
	closing bool
	stopped chan struct{}
	// wake ends the writer's wait after a commit (gather): a caller
	// waits for the writer, or gatherOps ops are queued.
	wake    chan struct{}
	commits uint64 // transactions committed, for tests
	// rowStatements counts the statements that wrote rows of the tables
	// (writeRows), for tests.
	rowStatements atomic.Uint64
	// sinceCheckpoint counts the ops committed since the writer last
	// asked ckpt for a checkpoint; nil ckpt: the database has no WAL.
	sinceCheckpoint int
	ckpt            *checkpointer
	last            atomic.Int64 // when the last transaction committed, unix nanoseconds

	// The asynchronous write errors not yet reported, by the run whose
	// writes failed ("" for writes of no run, cache entries): a run's
	// flush reports its own, never another run's.
	errs map[string]*asyncErr
	// stepSeq is the seq of the last step result queued, by run, until
	// the run has waited for it (settleRun) or flushed.
	stepSeq map[string]uint64
}

// An attempt is one try at writing a batch: the errors of its ops, kept
// until it is known whether the batch is written again, and the
// transient error that ended it early (abort).
type attempt struct {
	failures []failure
	abort    error
	// committing: the error came from COMMIT, whose outcome is then
	// unknown.
	committing bool
}

func newWriter(ctx context.Context, db *sql.DB, dir string, b backend, own owner, avail *availability, o Options) (*writer, error) {
	w := &writer{db: db, b: b, dir: dir, owner: own, avail: avail, wait: o.Wait, maxBackoff: min(maxBackoff, o.Lease/5),
		stopped: make(chan struct{}), wake: make(chan struct{}, 1)}
	if _, ok := b.(sqliteBackend); ok {
		w.ckpt = startCheckpointer(db)
	}
	w.work.L = &w.mu
	w.space.L = &w.mu
	w.settled.L = &w.mu
	if err := w.connect(ctx); err != nil {
		return nil, err
	}
	go w.run()
	return w, nil
}

// push queues o and returns its seq, or false when the writer is closing.
func (w *writer) push(o *op) (uint64, bool) {
	w.mu.Lock()
	for len(w.pending) >= maxPending && !w.closing {
		w.space.Wait()
	}
	if w.closing {
		w.mu.Unlock()
		return 0, false
	}
	w.pending = append(w.pending, *o)
	w.seq++
	seq := w.seq
	if o.step != nil {
		if w.stepSeq == nil {
			w.stepSeq = map[string]uint64{}
		}
		w.stepSeq[o.step.RunID] = seq
	}
	urgent := o.kind == opSync || len(w.pending) == gatherOps
	w.mu.Unlock()
	w.work.Signal()
	if urgent {
		w.hurry()
	}
	return seq, true
}

// hurry ends the writer's wait for more ops, if it waits.
func (w *writer) hurry() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// gather waits, after a commit, until commitGap has passed, gatherOps ops
// are queued or a caller waits for the writer. Whoever hurried the writer
// while it was writing left a wake behind, so then it does not wait.
func (w *writer) gather(t *time.Timer) {
	t.Reset(commitGap)
	select {
	case <-t.C:
	case <-w.wake:
		t.Stop()
	}
}

// lastCommit is when the writer last committed.
func (w *writer) lastCommit() time.Time { return time.Unix(0, w.last.Load()) }

// do runs fn in the writer, after everything queued before it, and waits
// until its transaction has committed. It returns fn's error or the
// commit's, and the op's seq.
func (w *writer) do(fn func(ctx context.Context, st *writerStmts) error) (uint64, error) {
	return w.doRun("", fn)
}

// doRun is do for an op that writes run runID (see syncOp.run).
func (w *writer) doRun(runID string, fn func(ctx context.Context, st *writerStmts) error) (uint64, error) {
	return w.doOp(&syncOp{run: runID, fn: fn})
}

// doBlind is doRun for an op that reads no step result or event (see
// syncOp.blind).
func (w *writer) doBlind(runID string, fn func(ctx context.Context, st *writerStmts) error) (uint64, error) {
	return w.doOp(&syncOp{run: runID, blind: true, fn: fn})
}

// doPiped is doBlind for an op that is one statement, p, which a hopeful
// try sends in its pipeline; fn is the op as a careful try applies it.
func (w *writer) doPiped(runID string, p *piped, fn func(ctx context.Context, st *writerStmts) error) (uint64, error) {
	return w.doOp(&syncOp{run: runID, blind: true, piped: p, fn: fn})
}

// doOp queues the synchronous op so and waits until its transaction has
// ended.
func (w *writer) doOp(so *syncOp) (uint64, error) {
	so.done = make(chan struct{})
	seq, ok := w.push(&op{kind: opSync, sync: so})
	if !ok {
		return 0, ErrClosed
	}
	<-so.done
	return seq, so.err
}

// doCtx is do that stops waiting when ctx ends (the op is still
// written).
func (w *writer) doCtx(ctx context.Context, fn func(ctx context.Context, st *writerStmts) error) error {
	so := &syncOp{fn: fn, done: make(chan struct{})}
	if _, ok := w.push(&op{kind: opSync, sync: so}); !ok {
		return ErrClosed
	}
	select {
	case <-so.done:
		return so.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// doWithin is doPiped whose caller stops waiting when ctx ends, if the op
// is still queued (no try has applied it, or every try that did is known
// not to have committed): it is withdrawn, nothing of it is written, and
// ctx's error is returned. An op that a try has applied when ctx ends,
// whose outcome is not known yet, is waited for: it may commit.
func (w *writer) doWithin(ctx context.Context, runID string, p *piped, fn func(ctx context.Context, st *writerStmts) error) (uint64, error) {
	so := &syncOp{run: runID, blind: true, piped: p, fn: fn, done: make(chan struct{})}
	seq, ok := w.push(&op{kind: opSync, sync: so})
	if !ok {
		return 0, ErrClosed
	}
	select {
	case <-so.done:
		return seq, so.err
	case <-ctx.Done():
	}
	// Withdrawn while queued, else waited for, looking again each time a
	// try ends without committing.
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if so.phase.CompareAndSwap(opQueued, opWithdrawn) {
			return seq, fmt.Errorf("%w: %w", ctx.Err(), errWithdrawn)
		}
		select {
		case <-so.done:
			return seq, so.err
		case <-t.C:
		}
	}
}

// close stops the writer once the queue is empty and releases its
// connection. Ops queued after close are refused.
func (w *writer) close() error {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	w.hurry()
	w.work.Broadcast()
	w.space.Broadcast()
	<-w.stopped
	if w.ckpt != nil {
		w.ckpt.stop()
	}
	return w.disconnect(false)
}

func (w *writer) run() {
	defer close(w.stopped)
	t := time.NewTimer(commitGap)
	t.Stop()
	for {
		w.mu.Lock()
		for len(w.pending) == 0 && !w.closing {
			w.work.Wait()
		}
		if len(w.pending) == 0 {
			w.mu.Unlock()
			return
		}
		batch := w.pending
		w.pending, w.spare = w.spare[:0], nil
		first := w.done + 1
		w.mu.Unlock()
		w.space.Broadcast()

		committed := w.write(batch, first)

		if committed {
			w.last.Store(time.Now().UnixNano())
		}
		w.mu.Lock()
		w.done += uint64(len(batch))
		if committed {
			w.commits++
		}
		w.mu.Unlock()
		w.settled.Broadcast()
		for i := range batch {
			if so := batch[i].sync; so != nil {
				close(so.done)
			}
		}
		clear(batch) // drop the references to the callers' values
		w.mu.Lock()
		w.spare = batch[:0]
		idle := len(w.pending) == 0
		w.mu.Unlock()
		if committed {
			w.sinceCheckpoint += len(batch)
			if w.ckpt != nil && (w.sinceCheckpoint >= checkpointAfter || idle && w.sinceCheckpoint >= checkpointIdleAfter) {
				w.sinceCheckpoint = 0
				w.ckpt.ask()
			}
			w.gather(t)
		}
	}
}

// write writes a batch, trying it again while it fails transiently (see
// writer), and reports whether it committed. Errors go to the sync ops
// and, for the asynchronous ones, to failed.
func (w *writer) write(batch []op, first uint64) bool {
	ctx := context.Background()
	var down time.Time // when a try first failed because the database was away
	inPlace := 0
	w.careful = false
	for n := 0; ; n++ {
		committed, err := w.try(ctx, batch, first)
		if err != nil && w.unsure == 0 {
			// Rolled back, nothing of it written: its sync ops may be
			// withdrawn again (doWithin) until the next try.
			for i := range batch {
				if so := batch[i].sync; so != nil {
					so.phase.CompareAndSwap(opApplied, opQueued)
				}
			}
		}
		if err == errCareful && !w.careful {
			// A statement failed in a try without savepoints: the batch is
			// written again, at once, each statement in a savepoint, so
			// that the failed one alone fails.
			w.careful = true
			n--
			continue
		}
		if err == nil {
			if w.avail != nil {
				w.avail.ok()
			}
			w.refused.Store(nil)
			return committed
		}
		if refusesWrites(err) {
			// The database answers but takes no writes: keep the batch and
			// try it again until it does, within the wait, starting nothing
			// meanwhile (WaitWritable). A ping would find it well, so the
			// time counts from the first refusal, not from availability.
			r := w.refused.Load()
			if r == nil {
				r = &refusal{at: time.Now(), err: err}
				w.refused.Store(r)
			}
			if time.Since(r.at) >= w.wait {
				w.failBatch(batch, first, unavailable(w.wait, err))
				return false
			}
		} else if retryInPlace(err) {
			inPlace++
			if inPlace >= maxInPlace {
				w.failBatch(batch, first, err)
				return false
			}
		} else {
			if down.IsZero() {
				down = time.Now()
			}
			given := time.Since(down) >= w.wait
			if w.avail != nil {
				w.avail.failed(err)
				given = w.avail.expired()
			}
			if given {
				w.failBatch(batch, first, unavailable(w.wait, err))
				return false
			}
		}
		sleep(ctx, backoffUpTo(n, w.maxBackoff))
	}
}

// try writes a batch once. A nil error means the batch is done with:
// committed, or failed for good (its ops have their errors). A transient
// error means it may be tried again: nothing of it was written, and its
// ops' errors are forgotten.
func (w *writer) try(ctx context.Context, batch []op, first uint64) (bool, error) {
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			if transient(err) {
				return false, fmt.Errorf("connecting to the state database: %w", err)
			}
			w.failBatch(batch, first, err)
			return false, nil
		}
	}
	if w.unsure != 0 {
		// The last try's COMMIT got no answer: look its mark up.
		ok, err := w.owner.committed(ctx, w.conn, w.unsure)
		if err != nil {
			w.disconnect(true)
			return false, err
		}
		if w.unsure = 0; ok {
			w.owner.renewed()
			w.publish()
			return true, nil
		}
	}
	w.att = attempt{failures: w.att.failures[:0]}
	for i := range batch {
		if so := batch[i].sync; so != nil {
			so.err = nil
		}
	}
	w.marks++
	committed := w.apply(ctx, batch, first, w.marks)
	if err := w.att.abort; err != nil {
		if err == errCareful {
			return false, err // rolled back, on a good connection
		}
		if !retryInPlace(err) {
			w.disconnect(true)
		}
		if w.att.committing {
			w.unsure = w.marks
		}
		return false, err
	}
	if committed {
		w.owner.renewed()
	}
	w.publish()
	return committed, nil
}

// publish hands the errors of the ops of the attempt that ended the
// batch over to Flush.
func (w *writer) publish() {
	for _, f := range w.att.failures {
		w.failed(f.run, f.seq, 1, f.err)
	}
	w.att.failures = w.att.failures[:0]
}

// applySync applies a sync op: in a savepoint of its own, so that what
// it wrote is undone when it fails, except in a first try on PostgreSQL
// (hopeful), where a failure ends the try (errCareful).
func (w *writer) applySync(ctx context.Context, so *syncOp) error {
	if w.hopeful() {
		return so.fn(ctx, &w.stmts)
	}
	return w.savepoint(ctx, func() error { return so.fn(ctx, &w.stmts) })
}

// errCareful ends a try of a batch, rolled back, in which a statement or
// an op failed without savepoints: the batch is written again at once,
// carefully (writer.careful).
var errCareful = errors.New("a statement failed in a batch without savepoints")

// hopeful reports whether the batch is written without savepoints: on
// PostgreSQL, where a failed statement aborts the transaction, a
// savepoint around each statement costs two round trips more (SAVEPOINT
// and RELEASE), which made most of the round trips of a run's
// bookkeeping (a run recorded, started and finished: 9 where 3 do). A
// batch is first written without them, betting that nothing fails (the
// case of nearly every batch); when something does, the try is rolled
// back and the batch written again with them, so that the failed op
// alone fails. Every op may be applied again, as after a transient
// error. SQLite's savepoints cost no round trip and are always taken.
func (w *writer) hopeful() bool { return w.b.guarded() && !w.careful }

// failedHopefully ends a hopeful try whose statement or op failed with
// err (not transient): the batch is written again carefully. It
// reports whether it did.
func (w *writer) failedHopefully(err error) bool {
	if err == nil || !w.hopeful() || transient(err) {
		return false
	}
	w.abort(errCareful)
	return true
}

// savepoint runs fn in a savepoint: what it wrote is undone when it fails.
func (w *writer) savepoint(ctx context.Context, fn func() error) error {
	st := &w.stmts
	if _, err := st.savepoint.ExecContext(ctx); err != nil {
		return err
	}
	err := fn()
	if err == nil {
		if _, err = st.release.ExecContext(ctx); err == nil {
			return nil
		}
		// RELEASE failed: fn ignored the error of a statement that
		// aborted the transaction. Undone too, or COMMIT would roll the
		// whole batch back without an error.
	}
	st.rollbackSavepoint.ExecContext(ctx)
	st.release.ExecContext(ctx)
	return err
}

func instanceSuffix(instance string) string {
	if instance == "" {
		return ""
	}
	return "[" + instance + "]"
}
