package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// A Pattern is a flow that worked, kept for flowctl think to reuse: the
// intent it was made for, the flow's source and the block files it uses.
// It is recorded when think writes a flow that validates and when a
// proposal is accepted; a project has one pattern per flow file, replaced
// when that file is accepted again. How its flow has done since (runs of
// the flow, flowctl test) ranks it for think's search.
type Pattern struct {
	ID   string
	Name string // unique among the patterns: the flow's name, numbered when taken
	// Intent is what the flow was made for, in the user's words.
	Intent   string
	Flow     string // the flow's name
	FlowFile string // relative to the project's directory
	Source   string
	Blocks   []PatternBlock
	// Origin is what recorded it: PatternThink, PatternEdit or
	// PatternExplain.
	Origin  string
	Created time.Time
	Updated time.Time // when it was last recorded; "since" counts from here
	// Used is how many times think used it as a worked example.
	Used int
	// TestPasses and TestFailures count the flowctl test runs of the flow
	// file since Updated that passed and failed.
	TestPasses, TestFailures int
	// RunsOK and RunsFailed count the top-level runs of the flow since
	// Updated that finished ok and that failed (read from the runs).
	RunsOK, RunsFailed int
}

// The origins of a pattern: think wrote its flow, or a proposal of think
// --edit or of explain (a fix of a failed run) was accepted.
const (
	PatternThink   = "think"
	PatternEdit    = "edit"
	PatternExplain = "explain"
)

// PatternBlock is a block file a pattern's flow uses: its path relative to
// the project's directory and its source.
type PatternBlock struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Source string `json:"source"`
}

// ErrPatternNotFound is wrapped by the error of an ID or name that names no
// pattern.
var ErrPatternNotFound = errors.New("no such pattern")

// RecordPattern records p, replacing the pattern of the same flow file (whose
// ID and name it keeps, and whose intent it keeps when p has none); the
// counts since start again. It sets p's ID, Name, Created and Updated.
func (s *Store) RecordPattern(p *Pattern) error {
	blocks, err := json.Marshal(p.Blocks)
	if err != nil {
		return err
	}
	now := time.Now()
	if p.Updated.IsZero() {
		p.Updated = now
	}
	_, err = s.w.do(func(ctx context.Context, _ *writerStmts) error {
		c := s.w.conn
		var id, name, intent string
		var created int64
		err := c.QueryRowContext(ctx, c.b.bind(`SELECT id, name, intent, created_at FROM patterns WHERE flow_file = ?`), p.FlowFile).
			Scan(&id, &name, &intent, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			id, created = NewRunID(), p.Updated.UnixNano()
			if name, err = freePatternName(ctx, c, p.Flow); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if p.Intent == "" {
			p.Intent = intent
		}
		_, err = c.ExecContext(ctx, c.b.bind(`
INSERT INTO patterns (id, name, intent, flow, flow_file, source, blocks, origin, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (flow_file) DO UPDATE SET intent = excluded.intent, flow = excluded.flow, source = excluded.source,
	blocks = excluded.blocks, origin = excluded.origin, updated_at = excluded.updated_at, test_passes = 0, test_failures = 0`),
			id, name, p.Intent, p.Flow, p.FlowFile, p.Source, string(blocks), p.Origin, created, p.Updated.UnixNano())
		if err == nil {
			p.ID, p.Name, p.Created = id, name, time.Unix(0, created)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the pattern of %s: %w", p.FlowFile, err)
	}
	return nil
}

// freePatternName is flow, or flow_2, flow_3 … when a pattern has it.
func freePatternName(ctx context.Context, c *sqlConn, flow string) (string, error) {
	for n := 1; ; n++ {
		name := flow
		if n > 1 {
			name = fmt.Sprintf("%s_%d", flow, n)
		}
		var one int
		err := c.QueryRowContext(ctx, c.b.bind(`SELECT 1 FROM patterns WHERE name = ?`), name).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
	}
}

// NotePatternTest counts a flowctl test run of flowFile (relative to the
// project's directory) for its pattern, if it has one.
func (s *Store) NotePatternTest(flowFile string, passed bool) error {
	col := "test_failures"
	if passed {
		col = "test_passes"
	}
	return s.patternWrite(`UPDATE patterns SET `+col+` = `+col+` + 1 WHERE flow_file = ?`, flowFile)
}

// NotePatternUsed counts a use of the pattern as a worked example.
func (s *Store) NotePatternUsed(id string) error {
	return s.patternWrite(`UPDATE patterns SET used = used + 1 WHERE id = ?`, id)
}

// ForgetPattern removes the pattern whose ID is id.
func (s *Store) ForgetPattern(id string) error {
	var n int64
	err := s.patternExec(func(ctx context.Context, c *sqlConn) error {
		res, err := c.ExecContext(ctx, c.b.bind(`DELETE FROM patterns WHERE id = ?`), id)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: no pattern has the ID %q", ErrPatternNotFound, id)
	}
	return err
}

func (s *Store) patternWrite(query string, args ...any) error {
	return s.patternExec(func(ctx context.Context, c *sqlConn) error {
		_, err := c.ExecContext(ctx, c.b.bind(query), args...)
		return err
	})
}

// patternExec runs fn on the writer's connection, in its turn with the
// other writes.
func (s *Store) patternExec(fn func(ctx context.Context, c *sqlConn) error) error {
	_, err := s.w.do(func(ctx context.Context, _ *writerStmts) error { return fn(ctx, s.w.conn) })
	if err != nil {
		return fmt.Errorf("updating patterns: %w", err)
	}
	return nil
}

// Patterns returns every pattern, newest first, with the runs of its flow
// since it was recorded.
func (s *Store) Patterns() ([]*Pattern, error) { return s.patterns(``) }

// Pattern returns the pattern whose ID or name is id, or the only one whose
// ID starts with it (MinPrefix characters at least).
func (s *Store) Pattern(id string) (*Pattern, error) {
	ps, err := byIDOrPrefix(s.patterns, id, `WHERE id = ? OR name = ?`, id, id)
	return only(ps, err, id, ErrPatternNotFound, "no pattern is named %q or has an ID that is or starts with it", "patterns")
}

func (s *Store) patterns(where string, args ...any) ([]*Pattern, error) {
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT id, name, intent, flow, flow_file, source, blocks, origin,
		created_at, updated_at, used, test_passes, test_failures FROM patterns `+where+` ORDER BY updated_at DESC, id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading patterns: %w", err)
	}
	defer rows.Close()
	var out []*Pattern
	for rows.Next() {
		p := new(Pattern)
		var created, updated int64
		var blocks string
		if err := rows.Scan(&p.ID, &p.Name, &p.Intent, &p.Flow, &p.FlowFile, &p.Source, &blocks, &p.Origin,
			&created, &updated, &p.Used, &p.TestPasses, &p.TestFailures); err != nil {
			return nil, fmt.Errorf("reading patterns: %w", err)
		}
		p.Created, p.Updated = time.Unix(0, created), time.Unix(0, updated)
		if err := json.Unmarshal([]byte(blocks), &p.Blocks); err != nil {
			return nil, fmt.Errorf("reading the blocks of pattern %s: %w", p.ID, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading patterns: %w", err)
	}
	rows.Close()
	for _, p := range out {
		if err := s.patternRuns(p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// patternRuns counts the top-level runs of p's flow since p was recorded.
func (s *Store) patternRuns(p *Pattern) error {
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT status, count(*) FROM runs
		WHERE flow = ? AND parent_run = '' AND started_at >= ? GROUP BY status`, p.Flow, p.Updated.UnixNano())
	if err != nil {
		return fmt.Errorf("reading the runs of pattern %s: %w", p.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return fmt.Errorf("reading the runs of pattern %s: %w", p.Name, err)
		}
		switch status {
		case "ok":
			p.RunsOK += n
		case "failed":
			p.RunsFailed += n
		}
	}
	return rows.Err()
}
