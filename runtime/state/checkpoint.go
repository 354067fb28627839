package state

import (
	"context"
	"database/sql"
	"sync/atomic"
)

// checkpointAfter is how many ops the writer commits to SQLite between
// two checkpoints of the WAL while ops keep coming. The WAL of a run that
// recorded 100,000 step results holds tens of megabytes; copied into the
// database only at exit (Store.CloseForExit), or while the writer waited,
// they made the process wait 100 ms and more after a for_each of 20,000
// calls ended. A checkpoint during a run takes time from it (the process
// is busy): every 8,192 ops made 100,000 value instances 3% slower.
const checkpointAfter = 32768

// checkpointIdleAfter: once nothing more is queued, the WAL is
// checkpointed after this many ops, so that the checkpoint runs while a
// run that has recorded its instances evaluates its outputs, not at exit.
const checkpointIdleAfter = 1024

// A checkpointer copies SQLite's WAL into the database on a connection of
// its own, while the writer goes on committing: a PASSIVE checkpoint
// copies the frames committed before it started and waits for no reader
// or writer. The checkpoint at exit then has only the last of them to
// copy.
type checkpointer struct {
	db    *sql.DB
	kick  chan struct{} // a checkpoint is asked for
	done  chan struct{} // closed when run returns
	count atomic.Uint64 // checkpoints made, for tests
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go c.run()
	return c
}

// ask asks for a checkpoint, without waiting: one asked for while one
// runs follows it.
func (c *checkpointer) ask() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	for range c.kick {
		// An error (the database is busy, or closing) leaves the frames
		// to the next checkpoint, or to the one at exit.
		if _, err := c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)"); err == nil {
			c.count.Add(1)
		}
	}
}

// stop waits for a checkpoint that runs, and ends the checkpointer.
func (c *checkpointer) stop() {
	close(c.kick)
	<-c.done
}
