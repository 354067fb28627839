package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// MinPrefix is the shortest run ID prefix Run accepts.
const MinPrefix = 4

// maxAmbiguous is how many candidates an ambiguous prefix error lists.
const maxAmbiguous = 5

const runColumns = `id, flow, namespace, flow_file, source_hash, inputs, status,
	started_at, finished_at, outputs, error, usage, failed_outputs, origin, fingerprints, parent_run, parent_step, waiting_for`

const stepColumns = `run_id, step, instance, status, attempts, started_at, finished_at,
	outputs, sensitive, error, cache_key, usage, log`

// Runs returns the runs of flow ("" for every flow), newest first, at most
// limit of them (limit <= 0 for all).
func (s *Store) Runs(flow string, limit int) ([]*Run, error) {
	return s.ListRuns(RunFilter{Flow: flow}, limit)
}

// ListRuns returns the runs f chooses, whole, newest first, at most limit
// of them (limit <= 0 for all).
func (s *Store) ListRuns(f RunFilter, limit int) ([]*Run, error) {
	if limit <= 0 {
		limit = math.MaxInt64 // no limit
	}
	where, args := f.where()
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	rows, err := s.db.QueryContext(s.db.bg(), q+` ORDER BY started_at DESC, id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	runs, err := s.scanRuns(rows)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	return runs, nil
}

// RunFlows returns the names of the flows that have top-level runs in
// namespace ns ("" for any), sorted (one walk of an index of the flows).
func (s *Store) RunFlows(ns string) ([]string, error) {
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT DISTINCT flow FROM runs
		WHERE parent_run = '' AND (CAST(? AS TEXT) = '' OR namespace = ?) ORDER BY flow`, ns, ns)
	if err != nil {
		return nil, fmt.Errorf("listing the flows of the runs: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return nil, fmt.Errorf("listing the flows of the runs: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// A RunFilter chooses runs for RunPage and ListRuns: each field that is
// set must equal the run's ("" for any).
type RunFilter struct {
	Flow, Namespace, Status string
	// TopLevel leaves out the runs that runs started (ParentRun set: the
	// runs of a step that uses a flow, of a tool call).
	TopLevel bool
}

// where is the filter's conditions and their arguments.
func (f RunFilter) where() ([]string, []any) {
	var where []string
	var args []any
	for _, c := range []struct{ col, v string }{{"flow", f.Flow}, {"namespace", f.Namespace}, {"status", f.Status}} {
		if c.v != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	if f.TopLevel {
		where = append(where, "parent_run = ''")
	}
	return where, args
}

// A RunKey is a run's place in the list of RunPage, newest first: by
// StartedAt, then by ID.
type RunKey struct {
	StartedAt time.Time
	ID        string
}

// runSummaryColumns are the columns of a run that RunPage reads.
const runSummaryColumns = `id, flow, namespace, status, started_at, finished_at, origin, parent_run, parent_step`

// RunPage returns at most limit runs that f chooses, newest first (by
// StartedAt, then by ID), after the key after (nil: from the newest), and
// the key to pass as after for the next page (nil when there is none).
// Whatever the filter, the query walks an index (migration 13) from after
// for limit+1 rows: a page costs the page, not the history. It reads what
// a list shows: ID, Flow, Namespace, Status, StartedAt, FinishedAt,
// Origin, ParentRun and ParentStep.
func (s *Store) RunPage(ctx context.Context, f RunFilter, after *RunKey, limit int) ([]*Run, *RunKey, error) {
	if limit <= 0 {
		return nil, nil, fmt.Errorf("listing runs: the page size %d is not positive", limit)
	}
	where, args := f.where()
	if after != nil {
		where = append(where, "(started_at, id) < (?, ?)")
		args = append(args, after.StartedAt.UnixNano(), after.ID)
	}
	q := `SELECT ` + runSummaryColumns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY started_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("listing runs: %w", err)
	}
	defer rows.Close()
	runs := make([]*Run, 0, limit+1)
	for rows.Next() {
		r := new(Run)
		var started, finished sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Flow, &r.Namespace, &r.Status, &started, &finished, &r.Origin, &r.ParentRun, &r.ParentStep); err != nil {
			return nil, nil, fmt.Errorf("listing runs: %w", err)
		}
		r.StartedAt, r.FinishedAt = fromNanos(started), fromNanos(finished)
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("listing runs: %w", err)
	}
	if len(runs) <= limit {
		return runs, nil, nil
	}
	runs = runs[:limit]
	last := runs[limit-1]
	return runs, &RunKey{StartedAt: last.StartedAt, ID: last.ID}, nil
}

// OpenApprovals returns the approvals that still wait for a decision
// (neither decided nor closed) of the runs runIDs, by run: one query, on
// the approvals' key, whatever the number of runs in the state.
func (s *Store) OpenApprovals(runIDs []string) (map[string][]*Approval, error) {
	out := map[string][]*Approval{}
	if len(runIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(runIDs))
	for i, id := range runIDs {
		args[i] = id
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(runIDs)), ", ")
	as, err := s.approvals(`WHERE run_id IN (`+marks+`) AND closed = 0 AND decided_at IS NULL`, args...)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		out[a.RunID] = append(out[a.RunID], a)
	}
	return out, nil
}

// LastEvent is the last event of a type recorded of a run, nil when there
// is none. It reads the run's events from the last one back to the one it
// finds: call it for an event that ends a run (run_finished), which is
// found at once.
func (s *Store) LastEvent(runID, typ string) (*Event, error) {
	e := &Event{RunID: runID}
	var data string
	err := s.db.QueryRow(`SELECT seq, type, data FROM events WHERE run_id = ? AND type = ? ORDER BY seq DESC LIMIT 1`,
		runID, typ).Scan(&e.Seq, &e.Type, &data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the events of run %s: %w", runID, err)
	}
	e.Data = json.RawMessage(data)
	return e, nil
}

// LastEventSeq is the number of the last event recorded of a run, 0 when
// there is none.
func (s *Store) LastEventSeq(runID string) (int64, error) {
	var seq sql.NullInt64
	if err := s.db.QueryRow(`SELECT max(seq) FROM events WHERE run_id = ?`, runID).Scan(&seq); err != nil {
		return 0, fmt.Errorf("reading the events of run %s: %w", runID, err)
	}
	return seq.Int64, nil
}

// Children returns the runs that run id started (ParentRun), oldest
// first.
func (s *Store) Children(id string) ([]*Run, error) {
	rows, err := s.db.QueryContext(s.db.bg(),
		`SELECT `+runColumns+` FROM runs WHERE parent_run = ? ORDER BY started_at, id`, id)
	if err != nil {
		return nil, fmt.Errorf("listing the runs of run %s: %w", id, err)
	}
	runs, err := s.scanRuns(rows)
	if err != nil {
		return nil, fmt.Errorf("listing the runs of run %s: %w", id, err)
	}
	return runs, nil
}

// Run returns the run whose ID is id or, failing that, starts with id when
// id has at least MinPrefix characters. Matching ignores case when id as
// typed matches nothing. The error wraps ErrRunNotFound when no run
// matches, and ErrAmbiguousRun when several do.
func (s *Store) Run(id string) (*Run, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: the run ID is empty", ErrRunNotFound)
	}
	runs, err := s.runsByID(id)
	if err == nil && len(runs) == 0 && strings.ToLower(id) != id {
		runs, err = s.runsByID(strings.ToLower(id))
	}
	if err != nil {
		return nil, fmt.Errorf("looking up run %s: %w", id, err)
	}
	switch {
	case len(runs) == 1:
		return runs[0], nil
	case len(runs) == 0 && len(id) < MinPrefix:
		return nil, fmt.Errorf("%w: no run has the ID %q (a prefix needs at least %d characters)", ErrRunNotFound, id, MinPrefix)
	case len(runs) == 0:
		return nil, fmt.Errorf("%w: no run ID is or starts with %q", ErrRunNotFound, id)
	}
	ids := make([]string, 0, maxAmbiguous)
	for _, r := range runs[:min(len(runs), maxAmbiguous)] {
		ids = append(ids, r.ID)
	}
	more := ""
	if len(runs) > maxAmbiguous {
		more = ", …"
	}
	return nil, fmt.Errorf("%w: %q matches runs %s%s; type more of the ID", ErrAmbiguousRun, id, strings.Join(ids, ", "), more)
}

// runsByID returns the run with ID id or, when there is none and id is long
// enough to be a prefix, up to maxAmbiguous+1 runs whose ID starts with id.
func (s *Store) runsByID(id string) ([]*Run, error) {
	ctx := s.db.bg()
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	runs, err := s.scanRuns(rows)
	if err != nil || len(runs) > 0 || len(id) < MinPrefix {
		return runs, err
	}
	// id <= ID < successor(id) is "ID starts with id", and uses the index.
	if hi, ok := successor(id); ok {
		rows, err = s.db.QueryContext(ctx,
			`SELECT `+runColumns+` FROM runs WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3`,
			id, hi, maxAmbiguous+1)
	} else {
		rows, err = s.db.QueryContext(ctx,
			`SELECT `+runColumns+` FROM runs WHERE id >= ?1 ORDER BY id LIMIT ?2`,
			id, maxAmbiguous+1)
	}
	if err != nil {
		return nil, err
	}
	return s.scanRuns(rows)
}

// startingWith asks query (a WHERE clause and its arguments) for the rows
// whose ID starts with prefix, as a range of IDs that uses the index.
func startingWith[T any](prefix string, query func(string, ...any) ([]T, error)) ([]T, error) {
	if hi, ok := successor(prefix); ok {
		return query(`WHERE id >= ? AND id < ?`, prefix, hi)
	}
	return query(`WHERE id >= ?`, prefix)
}

// successor is the least string greater than every string with prefix p,
// or false when there is none (p is all 0xff bytes).
func successor(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// LatestRun returns the newest run of flow in namespace ("" for
// DefaultNamespace) whose status is status ("" for any), or nil and no error
// when there is none.
func (s *Store) LatestRun(flow, ns, status string) (*Run, error) {
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT `+runColumns+` FROM runs
		WHERE (CAST(?1 AS TEXT) = '' OR flow = ?1) AND namespace = ?2 AND (CAST(?3 AS TEXT) = '' OR status = ?3)
		ORDER BY started_at DESC, id DESC LIMIT 1`, flow, namespace(ns), status)
	if err != nil {
		return nil, fmt.Errorf("looking up the latest run of %s: %w", flow, err)
	}
	runs, err := s.scanRuns(rows)
	if err != nil {
		return nil, fmt.Errorf("looking up the latest run of %s: %w", flow, err)
	}
	if len(runs) == 0 {
		return nil, nil
	}
	return runs[0], nil
}

// Steps returns the step results of the run with ID runID (exactly), in the
// order they started; steps that never started (StartedAt zero) come last.
// Ties are broken by finish time, then step name and instance.
func (s *Store) Steps(runID string) ([]*StepResult, error) {
	return s.StepResults(runID, StepQuery{})
}

// Events returns the events of a run with a sequence number above after,
// in order, at most limit of them (0: all).
func (s *Store) Events(runID string, after int64, limit int) ([]Event, error) {
	q := `SELECT seq, type, data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq`
	args := []any{runID, after}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the events of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		e := Event{RunID: runID}
		var data string
		if err := rows.Scan(&e.Seq, &e.Type, &data); err != nil {
			return nil, fmt.Errorf("reading the events of run %s: %w", runID, err)
		}
		e.Data = json.RawMessage(data)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the events of run %s: %w", runID, err)
	}
	return out, nil
}

// ScheduleFired is when a schedule of a flow last fired; false when it
// never did.
func (s *Store) ScheduleFired(flow, name string) (time.Time, bool, error) {
	var ns int64
	err := s.db.scanRow(s.db.bg(), `SELECT fired_at FROM schedules WHERE flow = ? AND name = ?`, []any{flow, name}, &ns)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, false, nil
	case err != nil:
		return time.Time{}, false, fmt.Errorf("reading schedule %s of flow %s: %w", name, flow, err)
	}
	return time.Unix(0, ns), true, nil
}

// CacheGet returns the outputs stored under the cache key key, and whether
// there are any. It sees committed entries only (see Flush). An entry
// evicted by another key with the same 64-bit hash (see keyHash) is a miss.
// While a shared database is away it waits for it, as WaitWritable does:
// a run reads the cache before it runs a step.
func (s *Store) CacheGet(key string) (json.RawMessage, bool, error) {
	ctx := context.Background()
	out, found, err := s.lookups.get(key, func(query func() error) error { return s.waitRead(ctx, query) })
	if err != nil {
		return nil, false, fmt.Errorf("reading the cache: %w", err)
	}
	if !found {
		return nil, false, nil
	}
	if out, err = loadBlob(s.w.dir, out); err != nil {
		return nil, false, nil // a blob that is gone is a miss
	}
	return out, true, nil
}

// waitRead runs a read for a run, trying it again while it fails
// transiently and, while a shared database is away, waiting for it (up to
// the store's wait).
func (s *Store) waitRead(ctx context.Context, fn func() error) error {
	for n := 0; ; n++ {
		err := fn()
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		if s.avail == nil {
			if n+1 >= readTries {
				return err
			}
		} else if n > 0 {
			s.avail.failed(err)
			if werr := s.avail.wait(ctx); werr != nil {
				return werr
			}
		}
		sleep(ctx, backoff(n))
	}
}

// Memory returns the stored memory values of flow in namespace ("" for
// DefaultNamespace), by memory name. The map is empty, not nil, when
// nothing is stored.
func (s *Store) Memory(flow, ns string) (map[string]json.RawMessage, error) {
	ns = namespace(ns)
	var values map[string]json.RawMessage
	ctx := context.Background()
	err := s.waitRead(ctx, func() error {
		var err error
		values, err = readMemory(s.db.DB.QueryContext(ctx, s.db.b.bind(selectMemorySQL), flow, ns))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the memory of flow %s (namespace %s): %w", flow, ns, err)
	}
	return values, nil
}

// readMemory reads and closes rows of name and value.
func readMemory(rows *sql.Rows, err error) (map[string]json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	values := make(map[string]json.RawMessage)
	for rows.Next() {
		var name string
		var value []byte
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		values[name] = value
	}
	return values, rows.Err()
}

// scanRuns reads and closes rows of runColumns.
func (s *Store) scanRuns(rows *sql.Rows) ([]*Run, error) {
	defer rows.Close()
	var runs []*Run
	for rows.Next() {
		r := new(Run)
		var started, finished sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Flow, &r.Namespace, &r.FlowFile, &r.SourceHash,
			(*[]byte)(&r.Inputs), &r.Status, &started, &finished,
			(*[]byte)(&r.Outputs), &r.Error, (*[]byte)(&r.Usage), (*[]byte)(&r.FailedOutputs), &r.Origin, (*[]byte)(&r.Fingerprints),
			&r.ParentRun, &r.ParentStep, &r.WaitingFor); err != nil {
			return nil, err
		}
		r.StartedAt, r.FinishedAt = fromNanos(started), fromNanos(finished)
		var err error
		if r.Inputs, err = loadBlob(s.w.dir, r.Inputs); err != nil {
			return nil, fmt.Errorf("the inputs of run %s: %w", r.ID, err)
		}
		if r.Outputs, err = loadBlob(s.w.dir, r.Outputs); err != nil {
			return nil, fmt.Errorf("the outputs of run %s: %w", r.ID, err)
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}
