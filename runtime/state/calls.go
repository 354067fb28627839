package state

import (
	"encoding/json"
	"fmt"
)

// A Call is one round trip of a step of a run with a model server
// (docs/llm.md, "Call traces"): Seq numbers it in its run, from 1, and
// Data is its blocks.ModelCall, redacted, as JSON.
type Call struct {
	RunID    string
	Seq      int64
	Step     string
	Instance string
	Data     json.RawMessage
}

// RecordCall hands a model call of a run over to the writer, as
// RecordStep does; a call with the same run and number replaces it. Data
// is not copied and must not be modified afterwards.
func (s *Store) RecordCall(c Call) {
	s.w.push(&op{kind: opCall, call: &c})
}

// Calls returns the model calls of run runID after number after, in
// order: at most limit (0: all), those of step when it is not "".
func (s *Store) Calls(runID, step string, after int64, limit int) ([]Call, error) {
	q := `SELECT seq, step, instance, data FROM calls WHERE run_id = ? AND seq > ?`
	args := []any{runID, after}
	if step != "" {
		q += ` AND step = ?`
		args = append(args, step)
	}
	q += ` ORDER BY seq`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the model calls of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Call
	for rows.Next() {
		c := Call{RunID: runID}
		var data string
		if err := rows.Scan(&c.Seq, &c.Step, &c.Instance, &data); err != nil {
			return nil, fmt.Errorf("reading the model calls of run %s: %w", runID, err)
		}
		c.Data = json.RawMessage(data)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the model calls of run %s: %w", runID, err)
	}
	return out, nil
}

// LastCall is the number of the last model call recorded of run runID;
// 0 for none.
func (s *Store) LastCall(runID string) (int64, error) {
	var n int64
	if err := s.db.QueryRow(`SELECT coalesce(max(seq), 0) FROM calls WHERE run_id = ?`, runID).Scan(&n); err != nil {
		return 0, fmt.Errorf("reading the model calls of run %s: %w", runID, err)
	}
	return n, nil
}
