package state

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Ready reports whether the state can be used now: it makes one round
// trip to the database on a connection of the pool (a new one when the
// pool's are broken) and returns nil when it answered before ctx ended.
// It is cheap enough for a readiness probe (flowctl serve's /readyz);
// give ctx a deadline, since a database that does not answer (stopped,
// partitioned) makes it wait until ctx ends.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("the state database %s does not answer: %w", s.path, err)
	}
	return nil
}

// ErrUnavailable is wrapped by the errors of a store whose database has
// not answered for longer than its wait (Options.Wait): WaitWritable's,
// and those of the writes it could not record.
var ErrUnavailable = errors.New("the state database is unreachable")

// ErrRunTaken is wrapped by the errors of the writes of a run that
// another process took over: this process lost the state for longer than
// its lease, its runs were recorded as interrupted and one was resumed
// elsewhere (owner.go).
var ErrRunTaken = errors.New("another process took the run over after this one lost the state for longer than its lease")

// DefaultWait is how long a store waits for its database to come back
// before it fails what it could not record (Options.Wait).
const DefaultWait = 2 * time.Minute

// WaitWritable returns nil when what the store is handed now can be
// recorded: at once when the database answered within the last second,
// else after a round trip. When the database does not answer it waits
// for it to come back, up to the store's wait (Options.Wait, counted from
// when it stopped answering), and then fails with ErrUnavailable; with
// ErrRunTaken when run runID ("" for none) is no longer this process's;
// with ctx's error when ctx ends first. For a run, in a shared database,
// it also waits until this process's lease is valid now, by the
// database's clock (holdLease): renewed, when it may have lapsed, before
// anything is started for the run.
//
// The runtime calls it before it starts each step instance (and each
// attempt, and blocks before they send a request that waited for a
// connection: blocks.Proceed), so that no step runs whose result could
// not be recorded, or that another process took over, and a run whose
// state went away waits for it, running nothing, rather than failing at
// once. So does a run whose state answers but takes no writes (a full
// disk, a read-only database or file system), SQLite's too, until a write
// commits again (writer.waitWrites). A SQLite state's runs are their
// process's for as long as it lives. For a run, it first waits until the
// run's step results handed over so far are written, and fails with
// ErrNotRecorded when one could not be, for good (a constraint): a step
// whose result is not recorded is followed by nothing.
func (s *Store) WaitWritable(ctx context.Context, runID string) error {
	if runID != "" && s.owner.lost(runID) {
		return fmt.Errorf("run %s: %w", runID, ErrRunTaken)
	}
	// A database that answers but takes no writes (a full disk, a
	// read-only database): nothing starts until a write commits again.
	if err := s.w.waitWrites(ctx); err != nil {
		return err
	}
	// A step result of the run that the database refused for good (a
	// constraint): nothing more of the run starts, its dependants least
	// of all; the run's results queued so far are waited for first.
	if runID != "" {
		if err := s.w.settleRun(ctx, runID); err != nil {
			return err
		}
	}
	if s.avail == nil {
		return nil
	}
	if err := s.avail.wait(ctx); err != nil {
		return err
	}
	if runID != "" {
		if err := s.holdLease(ctx); err != nil {
			return err
		}
		if s.owner.lost(runID) {
			return fmt.Errorf("run %s: %w", runID, ErrRunTaken)
		}
	}
	return nil
}

// holdLease returns once this process's lease is valid now (lease.valid):
// at once while it is, else after a transaction of the writer has renewed
// it, or found it lost (then the runs it named are taken, and lost says
// so). A process that was stopped (SIGSTOP, a virtual machine paused) for
// longer than its lease, or cut off from the database, finds it lapsed
// and starts no step until it knows whether its runs are still its own.
func (s *Store) holdLease(ctx context.Context) error {
	l, ok := s.owner.(*lease)
	if !ok {
		return nil
	}
	for !l.valid() {
		if err := s.w.doCtx(ctx, func(context.Context, *writerStmts) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

// fresh is how recently the database must have answered for
// WaitWritable to trust it without a round trip of its own.
const fresh = time.Second

// probeTimeout bounds one round trip of a probe: a database that takes
// longer is taken for away.
const probeTimeout = 5 * time.Second

// availability follows whether a shared database answers: every round
// trip of the store's writer, heartbeat and probes tells it (ok, failed).
// While the database is away, a prober pings it, with backoff, until it
// answers again.
type availability struct {
	limit time.Duration
	probe func(ctx context.Context) error

	mu       sync.Mutex
	lastOK   time.Time
	downAt   time.Time     // zero while it answers
	cause    error         // why it was taken for away
	back     chan struct{} // closed when it answers again
	checking chan struct{} // a round trip of wait's under way, closed when done
	probing  bool
	closed   bool
}

func newAvailability(wait time.Duration, probe func(ctx context.Context) error) *availability {
	return &availability{limit: wait, probe: probe, lastOK: time.Now()}
}

// ok records that the database answered.
func (a *availability) ok() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastOK = time.Now()
	if !a.downAt.IsZero() {
		a.downAt, a.cause = time.Time{}, nil
		close(a.back)
	}
}

// failed records that the database did not answer (a transient error),
// and starts the prober.
func (a *availability) failed(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.downAt.IsZero() {
		a.downAt, a.cause, a.back = time.Now(), err, make(chan struct{})
	}
	if !a.probing && !a.closed {
		a.probing = true
		go a.prober()
	}
}

// expired reports whether the database has been away for longer than the
// wait.
func (a *availability) expired() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.downAt.IsZero() && time.Since(a.downAt) >= a.limit
}

func (a *availability) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
}

// prober pings the database until it answers.
func (a *availability) prober() {
	for n := 0; ; n++ {
		a.mu.Lock()
		if a.downAt.IsZero() || a.closed {
			a.probing = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		sleep(context.Background(), backoff(n))
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		err := a.probe(ctx)
		cancel()
		if err == nil {
			a.ok()
		}
	}
}

// wait returns once the database answers (see WaitWritable).
func (a *availability) wait(ctx context.Context) error {
	for {
		a.mu.Lock()
		if a.downAt.IsZero() && time.Since(a.lastOK) < fresh {
			a.mu.Unlock()
			return nil
		}
		if a.downAt.IsZero() {
			// Not heard of for a while: one round trip, which the other
			// callers wait for.
			if ch := a.checking; ch != nil {
				a.mu.Unlock()
				select {
				case <-ch:
				case <-ctx.Done():
					return ctx.Err()
				}
				continue
			}
			ch := make(chan struct{})
			a.checking = ch
			a.mu.Unlock()
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			err := a.probe(pctx)
			cancel()
			switch {
			case err == nil:
				a.ok()
			case ctx.Err() != nil:
			default:
				a.failed(err)
			}
			a.mu.Lock()
			a.checking = nil
			close(ch)
			a.mu.Unlock()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		left := a.limit - time.Since(a.downAt)
		if left <= 0 {
			err := unavailable(a.limit, a.cause)
			a.mu.Unlock()
			return err
		}
		back := a.back
		a.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case <-back:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		t.Stop()
	}
}

// unavailable is the error of what could not be done because the
// database was away for longer than wait.
func unavailable(wait time.Duration, cause error) error {
	return fmt.Errorf("%w: it has not answered for %s (%v)", ErrUnavailable, wait, cause)
}
