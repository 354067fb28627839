package state

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
)

// The writer's connection: taken from the pool, its statements prepared,
// and let go (closed when broken, so that the next batch takes a new one).

// connect takes a connection of the pool for the writer and prepares its
// statements on it.
func (w *writer) connect(ctx context.Context) error {
	c, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	w.conn = &sqlConn{Conn: c, b: w.b}
	if err := w.prepare(ctx); err != nil {
		w.disconnect(true)
		return err
	}
	return nil
}

// disconnect lets the writer's connection go: back to the pool, or, when
// broken, closed (a new one is made for the next batch).
func (w *writer) disconnect(broken bool) error {
	if w.conn == nil {
		return nil
	}
	err := w.closeStmts()
	if broken {
		// Returning ErrBadConn from Raw makes database/sql close the
		// driver's connection rather than pool it.
		w.conn.Raw(func(any) error { return driver.ErrBadConn })
		err = nil
	}
	err = errors.Join(err, w.conn.Close())
	w.conn = nil
	w.stmts = writerStmts{}
	w.steps, w.cache, w.events, w.calls = nil, nil, nil, nil
	return err
}

func (w *writer) prepare(ctx context.Context) error {
	if err := w.b.setupWriter(ctx, w.conn.Conn); err != nil {
		return err
	}
	st := &w.stmts
	st.conn = w.conn
	if _, ok := w.owner.(*lease); ok {
		var err error
		if st.markOwner, err = w.conn.PrepareContext(ctx, markOwnerSQL); err != nil {
			return fmt.Errorf("preparing %q: %w", markOwnerSQL, err)
		}
	}
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&st.begin, w.b.begin()},
		{&st.selectMemory, selectMemorySQL},
		{&st.insertPayload, insertPayloadSQL},
		{&st.commit, `COMMIT`},
		{&st.rollback, `ROLLBACK`},
		{&st.savepoint, `SAVEPOINT op`},
		{&st.rollbackSavepoint, `ROLLBACK TO op`},
		{&st.release, `RELEASE op`},
		{&st.insertRun, insertRunSQL},
		{&st.finishRun, finishRunSQL},
		{&st.markInterrupted, markInterruptedSQL},
		{&st.reopenRun, reopenRunSQL},
		{&st.requestApproval, requestApprovalSQL},
		{&st.decideApproval, decideApprovalSQL},
		{&st.closeApproval, closeApprovalSQL},
		{&st.interruptRun, interruptRunSQL},
		{&st.upsertMemoryItem, upsertMemorySQL},
		{&st.upsertSchedule, upsertScheduleSQL},
		{&st.insertIdempotency, insertIdempotencySQL},
		{&st.upsertVector, upsertVectorSQL},
		{&st.insertProposal, insertProposalSQL},
		{&st.decideProposal, decideProposalSQL},
	} {
		s, err := w.conn.PrepareContext(ctx, p.query)
		if err != nil {
			return fmt.Errorf("preparing %q: %w", p.query, err)
		}
		*p.stmt = s
	}
	if q := w.b.lockMemory(); q != "" {
		var err error
		if st.lockMemory, err = w.conn.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("preparing %q: %w", q, err)
		}
	}
	var err error
	if w.events, err = events.prepare(ctx, w.conn); err != nil {
		return fmt.Errorf("preparing the statements for events: %w", err)
	}
	if w.steps, err = steps.prepare(ctx, w.conn); err != nil {
		return fmt.Errorf("preparing the statements for step results: %w", err)
	}
	if w.cache, err = cache.prepare(ctx, w.conn); err != nil {
		return fmt.Errorf("preparing the statements for cache entries: %w", err)
	}
	if w.calls, err = calls.prepare(ctx, w.conn); err != nil {
		return fmt.Errorf("preparing the statements for model calls: %w", err)
	}
	return nil
}

func (w *writer) closeStmts() error {
	var errs []error
	for _, t := range []*table{w.steps, w.cache, w.events, w.calls} {
		if t != nil {
			errs = append(errs, t.close())
		}
	}
	st := &w.stmts
	for _, s := range []*sql.Stmt{
		st.begin, st.commit, st.rollback,
		st.savepoint, st.rollbackSavepoint, st.release,
		st.insertRun, st.finishRun, st.upsertMemoryItem, st.markInterrupted, st.upsertSchedule, st.insertIdempotency,
		st.upsertVector, st.reopenRun, st.requestApproval, st.decideApproval, st.closeApproval, st.interruptRun,
		st.insertProposal, st.decideProposal, st.lockMemory, st.selectMemory, st.insertPayload, st.markOwner,
	} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}
