package state

import (
	"context"
	"errors"
	"fmt"
)

// ErrDecided is returned by CancelWaiting when a decision on one of the
// run's approval steps came first: the run goes on with it.
var ErrDecided = errors.New("a decision on the run came first")

// CancelWaiting closes the approvals a waiting run waits for, so that no
// decision can be recorded on them any more (DecideApproval returns
// ErrNotWaiting), for a cancellation of the run. When a decision was
// recorded first, and its run has not taken it yet, it changes nothing and
// returns ErrDecided. Of a decision and a cancellation racing on one run,
// exactly one wins: the statements run in one transaction, which SQLite
// serializes with the writer's, and in which PostgreSQL makes a concurrent
// decision of a row it closes wait for it, then find it closed.
func (s *Store) CancelWaiting(runID string) error {
	ctx := context.Background()
	tx, err := s.db.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cancelling the approvals of run %s: %w", runID, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, s.db.b.bind(`UPDATE approvals SET closed = 1
		WHERE run_id = ? AND closed = 0 AND decided_at IS NULL`), runID); err != nil {
		return fmt.Errorf("cancelling the approvals of run %s: %w", runID, err)
	}
	var decided int
	if err := tx.QueryRowContext(ctx, s.db.b.bind(`SELECT count(*) FROM approvals
		WHERE run_id = ? AND closed = 0 AND decided_at IS NOT NULL`), runID).Scan(&decided); err != nil {
		return fmt.Errorf("cancelling the approvals of run %s: %w", runID, err)
	}
	if decided > 0 {
		return ErrDecided
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cancelling the approvals of run %s: %w", runID, err)
	}
	return nil
}
