package state

import (
	"fmt"
	"time"
)

// FinishedRuns returns the top-level runs of flow that ended with one of
// statuses at or after since, oldest end first, at most limit of them:
// what serve's on_run triggers start runs for.
func (s *Store) FinishedRuns(flow string, statuses []string, since time.Time, limit int) ([]*Run, error) {
	q := `SELECT ` + runColumns + ` FROM runs WHERE flow = ? AND finished_at >= ? AND parent_run = '' AND status IN (`
	args := []any{flow, since.UnixNano()}
	for i, st := range statuses {
		if i > 0 {
			q += `, `
		}
		q += `?`
		args = append(args, st)
	}
	rows, err := s.db.QueryContext(s.db.bg(), q+`) ORDER BY finished_at, id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("listing the ended runs of flow %s: %w", flow, err)
	}
	runs, err := s.scanRuns(rows)
	if err != nil {
		return nil, fmt.Errorf("listing the ended runs of flow %s: %w", flow, err)
	}
	return runs, nil
}
