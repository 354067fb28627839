package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The writer's pipeline, on PostgreSQL: in a hopeful try (writer.hopeful)
// the statements of a batch that need no answer before the next one is
// sent — BEGIN, the lease's mark, the rows of step results, events and
// cache entries, the writes of a run's row (QueueRun, StartQueued,
// FinishRun: a piped op), COMMIT — are queued and sent together, in one
// round trip (pgx's Batch), when an op needs the answers to its
// statements one by one (it is not piped), at COMMIT, or when pipeMax of
// them are queued. Each was a round trip of the writer's one connection,
// which a process's runs wait for in turn: a batch of many runs' writes
// is now one round trip. A statement that fails ends the try, as any
// failure of a hopeful try does (errCareful): the batch is written again,
// one statement at a time, each in a savepoint.

// pipeMax and pipeBytes bound the statements of one pipeline, and the
// bytes of their arguments (roughly), and so what the writer holds of
// them at once, encoded.
const (
	pipeMax   = 256
	pipeBytes = 4 << 20
)

// A pipeline is the statements queued and not yet sent.
type pipeline struct {
	batch pgx.Batch
	bytes int // of the arguments queued
}

// A piped op is a synchronous op as one statement that the writer may
// send in its pipeline: its query (with ? parameters), its arguments,
// taken when the op is applied (in its transaction, after the lease's
// mark), and check, given the rows it changed, which returns the op's
// error. An error of a hopeful try writes the batch again carefully,
// with the op's fn.
type piped struct {
	query string
	args  func() []any
	check func(rows int64) error
}

// pipelined reports whether statements go to the pipeline: in a hopeful
// try, on a connection that can send one.
func (w *writer) pipelined() bool { return w.hopeful() && w.stmts.conn != nil }

// pipe queues a statement (bound for PostgreSQL) in the pipeline; done,
// when not nil, is given the rows it changed once it is sent. It sends
// the pipeline when full.
func (w *writer) pipe(query string, args []any, done func(rows int64) error) {
	for _, v := range args {
		switch v := v.(type) {
		case string:
			w.pipeline.bytes += len(v)
		case []byte:
			w.pipeline.bytes += len(v)
		default:
			w.pipeline.bytes += 8
		}
	}
	q := w.pipeline.batch.Queue(query, args...)
	q.Exec(func(ct pgconn.CommandTag) error {
		if done == nil {
			return nil
		}
		return done(ct.RowsAffected())
	})
	if w.pipeline.batch.Len() >= pipeMax || w.pipeline.bytes >= pipeBytes {
		w.sendPipeline(context.Background())
	}
}

// sendPipeline sends the statements queued, in one round trip, and reads
// their answers. A failure ends the try: transient, or else written
// again carefully (errCareful); it returns it.
func (w *writer) sendPipeline(ctx context.Context) error {
	b := &w.pipeline.batch
	if b.Len() == 0 {
		return nil
	}
	defer w.dropPipeline()
	if w.att.abort != nil {
		return w.att.abort
	}
	err := w.stmts.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the database driver (%T) cannot send a pipeline", dc)
		}
		return c.Conn().SendBatch(ctx, b).Close()
	})
	if err == nil {
		return nil
	}
	if transient(err) {
		w.abort(err)
		return err
	}
	w.abort(errCareful)
	return err
}

// dropPipeline forgets the statements queued (the try ended).
func (w *writer) dropPipeline() {
	clear(w.pipeline.batch.QueuedQueries)
	w.pipeline = pipeline{batch: pgx.Batch{QueuedQueries: w.pipeline.batch.QueuedQueries[:0]}}
}

// pipeRows queues a statement of rows (bound), with a's arguments, which
// it empties.
func (w *writer) pipeRows(query string, a *args) {
	vs := make([]any, len(a.list))
	for i, v := range a.list {
		vs[i] = v.Value
	}
	clear(a.list)
	a.list = a.list[:0]
	w.pipe(query, vs, nil)
}

// applyPiped queues a piped op: its error, from check, is the op's.
func (w *writer) applyPiped(so *syncOp) {
	w.pipe(w.b.bind(so.piped.query), so.piped.args(), func(rows int64) error {
		if err := so.piped.check(rows); err != nil {
			so.err = err
			return err
		}
		return nil
	})
}

// errNoOwnerRow is the error of a piped mark that found no row of this
// process's: the batch is written again carefully, whose mark makes one.
var errNoOwnerRow = errors.New("this process has no row in owners")

// pipeMark is mark, queued in the writer's pipeline: a mark that finds
// no row of this process's (it was never made, or another process took
// this one's runs) ends the try, and the careful one marks as mark does.
func (l *lease) pipeMark(w *writer, mark int64) {
	l.marked.Store(int64(time.Since(l.base)))
	w.pipe(w.b.bind(markOwnerSQL), []any{mark, l.dur.Nanoseconds(), l.id()}, func(n int64) error {
		if n != 1 {
			return errNoOwnerRow
		}
		return nil
	})
}
