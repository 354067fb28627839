package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// CreateRun stores a new run and returns once it is committed, after every
// write handed over before it. When r.ID is empty it is set to NewRunID(),
// an empty r.Namespace to DefaultNamespace, a zero r.StartedAt to now and an
// empty r.Status to "running". A run ID that exists already is an error.
func (s *Store) CreateRun(r *Run) error {
	if r.Flow == "" {
		return errors.New("creating a run: the flow name is empty")
	}
	if r.ID == "" {
		r.ID = NewRunID()
	}
	r.Namespace = namespace(r.Namespace)
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	if r.Status == "" {
		r.Status = "running"
	}
	inputs, err := storeBlob(s.w.dir, r.Inputs)
	if err != nil {
		return fmt.Errorf("creating run %s: %w", r.ID, err)
	}
	// A running run is locked by its process before it exists, so that no
	// one takes it for one whose process died (owner.go).
	claimed, owned := false, r.Status == "running" && r.Origin != OriginTemporal
	if owned {
		if claimed, err = s.owner.claim(r.ID); err != nil {
			return fmt.Errorf("creating run %s: %w", r.ID, err)
		}
	}
	outputs, err := storeBlob(s.w.dir, r.Outputs)
	if err == nil {
		_, err = s.w.doBlind("", func(ctx context.Context, st *writerStmts) error {
			own := ""
			if owned {
				own = s.owner.id()
			}
			_, err := st.insertRun.ExecContext(ctx,
				r.ID, r.Flow, r.Namespace, r.FlowFile, r.SourceHash, text(inputs),
				r.Status, nanos(r.StartedAt), nanos(r.FinishedAt), text(outputs),
				prose(r.Error), text(r.Usage), text(r.FailedOutputs), r.Origin, text(r.Fingerprints), r.ParentRun, r.ParentStep, own)
			if err == nil && owned {
				s.owner.held(r.ID)
			}
			return err
		})
	}
	if err != nil {
		if claimed {
			s.owner.release(r.ID)
		}
		if s.db.b.duplicate(err) {
			err = ErrRunExists
		}
		return fmt.Errorf("creating run %s: %w", r.ID, err)
	}
	return nil
}

// FinishRun stores the end of run r.ID: its Status, FinishedAt (set to now
// when zero), Outputs, FailedOutputs, Error, Usage and, when not nil,
// Fingerprints; the other fields are left as CreateRun stored them. It returns once committed, after every write
// handed over before it, in particular the run's step results. When one of
// those asynchronous writes failed, FinishRun returns that error (as Flush
// would) even though the run itself was stored.
func (s *Store) FinishRun(r *Run) error {
	if r.Status == "" {
		return fmt.Errorf("finishing run %s: the status is empty", r.ID)
	}
	if r.FinishedAt.IsZero() {
		r.FinishedAt = time.Now()
	}
	outputs, err := storeBlob(s.w.dir, r.Outputs)
	if err != nil {
		return fmt.Errorf("finishing run %s: %w", r.ID, err)
	}
	args := func() []any {
		return []any{r.Status, nanos(r.FinishedAt), text(outputs), prose(r.Error), text(r.Usage), text(r.FailedOutputs), text(r.Fingerprints), r.ID, s.owner.id()}
	}
	// In a pipeline, a run not finished (not found, or another process's)
	// is looked up by fn, in the careful try that follows.
	p := &piped{query: finishRunSQL, args: args, check: func(n int64) error {
		if n == 0 {
			return ErrRunNotFound
		}
		return nil
	}}
	seq, err := s.w.doPiped(r.ID, p, func(ctx context.Context, st *writerStmts) error {
		res, err := st.finishRun.ExecContext(ctx, args()...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return s.missing(ctx, st, r.ID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finishing run %s: %w", r.ID, err)
	}
	s.owner.release(r.ID)
	return s.w.takeErr(r.ID, seq)
}

// RecordStep hands a step result over to the writer and returns at once; it
// is committed shortly after, or by the next Flush, FinishRun or Close. The
// run must have been created. A result for a step instance that has one
// already replaces it (the later RecordStep wins).
//
// RecordStep copies *r, so the caller may reuse r; it does not copy the
// bytes of r.Outputs and r.Usage, which must not be modified afterwards.
// Errors are reported by the next Flush. After Close, RecordStep does
// nothing (and Flush reports ErrClosed).
func (s *Store) RecordStep(r *StepResult) {
	c := *r
	s.w.push(&op{kind: opStep, step: &c})
}

// CachePut hands a result cache entry over to the writer, as RecordStep
// does: it replaces any entry with the same key. flow and step say where the
// entry came from. outputs is not copied and must not be modified
// afterwards.
func (s *Store) CachePut(key, flow, step string, outputs json.RawMessage) {
	s.w.push(&op{kind: opCache, cache: &cacheEntry{key: key, flow: flow, step: step, hash: cacheHash(key), outputs: outputs}})
}

// RecordEvent hands an event of a run over to the writer, as RecordStep
// does; an event with the same run and sequence number replaces it. Data
// is not copied and must not be modified afterwards.
func (s *Store) RecordEvent(e Event) {
	s.w.push(&op{kind: opEvent, event: &e})
}

// Flush waits until everything handed over so far is committed. It returns
// the first error of the asynchronous writes (RecordStep, CachePut) among
// them that no earlier Flush or FinishRun has returned; a failed write is
// reported once.
func (s *Store) Flush() error {
	return s.w.flush()
}

// FlushRun is Flush that reports the errors of the writes of run runID
// only (its step results and events): a run's flush never reports, or
// takes from it, another run's failed write.
func (s *Store) FlushRun(runID string) error {
	return s.w.flushRun(runID, false)
}

// SetMemory stores the memory values of flow in namespace ("" for
// DefaultNamespace), in one transaction, and returns once committed.
// Values not named in values keep what they hold.
func (s *Store) SetMemory(flow, ns string, values map[string]json.RawMessage) error {
	return s.UpdateMemory(flow, ns, func(map[string]json.RawMessage) (map[string]json.RawMessage, error) {
		return values, nil
	})
}

// UpdateMemory reads the memory values of flow in namespace and stores
// what update makes of them, in one transaction that no other update of
// that memory, by any process, interleaves with: concurrent runs that
// each add one to a counter add two. update runs on the store's writer,
// and must not call the store. Values update does not name keep what they
// hold.
func (s *Store) UpdateMemory(flow, ns string, update func(stored map[string]json.RawMessage) (map[string]json.RawMessage, error)) error {
	ns = namespace(ns)
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		if st.lockMemory != nil {
			if _, err := st.lockMemory.ExecContext(ctx, keyHash("memory "+flow+"\x00"+ns)); err != nil {
				return err
			}
		}
		stored, err := readMemory(st.selectMemory.QueryContext(ctx, flow, ns))
		if err != nil {
			return err
		}
		values, err := update(stored)
		if err != nil {
			return err
		}
		now := time.Now().UnixNano()
		for _, name := range slices.Sorted(maps.Keys(values)) {
			if _, err := st.upsertMemoryItem.ExecContext(ctx, flow, ns, name, text(values[name]), now); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storing the memory of flow %s (namespace %s): %w", flow, ns, err)
	}
	return nil
}

// SetScheduleFired records when a schedule of a flow last fired, and
// returns once committed.
func (s *Store) SetScheduleFired(flow, name string, at time.Time) error {
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.upsertSchedule.ExecContext(ctx, flow, name, at.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("recording schedule %s of flow %s: %w", name, flow, err)
	}
	return nil
}

// ClaimScheduleFire claims the firing of a schedule of a flow at at, when
// it last fired at prev, as ScheduleFired read it (zero when it never
// did), and returns once committed. It reports true when this caller won
// the tick: any number of servers on one state may try to fire it, and
// exactly one wins; false when another fired it since prev (read
// ScheduleFired again).
func (s *Store) ClaimScheduleFire(flow, name string, prev, at time.Time) (bool, error) {
	won := false
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		var res sql.Result
		var err error
		if prev.IsZero() {
			res, err = st.conn.ExecContext(ctx, `INSERT INTO schedules (flow, name, fired_at) VALUES (?, ?, ?)
				ON CONFLICT (flow, name) DO NOTHING`, flow, name, at.UnixNano())
		} else {
			res, err = st.conn.ExecContext(ctx, `UPDATE schedules SET fired_at = ?
				WHERE flow = ? AND name = ? AND fired_at = ?`, at.UnixNano(), flow, name, prev.UnixNano())
		}
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		won = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("claiming schedule %s of flow %s: %w", name, flow, err)
	}
	return won, nil
}

const upsertScheduleSQL = `
INSERT INTO schedules (flow, name, fired_at) VALUES (?, ?, ?)
ON CONFLICT (flow, name) DO UPDATE SET fired_at = excluded.fired_at`

const insertRunSQL = `
INSERT INTO runs (id, flow, namespace, flow_file, source_hash, inputs, status,
	started_at, finished_at, outputs, error, usage, failed_outputs, origin, fingerprints, parent_run, parent_step, owner)
VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, CAST(? AS TEXT), ?, CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT), ?, ?, ?)`

const finishRunSQL = `
UPDATE runs SET
	status = ?,
	finished_at = ?,
	outputs = CAST(? AS TEXT),
	error = ?,
	usage = CAST(? AS TEXT),
	failed_outputs = CAST(? AS TEXT),
	fingerprints = coalesce(CAST(? AS TEXT), fingerprints)
WHERE id = ? AND owner IN ('', ?)`

// missing is the error of a write of run id that changed no row: the run
// does not exist, or another process owns it.
func (s *Store) missing(ctx context.Context, st *writerStmts, id string) error {
	var owner string
	err := st.conn.QueryRowContext(ctx, `SELECT owner FROM runs WHERE id = ?`, id).Scan(&owner)
	switch {
	case err == sql.ErrNoRows:
		return ErrRunNotFound
	case err != nil:
		return err
	}
	return ErrRunTaken
}

const selectMemorySQL = `SELECT name, value FROM memory WHERE flow = ? AND namespace = ?`

const upsertMemorySQL = `
INSERT INTO memory (flow, namespace, name, value, updated_at)
VALUES (?, ?, ?, CAST(? AS TEXT), ?)
ON CONFLICT (flow, namespace, name) DO UPDATE SET
	value = excluded.value,
	updated_at = excluded.updated_at`
