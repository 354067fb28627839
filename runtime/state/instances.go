package state

import (
	"cmp"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A StepCount is what the instances of one step of a run that ended with
// one status have in common: how many there are, when the first started
// and the last finished, and the most attempts one made. A run of a
// for_each over 100,000 items is read as a few counts instead of 100,000
// results (StepCounts), and its instances a page at a time (StepResults).
type StepCount struct {
	Step, Status string
	Instances    int
	Attempts     int       // the most attempts of one instance
	Started      time.Time // the first start; zero when none started
	Finished     time.Time // the last finish; zero when none finished
}

// StepCounts returns the counts of a run's step results by step and
// status, in the order of the steps' first start (steps that never
// started last), then by status.
func (s *Store) StepCounts(runID string) ([]StepCount, error) {
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT step, status, COUNT(*), MAX(attempts),
		MIN(started_at), MAX(finished_at) FROM steps WHERE run_id = ? GROUP BY step, status`, runID)
	if err != nil {
		return nil, fmt.Errorf("counting the steps of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []StepCount
	for rows.Next() {
		var c StepCount
		var n, attempts int64
		var started, finished sql.NullInt64
		if err := rows.Scan(&c.Step, &c.Status, &n, &attempts, &started, &finished); err != nil {
			return nil, fmt.Errorf("counting the steps of run %s: %w", runID, err)
		}
		c.Instances, c.Attempts = int(n), int(attempts)
		c.Started, c.Finished = fromNanos(started), fromNanos(finished)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counting the steps of run %s: %w", runID, err)
	}
	first := map[string]time.Time{}
	for _, c := range out {
		if f, ok := first[c.Step]; !ok || !c.Started.IsZero() && (f.IsZero() || c.Started.Before(f)) {
			first[c.Step] = c.Started
		}
	}
	slices.SortStableFunc(out, func(a, b StepCount) int {
		fa, fb := first[a.Step], first[b.Step]
		switch {
		case a.Step == b.Step:
			return strings.Compare(a.Status, b.Status)
		case fa.IsZero() != fb.IsZero():
			return cmp.Compare(boolInt(fa.IsZero()), boolInt(fb.IsZero()))
		case !fa.Equal(fb):
			return fa.Compare(fb)
		}
		return strings.Compare(a.Step, b.Step)
	})
	return out, nil
}

// A StepQuery selects step results of a run (StepResults).
type StepQuery struct {
	// Step, when set, selects that step's instances, in the order of their
	// keys (numbers in numeric order); else every step's results are
	// selected, in the order Steps gives them.
	Step string
	// Except leaves these steps out.
	Except []string
	// Statuses, when set, selects results with one of these statuses.
	Statuses []string
	// After, with Step, selects the instances whose key comes after this
	// one: the next page after a page that ended with it.
	After string
	// Limit, when above 0, returns at most that many.
	Limit int
}

// StepResults returns the step results of a run that q selects: a page
// of one step's instances, or those of the steps not left out.
func (s *Store) StepResults(runID string, q StepQuery) ([]*StepResult, error) {
	var where strings.Builder
	args := []any{runID}
	where.WriteString(`run_id = ?`)
	order := `started_at IS NULL, started_at, finished_at IS NOT NULL, finished_at, step, instance`
	if q.Step != "" {
		where.WriteString(` AND step = ?`)
		args = append(args, q.Step)
		// Numeric keys (the index of a list's item) sort by length first,
		// so that 10 comes after 9; string keys sort as before.
		order = `length(instance), instance`
		if q.After != "" {
			where.WriteString(` AND (length(instance) > ? OR length(instance) = ? AND instance > ?)`)
			args = append(args, len(q.After), len(q.After), q.After)
		}
	}
	if len(q.Except) > 0 {
		where.WriteString(` AND step NOT IN (?` + strings.Repeat(`, ?`, len(q.Except)-1) + `)`)
		for _, e := range q.Except {
			args = append(args, e)
		}
	}
	if len(q.Statuses) > 0 {
		where.WriteString(` AND status IN (?` + strings.Repeat(`, ?`, len(q.Statuses)-1) + `)`)
		for _, st := range q.Statuses {
			args = append(args, st)
		}
	}
	query := `SELECT ` + stepColumns + ` FROM steps WHERE ` + where.String() + ` ORDER BY ` + order
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	rows, err := s.db.QueryContext(s.db.bg(), query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the steps of run %s: %w", runID, err)
	}
	return s.scanSteps(runID, rows)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scanSteps reads step results (stepColumns) and loads their outputs kept
// as blobs.
func (s *Store) scanSteps(runID string, rows *sql.Rows) ([]*StepResult, error) {
	defer rows.Close()
	var steps []*StepResult
	for rows.Next() {
		r := new(StepResult)
		var started, finished sql.NullInt64
		var attempts int64
		if err := rows.Scan(&r.RunID, &r.Step, &r.Instance, &r.Status, &attempts,
			&started, &finished, (*[]byte)(&r.Outputs), &r.Sensitive, &r.Error,
			&r.CacheKey, (*[]byte)(&r.Usage), &r.Log); err != nil {
			return nil, fmt.Errorf("reading the steps of run %s: %w", runID, err)
		}
		r.Attempts = int(attempts)
		r.StartedAt, r.FinishedAt = fromNanos(started), fromNanos(finished)
		var err error
		if r.Outputs, err = loadBlob(s.w.dir, r.Outputs); err != nil {
			return nil, fmt.Errorf("the outputs of step %s%s of run %s: %w", r.Step, instanceSuffix(r.Instance), runID, err)
		}
		steps = append(steps, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the steps of run %s: %w", runID, err)
	}
	return steps, nil
}
