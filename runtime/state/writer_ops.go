package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync/atomic"
)

// The writer's queue: what an op is (a row to write, or a synchronous
// write its caller waits for), and the statements a batch writes with.

type failure struct {
	seq uint64
	run string // the op's run (opRun)
	err error
}

// opRun is the run an asynchronous op writes, "" for none.
func opRun(o *op) string {
	switch {
	case o.step != nil:
		return o.step.RunID
	case o.event != nil:
		return o.event.RunID
	case o.call != nil:
		return o.call.RunID
	}
	return ""
}

type opKind uint8

const (
	opStep opKind = iota + 1
	opCache
	opEvent
	opCall
	opSync
)

// An op is one queued write: its kind and a pointer to what it writes, so
// that a slot of the queue is small whatever the kind and a queue of
// thousands of step results, cache entries and events stays small.
type op struct {
	kind  opKind
	step  *StepResult
	cache *cacheEntry
	event *Event
	call  *Call
	sync  *syncOp
}

type cacheEntry struct {
	key, flow, step string
	hash            int64 // keyHash(key)
	outputs         json.RawMessage
}

// A syncOp is a synchronous write: fn runs inside the batch's transaction,
// in a savepoint of its own so that it is applied entirely or not at all;
// its caller waits on done and reads err.
type syncOp struct {
	// run is the run the op writes, "" for none: an op of a run that
	// another process took over (owner.go) fails with ErrRunTaken.
	run string
	// blind: the op reads no step result or event (it writes a run's
	// row): the rows of those handed over before it need not be written
	// before it, and wait for the end of the batch, to be written in as
	// few statements as the batch allows (writeOwn).
	blind bool
	// piped, when not nil, is the op as one statement that a hopeful
	// try sends in its pipeline (pipeline.go); a careful one runs fn.
	piped *piped
	fn    func(ctx context.Context, st *writerStmts) error
	err   error
	done  chan struct{}
	// phase is opQueued until a try applies the op (opApplied), back to
	// opQueued when that try did not commit and is known not to have, and
	// opWithdrawn once its caller gave up on it while queued (doWithin):
	// no try applies it then.
	phase atomic.Int32
}

// The phases of a syncOp.
const (
	opQueued int32 = iota
	opApplied
	opWithdrawn
)

// take reports whether a try may apply so: not withdrawn, and from now
// on not withdrawable until the try is known not to have committed.
func (so *syncOp) take() bool {
	for {
		switch so.phase.Load() {
		case opWithdrawn:
			return false
		case opApplied:
			return true
		}
		if so.phase.CompareAndSwap(opQueued, opApplied) {
			return true
		}
	}
}

// errWithdrawn is the error of a sync op its caller withdrew (doWithin)
// before any try applied it: nothing of it was written.
var errWithdrawn = errors.New("withdrawn before it was written")

// writerStmts are the statements prepared on the writer's connection, and
// the connection, for what runs seldom.
type writerStmts struct {
	conn                                   *sqlConn
	markOwner                              *sql.Stmt // lease.go; nil for SQLite
	begin, commit, rollback                *sql.Stmt
	lockMemory, selectMemory               *sql.Stmt
	insertPayload                          *sql.Stmt
	savepoint, rollbackSavepoint, release  *sql.Stmt
	insertRun, finishRun, upsertMemoryItem *sql.Stmt
	upsertSchedule, insertIdempotency      *sql.Stmt
	markInterrupted, reopenRun             *sql.Stmt
	requestApproval, decideApproval        *sql.Stmt
	closeApproval, interruptRun            *sql.Stmt
	upsertVector                           *sql.Stmt
	insertProposal, decideProposal         *sql.Stmt
}
