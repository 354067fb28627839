package state

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultLease is how long a process's lease on its runs in a shared
// database lasts without being renewed (Options.Lease).
const DefaultLease = 30 * time.Second

// A lease is how a process owns its runs in a PostgreSQL state: a row of
// owners (its id, where it runs, when its lease expires by the database's
// clock), which every transaction of its writer renews (mark) and a
// heartbeat renews when it writes nothing (Store.heartbeat), and the
// owner column of its running runs.
//
// Another process takes it for gone, and records its running runs as
// interrupted, deleting its row in the same transaction (reap), when:
//
//   - it ran on the same machine (same boot, same PID namespace) and its
//     process is gone: a crash is seen at once, as with SQLite's lock
//     files; and a process of the machine that is still there is never
//     taken for gone, however late its lease;
//   - it ran on another machine and its lease expired more than a lease
//     ago (it missed every renewal for two leases), and the database has
//     been up for two leases: after a restart of the database, every live
//     process has a lease's time to reconnect and renew before anyone
//     judges it.
//
// A process whose row is gone when it next writes — it lost the database
// for longer than that, and someone took its runs — learns it from mark,
// which renews the row inside each transaction of its writer: nothing more
// is written for the runs it had (ErrRunTaken), and it registers again,
// under a new id, for the runs it starts afterwards. Because mark's UPDATE
// locks the row until the transaction ends, a reaper's DELETE waits for
// the writes in flight, and is not applied when they renewed the lease:
// no process writes for a run another has taken.
type lease struct {
	dur     time.Duration
	process process // this process

	// base is when the lease was made, on this process's monotonic
	// clock; marked is when the writer's last transaction began (mark),
	// and validUntil when the lease renewed by the last one that
	// committed lapses, both in nanoseconds since base. A renewal sets
	// the lease's expiry to the database's clock at the mark plus dur: by
	// the database's clock it is valid for dur from a moment after
	// marked. Measured from marked, validUntil is never later than the
	// lease's expiry, whatever the clocks of the two machines say (they
	// only need to run at the same rate).
	base       time.Time
	marked     atomic.Int64
	validUntil atomic.Int64

	mu      sync.Mutex
	cur     string            // the id of this process's row
	made    bool              // a row was inserted under cur (it may be gone)
	claimed map[string]string // running runs of this store's: the id their row names
	gen     atomic.Int64      // ids taken after the first: when 0, nothing is lost
}

func newLease(dur time.Duration) *lease {
	return &lease{dur: dur, process: thisProcess(), cur: NewRunID(), claimed: map[string]string{}, base: time.Now()}
}

// valid reports whether the lease is valid now: renewed by a transaction
// that committed less than a lease ago (measured from when it began).
// Another process takes the runs of a lease only a lease after it
// expired (reap), so a step started while it is valid is started by the
// process that owns its run.
func (l *lease) valid() bool {
	return int64(time.Since(l.base)) < l.validUntil.Load()
}

// renewed records that the transaction marked last committed: the lease
// is valid for dur from when it began.
func (l *lease) renewed() {
	until := l.marked.Load() + int64(l.dur)
	for {
		cur := l.validUntil.Load()
		if cur >= until || l.validUntil.CompareAndSwap(cur, until) {
			return
		}
	}
}

func (l *lease) claim(string) (bool, error) { return true, nil }

// queue: the runs a process queues name its row, as its running runs do
// ("": the id the transaction that records them renewed).
func (l *lease) queue() (string, error) { return "", nil }

func (l *lease) release(runID string) {
	l.mu.Lock()
	delete(l.claimed, runID)
	l.mu.Unlock()
}

func (l *lease) id() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

func (l *lease) held(runID string) {
	l.mu.Lock()
	l.claimed[runID] = l.cur
	l.mu.Unlock()
}

func (l *lease) lost(runID string) bool {
	if l.gen.Load() == 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	id, ok := l.claimed[runID]
	return ok && id != l.cur
}

// dbNow is the database's clock in unix nanoseconds: leases are measured
// by it alone, so that the clocks of the processes' machines need not
// agree.
const dbNow = `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000000 AS BIGINT)`

const markOwnerSQL = `UPDATE owners SET batch = ?, expires_at = ` + dbNow + ` + ? WHERE id = ?`

// renewOwnerSQL renews the lease at the end of a transaction that took
// long (waiting for other processes' locks, say): mark renewed it from
// when the transaction began.
const renewOwnerSQL = `UPDATE owners SET expires_at = ` + dbNow + ` + ? WHERE id = ?`

const insertOwnerSQL = `INSERT INTO owners (id, host, pid, process, started_at, batch, expires_at)
VALUES (?, ?, ?, ?, ?, ?, ` + dbNow + ` + ?)`

func (l *lease) mark(ctx context.Context, st *writerStmts, mark int64) error {
	l.marked.Store(int64(time.Since(l.base)))
	l.mu.Lock()
	id := l.cur
	l.mu.Unlock()
	res, err := st.markOwner.ExecContext(ctx, mark, l.dur.Nanoseconds(), id)
	if err != nil {
		return fmt.Errorf("renewing this process's lease: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 1 {
		return nil
	}
	// The row is gone (another process took this one's runs) or was never
	// made: make one, under a new id when the old one named runs.
	l.mu.Lock()
	if l.made {
		l.cur = NewRunID()
		l.gen.Add(1)
	}
	l.made = true
	id = l.cur
	l.mu.Unlock()
	p := l.process
	if _, err := st.conn.ExecContext(ctx, insertOwnerSQL, id, p.host, int64(p.pid), p.token, time.Now().UnixNano(), mark, l.dur.Nanoseconds()); err != nil {
		return fmt.Errorf("registering this process in the state: %w", err)
	}
	return nil
}

// renew renews the lease at the end of a transaction that began at
// began, when it took more than a fifth of the lease.
func (l *lease) renew(ctx context.Context, st *writerStmts, began time.Time) error {
	if time.Since(began) < l.dur/5 {
		return nil
	}
	_, err := st.conn.ExecContext(ctx, renewOwnerSQL, l.dur.Nanoseconds(), l.id())
	return err
}

func (l *lease) committed(ctx context.Context, conn *sqlConn, mark int64) (bool, error) {
	var got int64
	err := conn.QueryRowContext(ctx, `SELECT batch FROM owners WHERE id = ?`, l.id()).Scan(&got)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return got == mark, err
}

// An ownerRow is another process's row, as reap sees it.
type ownerRow struct {
	id, host, token string
	pid             int64
	expired         bool
}

// reap records as interrupted the running runs of the processes taken
// for gone (see lease), and those of runs whose owner has no row, or that
// an older flowctl started (no owner: it held a session's advisory lock,
// which a dead process let go).
func (l *lease) reap(ctx context.Context, st *writerStmts) ([]string, error) {
	rows, err := st.conn.QueryContext(ctx, `SELECT id, host, pid, process,
		expires_at < `+dbNow+` - ?1 AND pg_postmaster_start_time() < clock_timestamp() - make_interval(secs => ?2)
		FROM owners WHERE id != ?3`, l.dur.Nanoseconds(), 2*l.dur.Seconds(), l.id())
	if err != nil {
		return nil, err
	}
	var others []ownerRow
	for rows.Next() {
		var o ownerRow
		if err := rows.Scan(&o.id, &o.host, &o.pid, &o.token, &o.expired); err != nil {
			rows.Close()
			return nil, err
		}
		others = append(others, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	var reaped []string
	for _, o := range others {
		// A process of this machine is gone when its process is, and
		// only then: a live one that did not renew its lease is slow, or
		// stopped, and keeps its runs. Another machine's is judged by its
		// lease.
		dead := o.expired
		if l.process.sameMachine(o.token) {
			dead = !l.process.alive(int(o.pid), o.token)
		}
		if !dead {
			continue
		}
		var res sql.Result
		if l.process.sameMachine(o.token) {
			res, err = st.conn.ExecContext(ctx, `DELETE FROM owners WHERE id = ?`, o.id)
		} else {
			res, err = st.conn.ExecContext(ctx, `DELETE FROM owners WHERE id = ? AND expires_at < `+dbNow+` - ?`, o.id, l.dur.Nanoseconds())
		}
		if err != nil {
			return reaped, err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			continue // it renewed its lease meanwhile
		}
		ids, err := queryIDs(ctx, st.conn, `UPDATE runs SET status = ?, finished_at = ?,
			error = CASE WHEN status = 'running' THEN ? ELSE ? END
			WHERE owner = ? AND status IN ('running', '`+StatusQueued+`') RETURNING id`,
			StatusInterrupted, now, interruptedError, queuedInterruptedError, o.id)
		if err != nil {
			return reaped, err
		}
		reaped = append(reaped, ids...)
	}
	// Runs (running or queued) whose owner's row is gone.
	ids, err := queryIDs(ctx, st.conn, `UPDATE runs SET status = ?, finished_at = ?,
		error = CASE WHEN status = 'running' THEN ? ELSE ? END
		WHERE status IN ('running', '`+StatusQueued+`') AND owner != ''
		AND NOT EXISTS (SELECT 1 FROM owners WHERE owners.id = runs.owner) RETURNING id`,
		StatusInterrupted, now, interruptedError, queuedInterruptedError)
	if err != nil {
		return reaped, err
	}
	reaped = append(reaped, ids...)
	// Runs of an older flowctl, which took a session's advisory lock.
	old, err := queryIDs(ctx, st.conn, `SELECT id FROM runs WHERE status = 'running' AND owner = '' AND origin != ?`, OriginTemporal)
	if err != nil {
		return reaped, err
	}
	for _, id := range old {
		var free bool
		if err := st.conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(?)`, keyHash("run "+id)).Scan(&free); err != nil {
			return reaped, err
		}
		if !free {
			continue
		}
		st.conn.ExecContext(ctx, `SELECT pg_advisory_unlock(?)`, keyHash("run "+id))
		if _, err := st.markInterrupted.ExecContext(ctx, StatusInterrupted, now, interruptedError, id); err != nil {
			return reaped, err
		}
		reaped = append(reaped, id)
	}
	return reaped, nil
}

// close records as interrupted the runs this store still runs or has
// queued, and deletes its row: its runs can be taken up at once.
func (l *lease) close(ctx context.Context, st *writerStmts) error {
	id := l.id()
	if _, err := st.conn.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?,
		error = CASE WHEN status = 'running' THEN ? ELSE ? END
		WHERE owner = ? AND status IN ('running', '`+StatusQueued+`')`,
		StatusInterrupted, time.Now().UnixNano(), stoppedError, queuedInterruptedError, id); err != nil {
		return err
	}
	_, err := st.conn.ExecContext(ctx, `DELETE FROM owners WHERE id = ?`, id)
	return err
}

// queryIDs runs a query of one text column and returns its values.
func queryIDs(ctx context.Context, conn *sqlConn, query string, args ...any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// heartbeat renews the lease, when the writer has not for a fifth of it,
// and reaps the runs of processes gone, once a lease, until the store
// closes.
func (s *Store) heartbeat(l *lease, stop <-chan struct{}) {
	tick := time.NewTicker(l.dur / 5)
	defer tick.Stop()
	lastReap := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if time.Since(s.w.lastCommit()) >= l.dur/5 {
			s.w.do(func(context.Context, *writerStmts) error { return nil })
		}
		if time.Since(lastReap) >= l.dur {
			lastReap = time.Now()
			s.reapInterrupted()
		}
	}
}

// A process is where a process runs, as far as another process on the
// same machine can tell whether it is still alive.
type process struct {
	host  string
	pid   int
	token string // machine and process identity (process_linux.go); "" when unknown
}

// EnvMachine, when set, names the machine this process runs on for
// leases instead of its boot and PID namespace: processes that name
// different machines judge each other by their leases alone, as
// processes on different machines do (the fault-injection tests run
// several so on one machine).
const EnvMachine = "FLOWCTL_STATE_MACHINE"

func thisProcess() process {
	host, _ := os.Hostname()
	pid := os.Getpid()
	token := processToken(pid)
	if m := os.Getenv(EnvMachine); m != "" {
		_, start, _ := cutLast(token)
		token = m + " " + start
	}
	return process{host: host, pid: pid, token: token}
}

// cutLast splits a process token into its machine and its start.
func cutLast(token string) (string, string, bool) {
	i := strings.LastIndexByte(token, ' ')
	if i < 0 {
		return "", "", false
	}
	return token[:i], token[i+1:], true
}
