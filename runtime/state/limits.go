package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// A flow's per-key limits (lang.Limits) hold its queued runs back, the
// same on every process that shares the state. A run is queued with its
// keys (RunLimits, QueueRun) and started by StartLimited, which starts it
// only when its keys let it, in one transaction of the writer:
//
//   - a concurrency key has limit places, rows of limit_slots, each held by
//     a running run, or an interrupted one (its process is gone: it is
//     taken up and goes on with its place); a place whose run ended or
//     waits for an approval is free. A queued run takes one when
//     no queued run of the key is before it (higher priority, then queued
//     earlier) among those the free places go to. The primary key makes
//     two processes' claims of one place one winner.
//   - a rate limit key has limit places too, each free again period after
//     the start that took it: at most limit starts in any period.
//   - a debounce key has at most one queued run (a unique index): a start
//     of the key while one is queued gives that run its inputs and moves
//     its start period later (QueueRun answers with that run), so that
//     many starts within the period make one run with the last inputs.

// RunLimits are the keys of a run's limits and the limits of its flow.
type RunLimits struct {
	Concurrency      *string
	ConcurrencyLimit int
	Rate             *string
	RateLimit        int
	RatePeriod       time.Duration
	Debounce         *string
	DebouncePeriod   time.Duration
	// Priority orders the queued runs of a concurrency key: higher first.
	Priority int
	// Joined is set by QueueRun when a queued run of the debounce key
	// took this start's inputs: the run that runs, none being recorded.
	Joined string
}

// A Turn is what StartLimited did: started the run, or not, and why.
type Turn struct {
	Started bool
	// WaitingFor is why the run waits: `concurrency key "c-17"`.
	WaitingFor string
	// Until, when not zero, is when the run's turn may come, at the
	// earliest (a debounce's or a rate limit's period ends).
	Until time.Time
	// Inputs are the run's inputs as recorded now: a debounced run's are
	// those of the last start of its key.
	Inputs json.RawMessage
}

// Kinds of limit_slots rows.
const (
	slotConcurrency = "concurrency"
	slotRate        = "rate_limit"
)

// queueLimited is QueueRun's part for a run with limits, in its
// transaction: a debounced run joins the queued run of its key
// (RunLimits.Joined, nothing else written), else the run's keys are
// written once it is inserted (insert).
func queueLimited(ctx context.Context, st *writerStmts, r *Run, inputs json.RawMessage, insert func() error) error {
	l := r.Limits
	now := time.Now()
	var notBefore any
	if l.Debounce != nil {
		notBefore = now.Add(l.DebouncePeriod).UnixNano()
		var id string
		err := st.conn.QueryRowContext(ctx, `UPDATE runs SET inputs = CAST(? AS TEXT), not_before = ?, priority = ?
			WHERE flow = ? AND namespace = ? AND debounce_key = ? AND status = '`+StatusQueued+`' RETURNING id`,
			text(inputs), notBefore, l.Priority, r.Flow, r.Namespace, *l.Debounce).Scan(&id)
		switch {
		case err == nil:
			l.Joined = id
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	if err := insert(); err != nil {
		return err
	}
	_, err := st.conn.ExecContext(ctx, `UPDATE runs SET concurrency_key = ?, rate_key = ?, debounce_key = ?, priority = ?, not_before = ?
		WHERE id = ?`, keyArg(l.Concurrency), keyArg(l.Rate), keyArg(l.Debounce), l.Priority, notBefore, r.ID)
	return err
}

func keyArg(k *string) any {
	if k == nil {
		return nil
	}
	return *k
}

// StartLimited starts a run that this process queued with limits
// (QueueRun with Run.Limits), as StartQueued does (origin, when not "",
// replaces the run's: OriginTemporal, a run no process owns), when its
// limits let it; else it records why it waits (Run.WaitingFor) and says
// so. It fails with ErrNotQueued when the run is no longer queued.
func (s *Store) StartLimited(id string, l *RunLimits, origin string) (Turn, error) {
	owned := origin != OriginTemporal
	claimed := false
	if owned {
		var err error
		if claimed, err = s.owner.claim(id); err != nil {
			return Turn{}, fmt.Errorf("starting run %s: %w", id, err)
		}
	}
	var turn Turn
	_, err := s.w.doBlind("", func(ctx context.Context, st *writerStmts) error {
		var err error
		turn, err = s.takeTurn(ctx, st, id, l, origin, time.Now())
		if err == nil && turn.Started && owned {
			s.owner.held(id)
		}
		return err
	})
	if err != nil || !turn.Started {
		if claimed {
			s.owner.release(id)
		}
	}
	if err != nil {
		return Turn{}, fmt.Errorf("starting run %s: %w", id, err)
	}
	if turn.Inputs, err = loadBlob(s.w.dir, turn.Inputs); err != nil {
		return Turn{}, fmt.Errorf("the inputs of run %s: %w", id, err)
	}
	return turn, nil
}

func (s *Store) takeTurn(ctx context.Context, st *writerStmts, id string, l *RunLimits, origin string, now time.Time) (Turn, error) {
	var flow, ns string
	var priority int
	var queuedAt, notBefore sql.NullInt64
	var inputs []byte
	err := st.conn.QueryRowContext(ctx, `SELECT flow, namespace, priority, started_at, not_before, inputs FROM runs
		WHERE id = ? AND status = '`+StatusQueued+`'`, id).Scan(&flow, &ns, &priority, &queuedAt, &notBefore, &inputs)
	if errors.Is(err, sql.ErrNoRows) {
		return Turn{}, ErrNotQueued
	} else if err != nil {
		return Turn{}, err
	}
	turn := Turn{Inputs: inputs}
	wait := func(reason string, until time.Time) (Turn, error) {
		turn.WaitingFor, turn.Until = reason, until
		_, err := st.conn.ExecContext(ctx, `UPDATE runs SET waiting_for = ? WHERE id = ? AND waiting_for <> ?`, reason, id, reason)
		return turn, err
	}
	if l.Debounce != nil && notBefore.Valid && notBefore.Int64 > now.UnixNano() {
		return wait("debounce key "+strconv.Quote(*l.Debounce), time.Unix(0, notBefore.Int64))
	}
	if k := l.Concurrency; k != nil {
		if _, err := st.conn.ExecContext(ctx, `DELETE FROM limit_slots WHERE flow = ? AND namespace = ? AND kind = ? AND key = ?
			AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = limit_slots.run_id AND runs.status IN ('running', '`+StatusInterrupted+`'))`,
			flow, ns, slotConcurrency, *k); err != nil {
			return turn, err
		}
		var held, ahead int
		if err := st.conn.QueryRowContext(ctx, `SELECT count(*) FROM limit_slots WHERE flow = ? AND namespace = ? AND kind = ? AND key = ?`,
			flow, ns, slotConcurrency, *k).Scan(&held); err != nil {
			return turn, err
		}
		if err := st.conn.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE flow = ? AND namespace = ? AND concurrency_key = ?
			AND status = '`+StatusQueued+`' AND id <> ? AND (not_before IS NULL OR not_before <= ?)
			AND (priority > ? OR priority = ? AND (started_at < ? OR started_at = ? AND id < ?))`,
			flow, ns, *k, id, now.UnixNano(), priority, priority, queuedAt.Int64, queuedAt.Int64, id).Scan(&ahead); err != nil {
			return turn, err
		}
		reason := "concurrency key " + strconv.Quote(*k)
		if held+ahead >= l.ConcurrencyLimit {
			return wait(reason, time.Time{})
		}
		got := false
		for slot := range l.ConcurrencyLimit {
			res, err := st.conn.ExecContext(ctx, `INSERT INTO limit_slots (flow, namespace, kind, key, slot, run_id, free_at)
				VALUES (?, ?, ?, ?, ?, ?, 0) ON CONFLICT DO NOTHING`, flow, ns, slotConcurrency, *k, slot, id)
			if err != nil {
				return turn, err
			}
			if n, err := res.RowsAffected(); err != nil {
				return turn, err
			} else if n > 0 {
				got = true
				break
			}
		}
		if !got {
			return wait(reason, time.Time{})
		}
	}
	if k := l.Rate; k != nil {
		got := false
		for slot := range l.RateLimit {
			res, err := st.conn.ExecContext(ctx, `INSERT INTO limit_slots (flow, namespace, kind, key, slot, run_id, free_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (flow, namespace, kind, key, slot) DO UPDATE SET run_id = excluded.run_id, free_at = excluded.free_at
				WHERE limit_slots.free_at <= ?`, flow, ns, slotRate, *k, slot, id, now.Add(l.RatePeriod).UnixNano(), now.UnixNano())
			if err != nil {
				return turn, err
			}
			if n, err := res.RowsAffected(); err != nil {
				return turn, err
			} else if n > 0 {
				got = true
				break
			}
		}
		if !got {
			var free sql.NullInt64
			if err := st.conn.QueryRowContext(ctx, `SELECT min(free_at) FROM limit_slots WHERE flow = ? AND namespace = ? AND kind = ? AND key = ?`,
				flow, ns, slotRate, *k).Scan(&free); err != nil {
				return turn, err
			}
			// The concurrency place taken above is given back.
			if _, err := st.conn.ExecContext(ctx, `DELETE FROM limit_slots WHERE kind = ? AND run_id = ?`, slotConcurrency, id); err != nil {
				return turn, err
			}
			return wait("rate limit key "+strconv.Quote(*k), fromNanos(free))
		}
	}
	own := ""
	if origin != OriginTemporal {
		own = s.owner.id()
	}
	res, err := st.conn.ExecContext(ctx, `UPDATE runs SET status = 'running', started_at = ?, owner = ?, waiting_for = '',
		origin = CASE WHEN ? = '' THEN origin ELSE ? END
		WHERE id = ? AND status = '`+StatusQueued+`'`, now.UnixNano(), own, origin, origin, id)
	if err != nil {
		return turn, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return turn, err
	} else if n == 0 {
		return turn, ErrNotQueued
	}
	turn.Started = true
	return turn, nil
}

// RequeueInterrupted puts back in the queue, owned by this process, a run
// of a flow with limits whose process ended before it started it
// (interrupted, queuedInterruptedError), so that it waits for its turn
// again rather than run past its limits; it returns the run's priority,
// and false when the run is not such a run (any more: another process
// took it up).
func (s *Store) RequeueInterrupted(id string) (int, bool, error) {
	queue, err := s.owner.queue()
	if err != nil {
		return 0, false, fmt.Errorf("queuing run %s again: %w", id, err)
	}
	priority, ok := 0, false
	_, err = s.w.doBlind("", func(ctx context.Context, st *writerStmts) error {
		q := queue
		if q == "" {
			q = s.owner.id()
		}
		err := st.conn.QueryRowContext(ctx, `UPDATE runs SET status = '`+StatusQueued+`', owner = ?, finished_at = NULL, error = ''
			WHERE id = ? AND status = ? AND error = ? RETURNING priority`, q, id, StatusInterrupted, queuedInterruptedError).Scan(&priority)
		ok = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("queuing run %s again: %w", id, err)
	}
	return priority, ok, nil
}
