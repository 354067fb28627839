package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/runtime/evaluate/result"
)

// The results of evaluations (flowctl eval, docs/evals.md): each with its
// eval, file, flow, start and, once it finished, its summary; and every
// case of it, written as the cases finish.

// An EvalResult is an evaluation's results as kept: Summary is nil while
// it runs (or when it was interrupted).
type EvalResult struct {
	ID        string
	Eval      string
	File      string
	Flow      string
	StartedAt time.Time
	Summary   *result.Summary
}

// Summarized is the results' summary; while there is none, one of what
// is known at the start.
func (r *EvalResult) Summarized() result.Summary {
	if r.Summary != nil {
		return *r.Summary
	}
	return result.Summary{ID: r.ID, Eval: r.Eval, File: r.File, Flow: r.Flow, StartedAt: r.StartedAt}
}

// ErrEvalNotFound is wrapped by the error of an ID that names no results.
var ErrEvalNotFound = errors.New("no such evaluation results")

// evalBatch is how many cases an EvalWriter holds before it hands them to
// the writer, in one transaction: what bounds its memory.
const evalBatch = 256

// An EvalWriter is a result.Sink that keeps an evaluation's results in
// the state: its cases as they come, evalBatch at a time, and the summary
// at the end.
type EvalWriter struct {
	s       *Store
	id      string
	mu      sync.Mutex
	pending []result.Case
}

var _ result.Sink = (*EvalWriter)(nil)

// NewEvalResult records the start of an evaluation and returns the sink
// of its results. Its ID is r.ID, given one when it has none; a zero
// StartedAt is now.
func (s *Store) NewEvalResult(r *EvalResult) (*EvalWriter, error) {
	if r.ID == "" {
		r.ID = NewRunID()
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `INSERT INTO eval_results (id, eval, file, flow, started_at) VALUES (?, ?, ?, ?, ?)`,
			r.ID, r.Eval, r.File, r.Flow, r.StartedAt.UnixNano())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recording the results of eval %s: %w", r.Eval, err)
	}
	return &EvalWriter{s: s, id: r.ID}, nil
}

// ID is the results' ID.
func (w *EvalWriter) ID() string { return w.id }

// Case implements result.Sink: the case is written with the next
// evalBatch (a case of the same variant, row and repetition replaces it).
func (w *EvalWriter) Case(c result.Case) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, c)
	if len(w.pending) < evalBatch {
		return nil
	}
	return w.flush()
}

// flush writes the cases held.
func (w *EvalWriter) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	cases := w.pending
	_, err := w.s.w.do(func(ctx context.Context, st *writerStmts) error {
		stmt, err := st.conn.PrepareContext(ctx, `INSERT INTO eval_cases (result_id, variant, row_index, repetition, inputs, outputs,
	error, scores, run_id, tokens, cost_usd, duration, cached)
VALUES (?, ?, ?, ?, CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (result_id, variant, row_index, repetition) DO UPDATE SET inputs = excluded.inputs,
	outputs = excluded.outputs, error = excluded.error, scores = excluded.scores, run_id = excluded.run_id,
	tokens = excluded.tokens, cost_usd = excluded.cost_usd, duration = excluded.duration, cached = excluded.cached`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, c := range cases {
			scores, err := json.Marshal(c.Scores)
			if err != nil {
				return err
			}
			cached := 0
			if c.Cached {
				cached = 1
			}
			if _, err := stmt.ExecContext(ctx, w.id, c.Variant, c.Row, c.Repeat, text(c.Inputs), text(c.Outputs),
				c.Error, string(scores), c.RunID, c.Tokens, c.CostUSD, int64(c.Duration), cached); err != nil {
				return fmt.Errorf("case %d of variant %s: %w", c.Row, c.Variant, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording the cases of evaluation %s: %w", w.id, err)
	}
	clear(w.pending)
	w.pending = w.pending[:0]
	return nil
}

// Summary implements result.Sink: the cases held are written, then the
// summary (its ID set to the results').
func (w *EvalWriter) Summary(sum result.Summary) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.flush(); err != nil {
		return err
	}
	sum.ID = w.id
	data, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	_, err = w.s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `UPDATE eval_results SET summary = CAST(? AS TEXT) WHERE id = ?`, data, w.id)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the summary of evaluation %s: %w", w.id, err)
	}
	return nil
}

// evalResultsQuery selects the results where says, newest first (where
// may end with its own ORDER BY and LIMIT).
func evalResultsQuery(where string) string {
	q := `SELECT id, eval, file, flow, started_at, summary FROM eval_results ` + where
	if !strings.Contains(where, "ORDER BY") {
		q += ` ORDER BY started_at DESC, id DESC`
	}
	return q
}

func (s *Store) evalResults(where string, args ...any) ([]*EvalResult, error) {
	rows, err := s.db.QueryContext(s.db.bg(), evalResultsQuery(where), args...)
	if err != nil {
		return nil, fmt.Errorf("reading evaluation results: %w", err)
	}
	defer rows.Close()
	var out []*EvalResult
	for rows.Next() {
		r := new(EvalResult)
		var started int64
		var summary sql.NullString
		if err := rows.Scan(&r.ID, &r.Eval, &r.File, &r.Flow, &started, &summary); err != nil {
			return nil, fmt.Errorf("reading evaluation results: %w", err)
		}
		r.StartedAt = time.Unix(0, started)
		if summary.Valid {
			r.Summary = new(result.Summary)
			if err := json.Unmarshal([]byte(summary.String), r.Summary); err != nil {
				return nil, fmt.Errorf("reading the summary of evaluation %s: %w", r.ID, err)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading evaluation results: %w", err)
	}
	return out, nil
}

// EvalResults returns the results of eval (of every eval when it is ""),
// newest first: at most limit of them (0: all).
func (s *Store) EvalResults(eval string, limit int) ([]*EvalResult, error) {
	where, args := `WHERE (CAST(? AS TEXT) = '' OR eval = ?)`, []any{eval, eval}
	if limit > 0 {
		where, args = where+` ORDER BY started_at DESC, id DESC LIMIT ?`, append(args, limit)
	}
	return s.evalResults(where, args...)
}

// EvalResult returns the results whose ID is id, or the only ones whose
// ID starts with it (MinPrefix characters at least).
func (s *Store) EvalResult(id string) (*EvalResult, error) {
	found, err := byIDOrPrefix(s.evalResults, id, `WHERE id = ?`, id)
	if len(id) >= MinPrefix {
		id = strings.ToLower(id)
	}
	return only(found, err, id, ErrEvalNotFound, "no evaluation results' ID is or starts with %q", "evaluation results")
}

// LatestEval returns the newest finished results of eval, or nil and no
// error when there are none.
func (s *Store) LatestEval(eval string) (*EvalResult, error) {
	found, err := s.evalResults(`WHERE eval = ? AND summary IS NOT NULL`, eval)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	return found[0], nil
}

// LatestEvals returns the newest finished results of each eval, by eval.
func (s *Store) LatestEvals() ([]*EvalResult, error) {
	found, err := s.evalResults(`r WHERE summary IS NOT NULL AND NOT EXISTS (SELECT 1 FROM eval_results n
		WHERE n.eval = r.eval AND n.summary IS NOT NULL AND (n.started_at > r.started_at OR n.started_at = r.started_at AND n.id > r.id))`)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(found, func(a, b *EvalResult) int { return strings.Compare(a.Eval, b.Eval) })
	return found, nil
}

// EvalCasesOf is EvalCases of the results id, for fn given later.
func (s *Store) EvalCasesOf(id string) func(fn func(result.Case) error) error {
	return func(fn func(result.Case) error) error { return s.EvalCases(id, fn) }
}

// EvalCases calls fn with each case of the results id, in the order of
// their variant, row and repetition, reading them as it goes (memory does
// not grow with the cases). It stops at fn's first error and returns it.
func (s *Store) EvalCases(id string, fn func(result.Case) error) error {
	var eval string
	if err := s.db.QueryRowContext(s.db.bg(), `SELECT eval FROM eval_results WHERE id = ?`, id).Scan(&eval); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %q", ErrEvalNotFound, id)
		}
		return fmt.Errorf("reading the cases of evaluation %s: %w", id, err)
	}
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT variant, row_index, repetition, inputs, outputs, error, scores,
		run_id, tokens, cost_usd, duration, cached FROM eval_cases WHERE result_id = ? ORDER BY variant, row_index, repetition`, id)
	if err != nil {
		return fmt.Errorf("reading the cases of evaluation %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		c := result.Case{Eval: eval}
		var inputs, outputs sql.NullString
		var scores string
		var dur, cached int64
		if err := rows.Scan(&c.Variant, &c.Row, &c.Repeat, &inputs, &outputs, &c.Error, &scores,
			&c.RunID, &c.Tokens, &c.CostUSD, &dur, &cached); err != nil {
			return fmt.Errorf("reading the cases of evaluation %s: %w", id, err)
		}
		if inputs.Valid {
			c.Inputs = json.RawMessage(inputs.String)
		}
		if outputs.Valid {
			c.Outputs = json.RawMessage(outputs.String)
		}
		if err := json.Unmarshal([]byte(scores), &c.Scores); err != nil {
			return fmt.Errorf("reading the scores of a case of evaluation %s: %w", id, err)
		}
		c.Duration, c.Cached = time.Duration(dur), cached != 0
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the cases of evaluation %s: %w", id, err)
	}
	return nil
}
