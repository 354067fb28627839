package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrPlanApplied is wrapped by a PlanAppliedError.
var ErrPlanApplied = errors.New("the saved plan was applied already")

// A PlanAppliedError is the error of applying a saved plan a second time:
// when, and by which run, it was applied.
type PlanAppliedError struct {
	RunID string
	At    time.Time
}

func (e *PlanAppliedError) Error() string {
	return fmt.Sprintf("%v on %s, by run %s", ErrPlanApplied, e.At.Format(time.RFC3339), e.RunID)
}

func (e *PlanAppliedError) Unwrap() error { return ErrPlanApplied }

// ApplyPlan records that the saved plan id is applied by run runID, and
// returns once committed; a PlanAppliedError when it was applied before.
// A saved plan is applied once, as Terraform's: what it showed was what
// would run then, against the state as it was.
func (s *Store) ApplyPlan(id, runID string) error {
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		res, err := st.conn.ExecContext(ctx, `INSERT INTO applied_plans (id, run_id, applied_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			id, runID, time.Now().UnixNano())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		var e PlanAppliedError
		var at int64
		err = st.conn.QueryRowContext(ctx, `SELECT run_id, applied_at FROM applied_plans WHERE id = ?`, id).Scan(&e.RunID, &at)
		if err == sql.ErrNoRows {
			return ErrPlanApplied // applied and gone: cannot be
		}
		if err != nil {
			return err
		}
		e.At = time.Unix(0, at)
		return &e
	})
	if err != nil {
		return fmt.Errorf("recording the saved plan's application: %w", err)
	}
	return nil
}
