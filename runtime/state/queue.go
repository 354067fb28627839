package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A run that a server accepts is recorded before the server answers,
// queued (StatusQueued), and started later by the process that queued it
// (StartQueued): a server that dies with runs in its queue loses none of
// them. A queued run is the queuing process's: its owner is the process's
// (a lease in a shared database, a lock file of the process in a state
// directory, owner.go), and when that process is gone, its queued runs
// are recorded as interrupted, as its running runs are, to be taken up
// (resumed) by a server.

// StatusQueued is the status of a run that is recorded and waits to
// start.
const StatusQueued = "queued"

// ErrNotQueued is wrapped by StartQueued's and EndQueued's errors when the
// run is no longer queued: another process took it for abandoned (it is
// interrupted, or was resumed since).
var ErrNotQueued = errors.New("the run is no longer queued")

// QueueRun records r as queued, owned by this process, and, when key is
// not nil, the Idempotency-Key that came with it (its RunID r's), in one
// transaction, and returns once committed. A key recorded already in its
// flow and namespace since expiry wins: then no run is recorded, and the
// key as it was recorded is returned (as ClaimIdempotencyKey returns it).
// r.ID, Namespace and StartedAt are filled in as CreateRun fills them.
// With r.Status "running" the run is recorded running, as CreateRun
// records it, for a caller that starts it at once (runtime.Options
// Recorded): one write where QueueRun and StartQueued make two.
func (s *Store) QueueRun(r *Run, key *IdempotencyKey, expiry time.Time) (*IdempotencyKey, error) {
	return s.QueueRunWithin(context.Background(), r, key, expiry)
}

// QueueRunWithin is QueueRun that gives up when ctx ends while its write
// waits for the writer (behind other writes, or between tries while the
// database is away): nothing of it is written then, and the error wraps
// ctx's (context.DeadlineExceeded). A write under way when ctx ends (sent
// to the database, its outcome not known) is waited for, as it may
// commit.
func (s *Store) QueueRunWithin(ctx context.Context, r *Run, key *IdempotencyKey, expiry time.Time) (*IdempotencyKey, error) {
	if r.Flow == "" {
		return nil, errors.New("queuing a run: the flow name is empty")
	}
	if r.ID == "" {
		r.ID = NewRunID()
	}
	r.Namespace = namespace(r.Namespace)
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	running := r.Status == "running"
	if !running {
		r.Status = StatusQueued
	}
	inputs, err := storeBlob(s.w.dir, r.Inputs)
	if err != nil {
		return nil, fmt.Errorf("queuing run %s: %w", r.ID, err)
	}
	queue, claimed := "", false
	if running {
		if claimed, err = s.owner.claim(r.ID); err != nil {
			return nil, fmt.Errorf("creating run %s: %w", r.ID, err)
		}
	} else if queue, err = s.owner.queue(); err != nil {
		return nil, fmt.Errorf("queuing run %s: %w", r.ID, err)
	}
	recorded := false
	if key != nil {
		key.Namespace = namespace(key.Namespace)
		key.RunID = r.ID
		if key.CreatedAt.IsZero() {
			key.CreatedAt = time.Now()
		}
	}
	won := true // the key, when there is one
	args := func() []any {
		q := queue
		if q == "" {
			q = s.owner.id() // the lease's, known once the transaction renewed it
		}
		return []any{r.ID, r.Flow, r.Namespace, r.FlowFile, r.SourceHash, text(inputs),
			r.Status, nanos(r.StartedAt), nil, nil,
			"", nil, nil, r.Origin, nil, r.ParentRun, r.ParentStep, q}
	}
	var p *piped
	if key == nil && r.Limits == nil {
		p = &piped{query: insertRunSQL, args: args, check: func(int64) error {
			if running {
				s.owner.held(r.ID)
			}
			recorded = true
			return nil
		}}
	}
	_, err = s.w.doWithin(ctx, "", p, func(ctx context.Context, st *writerStmts) error {
		if r.Limits == nil {
			return s.insertQueued(ctx, st, r, key, expiry, &won, &recorded, running, args)
		}
		r.Limits.Joined = ""
		// The key first: a start whose key started a run before joins
		// no debounced run (it would give it its inputs again).
		if err := insertKey(ctx, st, key, expiry, &won); err != nil || !won {
			return err
		}
		err := queueLimited(ctx, st, r, inputs, func() error {
			return s.insertQueued(ctx, st, r, nil, expiry, &won, &recorded, running, args)
		})
		if err == nil && r.Limits.Joined != "" && key != nil {
			// The key names the run the start joined.
			key.RunID = r.Limits.Joined
			_, err = st.conn.ExecContext(ctx, `UPDATE idempotency_keys SET run_id = ? WHERE flow = ? AND namespace = ? AND key = ?`,
				key.RunID, key.Flow, key.Namespace, key.Key)
		}
		return err
	})
	if claimed && !recorded {
		s.owner.release(r.ID)
	}
	if err != nil {
		if s.db.b.duplicate(err) && r.Limits != nil && r.Limits.Debounce != nil {
			// Another process queued a run of the debounce key at
			// once: this start joins it.
			return s.QueueRunWithin(ctx, r, key, expiry)
		}
		if s.db.b.duplicate(err) {
			err = ErrRunExists
		}
		return nil, fmt.Errorf("queuing run %s: %w", r.ID, err)
	}
	if won {
		return nil, nil
	}
	return s.keyHad(ctx, r, key, expiry)
}

// insertQueued is QueueRun's insert of the run, and of its key when there
// is one (won: the key was not recorded before).
func (s *Store) insertQueued(ctx context.Context, st *writerStmts, r *Run, key *IdempotencyKey, expiry time.Time, won, recorded *bool, running bool, args func() []any) error {
	if err := insertKey(ctx, st, key, expiry, won); err != nil || !*won {
		return err
	}
	_, err := st.insertRun.ExecContext(ctx, args()...)
	if err == nil && running {
		s.owner.held(r.ID)
	}
	*recorded = err == nil
	return err
}

// insertKey records key, when not nil, in QueueRun's transaction: won is
// false when the key was recorded before (and has not expired).
func insertKey(ctx context.Context, st *writerStmts, key *IdempotencyKey, expiry time.Time, won *bool) error {
	*won = true
	if key == nil {
		return nil
	}
	res, err := st.insertIdempotency.ExecContext(ctx, key.Flow, key.Namespace, key.Key, key.Request, key.RunID,
		key.CreatedAt.UnixNano(), expiry.UnixNano())
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	*won = n > 0
	return nil
}

// keyHad is QueueRun's answer when key was recorded before: the key as it
// was.
func (s *Store) keyHad(ctx context.Context, r *Run, key *IdempotencyKey, expiry time.Time) (*IdempotencyKey, error) {
	got := IdempotencyKey{Flow: key.Flow, Namespace: key.Namespace, Key: key.Key}
	var created int64
	err := s.db.QueryRow(`SELECT request, run_id, created_at FROM idempotency_keys
		WHERE flow = ? AND namespace = ? AND key = ?`, key.Flow, key.Namespace, key.Key).Scan(&got.Request, &got.RunID, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// Pruned since: queue the run, and claim the key, again.
		return s.QueueRunWithin(ctx, r, key, expiry)
	case err != nil:
		return nil, fmt.Errorf("reading an Idempotency-Key: %w", err)
	}
	got.CreatedAt = time.Unix(0, created)
	return &got, nil
}

// StartQueued starts a run that this process queued (QueueRun): it is
// running from startedAt, owned by this process as a run CreateRun
// records is. It fails with ErrNotQueued when the run is no longer queued
// (another process took it for abandoned: resume it, ReopenRun, if it is
// interrupted). origin, when not "", replaces the run's (OriginTemporal: a
// run that Temporal runs, which no process owns).
func (s *Store) StartQueued(id string, startedAt time.Time, origin string) error {
	owned := origin != OriginTemporal
	claimed := false
	if owned {
		var err error
		if claimed, err = s.owner.claim(id); err != nil {
			return fmt.Errorf("starting run %s: %w", id, err)
		}
	}
	args := func() []any {
		own := ""
		if owned {
			own = s.owner.id()
		}
		return []any{nanos(startedAt), own, origin, origin, id}
	}
	started := func(n int64) error {
		if n == 0 {
			return ErrNotQueued
		}
		if owned {
			s.owner.held(id)
		}
		return nil
	}
	_, err := s.w.doPiped("", &piped{query: startQueuedSQL, args: args, check: started}, func(ctx context.Context, st *writerStmts) error {
		res, err := st.conn.ExecContext(ctx, startQueuedSQL, args()...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		return started(n)
	})
	if err != nil {
		if claimed {
			s.owner.release(id)
		}
		return fmt.Errorf("starting run %s: %w", id, err)
	}
	return nil
}

const startQueuedSQL = `UPDATE runs SET status = 'running', started_at = ?, owner = ?,
	origin = CASE WHEN ? = '' THEN origin ELSE ? END
	WHERE id = ? AND status = '` + StatusQueued + `'`

// EndQueued records a queued run that cannot start (its flow's memory
// cannot be read, a secret is missing: errText says why) as ended with
// status, without starting it. It fails with ErrNotQueued when the run is
// no longer queued.
func (s *Store) EndQueued(id, status, errText string) error {
	_, err := s.w.doBlind("", func(ctx context.Context, st *writerStmts) error {
		res, err := st.conn.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?, error = ?
			WHERE id = ? AND status = '`+StatusQueued+`'`, status, time.Now().UnixNano(), prose(errText), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotQueued
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("ending queued run %s: %w", id, err)
	}
	return nil
}

// queuedInterruptedError is the error recorded with a queued run whose
// process is gone.
const queuedInterruptedError = "the process that accepted it ended before the run started; it starts when a server takes it up"
