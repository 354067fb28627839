package state

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PruneOptions choose the runs Prune deletes: the finished runs (never a
// running or waiting one) that started before Before, beyond the Keep
// newest of their flow, of flow Flow. A zero Before and Keep choose none:
// say at least one.
type PruneOptions struct {
	Before time.Time // runs that started before; zero: any
	Keep   int       // the newest runs of each flow kept whatever their age; 0: none
	Flow   string    // only this flow's runs; "": every flow's
	DryRun bool      // count what would be deleted, and delete nothing
}

// A PruneResult is what Prune deleted, or would delete.
type PruneResult struct {
	Runs      int   // top-level runs, with the runs their steps started
	Steps     int   // step results
	Events    int   // events
	Approvals int   // approval requests and decisions
	LogBytes  int64 // what the steps printed
	Blobs     int   // blob files (values over BlobThreshold) no row refers to any more
	BlobBytes int64
}

// pruneChunk is how many runs one transaction of Prune deletes.
const pruneChunk = 200

// blobGrace is how old an unreferenced blob file must be for Prune to
// delete it: a value's file is written before the row that refers to it
// is committed (and a file reused is touched), so a younger file may be
// about to be referred to.
const blobGrace = time.Hour

// Prune deletes runs the options choose, with their step results,
// events, logs and approvals and the runs their steps started, then the
// blob files no run or cache entry refers to any more. A running or
// waiting run is never deleted, nor one that started a run still running
// or waiting. flowctl runs prune calls it, and flowctl serve with
// --retention, hourly.
func (s *Store) Prune(ctx context.Context, o PruneOptions) (*PruneResult, error) {
	if o.Before.IsZero() && o.Keep <= 0 {
		return nil, fmt.Errorf("pruning runs: say which: those older than a time, or beyond a number kept")
	}
	victims, err := s.pruneVictims(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("pruning runs: %w", err)
	}
	res := &PruneResult{Runs: len(victims)}
	gone := make(map[string]bool, len(victims))
	for rest := victims; len(rest) > 0; {
		n := min(len(rest), pruneChunk)
		chunk := rest[:n]
		rest = rest[n:]
		if err := s.pruneChunk(ctx, chunk, o.DryRun, res); err != nil {
			return res, fmt.Errorf("pruning runs: %w", err)
		}
		for _, id := range chunk {
			gone[id] = true
		}
	}
	if s.w.dir != "" {
		if err := s.pruneBlobs(ctx, gone, o.DryRun, res); err != nil {
			return res, fmt.Errorf("pruning blobs: %w", err)
		}
	}
	return res, nil
}

// A prunable is a top-level run as pruneVictims sees it.
type prunable struct {
	id, flow, status string
	started          int64
}

// pruneVictims returns the runs to delete: the top-level runs chosen and,
// after them, every run they started (sub-flows, tool calls).
func (s *Store) pruneVictims(ctx context.Context, o PruneOptions) ([]string, error) {
	q := `SELECT id, flow, status, coalesce(started_at, 0) FROM runs WHERE parent_run = ''`
	args := []any{}
	if o.Flow != "" {
		q += ` AND flow = ?`
		args = append(args, o.Flow)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY flow, started_at DESC, id DESC`, args...)
	if err != nil {
		return nil, err
	}
	var runs []prunable
	for rows.Next() {
		var p prunable
		if err := rows.Scan(&p.id, &p.flow, &p.status, &p.started); err != nil {
			rows.Close()
			return nil, err
		}
		runs = append(runs, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var chosen []string
	seen := map[string]int{} // runs of each flow seen, newest first
	for _, p := range runs {
		seen[p.flow]++
		switch {
		case p.status == "running" || p.status == "waiting" || p.status == StatusQueued:
		case o.Keep > 0 && seen[p.flow] <= o.Keep:
		case !o.Before.IsZero() && p.started >= o.Before.UnixNano():
		default:
			chosen = append(chosen, p.id)
		}
	}
	// The runs they started, level by level; a tree with a live run
	// stays whole.
	var out []string
	for _, id := range chosen {
		tree, live, err := s.runTree(ctx, id)
		if err != nil {
			return nil, err
		}
		if !live {
			out = append(out, tree...)
		}
	}
	return out, nil
}

// runTree returns a run and the runs it started, at any depth, and
// whether one of those is running or waiting.
func (s *Store) runTree(ctx context.Context, id string) ([]string, bool, error) {
	tree, level := []string{id}, []string{id}
	for len(level) > 0 && len(tree) < 1<<20 {
		var next []string
		for _, parent := range level {
			rows, err := s.db.QueryContext(ctx, `SELECT id, status FROM runs WHERE parent_run = ?`, parent)
			if err != nil {
				return nil, false, err
			}
			for rows.Next() {
				var kid, status string
				if err := rows.Scan(&kid, &status); err != nil {
					rows.Close()
					return nil, false, err
				}
				if status == "running" || status == "waiting" || status == StatusQueued {
					rows.Close()
					return nil, true, nil
				}
				next = append(next, kid)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, false, err
			}
		}
		tree = append(tree, next...)
		level = next
	}
	return tree, false, nil
}

// pruneChunk counts, and unless dryRun deletes, a chunk of runs and what
// is theirs, in one transaction.
func (s *Store) pruneChunk(ctx context.Context, ids []string, dryRun bool, res *PruneResult) error {
	in := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")"
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		var steps, events, approvals int
		var logs int64
		for _, c := range []struct {
			q    string
			dest []any
		}{
			{`SELECT count(*), coalesce(sum(length(log)), 0) FROM steps WHERE run_id IN ` + in, []any{&steps, &logs}},
			{`SELECT count(*) FROM events WHERE run_id IN ` + in, []any{&events}},
			{`SELECT count(*) FROM approvals WHERE run_id IN ` + in, []any{&approvals}},
		} {
			if err := st.conn.QueryRowContext(ctx, c.q, args...).Scan(c.dest...); err != nil {
				return err
			}
		}
		if !dryRun {
			// Step results, events and approvals go with their run (ON
			// DELETE CASCADE); the Idempotency-Keys that named it too, and
			// the places of limits it took (limits.go), but a rate
			// limit's whose period has not ended.
			for _, q := range []string{
				`DELETE FROM idempotency_keys WHERE run_id IN ` + in,
				`DELETE FROM limit_slots WHERE run_id IN ` + in + ` AND (kind = '` + slotConcurrency + `' OR free_at <= ` + strconv.FormatInt(time.Now().UnixNano(), 10) + `)`,
				`DELETE FROM runs WHERE id IN ` + in + ` AND status NOT IN ('running', 'waiting', '` + StatusQueued + `')`,
			} {
				if _, err := st.conn.ExecContext(ctx, q, args...); err != nil {
					return err
				}
			}
			// The versions of flows no run names any more go with the
			// last run that named them.
			if _, err := st.conn.ExecContext(ctx, `DELETE FROM flow_versions
				WHERE NOT EXISTS (SELECT 1 FROM run_versions WHERE run_versions.hash = flow_versions.hash)`); err != nil {
				return err
			}
		}
		res.Steps += steps
		res.Events += events
		res.Approvals += approvals
		res.LogBytes += logs
		return nil
	})
	return err
}

// pruneBlobs deletes (or with dryRun counts) the blob files that no row
// refers to but those of the runs gone (deleted, or with dryRun to be).
func (s *Store) pruneBlobs(ctx context.Context, gone map[string]bool, dryRun bool, res *PruneResult) error {
	kept := map[string]bool{}
	for _, q := range []string{
		`SELECT id, inputs FROM runs WHERE inputs LIKE 'blob:%'`,
		`SELECT id, outputs FROM runs WHERE outputs LIKE 'blob:%'`,
		`SELECT run_id, outputs FROM steps WHERE outputs LIKE 'blob:%'`,
		`SELECT '', outputs FROM cache WHERE outputs LIKE 'blob:%'`,
	} {
		rows, err := s.db.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		for rows.Next() {
			var run, ref string
			if err := rows.Scan(&run, &ref); err != nil {
				rows.Close()
				return err
			}
			if !gone[run] {
				kept[ref] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	root := filepath.Join(s.w.dir, "blobs")
	cutoff := time.Now().Add(-blobGrace)
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") || kept[blobPrefix+"sha256-"+d.Name()] {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.ModTime().After(cutoff) {
			return nil
		}
		res.Blobs++
		res.BlobBytes += info.Size()
		files = append(files, path)
		return nil
	})
	if err != nil || dryRun {
		return err
	}
	for _, p := range files {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
