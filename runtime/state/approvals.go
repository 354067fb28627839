package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// An Approval is what an instance of an approval step waits for: a
// person's decision, asked with Message at RequestedAt, until Deadline
// (zero for none). DecidedAt is zero until someone decides. Closed means
// the step has taken the decision (or its deadline passed): a later
// resumption of the run that runs the step again asks anew.
type Approval struct {
	RunID, Step, Instance string
	Message               string
	RequestedAt, Deadline time.Time
	DecidedAt             time.Time
	Approved              bool
	Comment, By           string
	Closed                bool
	// Fields are the typed input fields the step asks the person
	// deciding to fill in (a JSON array, nil for none), and Inputs the
	// values given with the decision (a JSON object, nil for none).
	Fields, Inputs json.RawMessage
}

// Decided reports whether someone decided.
func (a *Approval) Decided() bool { return !a.DecidedAt.IsZero() }

// ErrNotWaiting is returned by DecideApproval when the step instance does
// not wait for a decision: it never asked, someone decided already, its
// deadline passed, or its step has finished.
var ErrNotWaiting = errors.New("the step is not waiting for a decision")

// ErrNotResumable is returned by ReopenRun for a run that is running, or
// finished ok.
var ErrNotResumable = errors.New("the run cannot be resumed")

// ReopenRun marks a run that ended waiting, failed, cancelled or
// interrupted as running again, owned by this store's process (as
// CreateRun does), with the step fingerprints of the program that resumes
// it (kept as they were when nil), so that it can be resumed; FinishRun
// records its new end. A run of the temporal engine becomes this
// process's (its origin is cleared). It fails with ErrNotResumable when
// the run is running or ok, and when another process holds it.
func (s *Store) ReopenRun(id string, fingerprints json.RawMessage) error {
	claimed, err := s.owner.claim(id)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotResumable, err)
	}
	_, err = s.w.do(func(ctx context.Context, st *writerStmts) error {
		res, err := st.reopenRun.ExecContext(ctx, text(fingerprints), s.owner.id(), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotResumable
		}
		s.owner.held(id)
		return nil
	})
	if err != nil {
		if claimed {
			s.owner.release(id)
		}
		return fmt.Errorf("resuming run %s: %w", id, err)
	}
	return nil
}

// Interrupt records a run that ended cancelled because its process was
// stopping (not because someone cancelled it) as interrupted, so that it
// can be taken up again.
func (s *Store) Interrupt(id string) error {
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.interruptRun.ExecContext(ctx, StatusInterrupted, stoppedError, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording run %s as interrupted: %w", id, err)
	}
	return nil
}

// stoppedError is the error recorded by Interrupt.
const stoppedError = "the process running it stopped before the run finished; the steps it recorded are kept"

// RequestApproval records that a step instance waits for a decision,
// replacing an earlier request of the same instance (decided or not), and
// returns once committed.
func (s *Store) RequestApproval(a *Approval) error {
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.requestApproval.ExecContext(ctx, a.RunID, a.Step, a.Instance, a.Message,
			a.RequestedAt.UnixNano(), nanos(a.Deadline), text(a.Fields))
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the approval step %s of run %s: %w", a.Step, a.RunID, err)
	}
	return nil
}

// DecideApproval records a decision of a step instance that waits for
// one, and returns the approval as decided; ErrNotWaiting when it does
// not wait.
func (s *Store) DecideApproval(runID, step, instance string, approved bool, comment, by string) (*Approval, error) {
	return s.DecideApprovalWith(runID, step, instance, approved, comment, by, nil)
}

// DecideApprovalWith is DecideApproval with the values of the step's
// input fields (a JSON object, checked by the caller; nil for none).
func (s *Store) DecideApprovalWith(runID, step, instance string, approved bool, comment, by string, inputs json.RawMessage) (*Approval, error) {
	now := time.Now()
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		res, err := st.decideApproval.ExecContext(ctx, now.UnixNano(), flag(approved), comment, by, text(inputs), runID, step, instance, now.UnixNano())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotWaiting
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("deciding step %s of run %s: %w", step, runID, err)
	}
	return s.Approval(runID, step, instance)
}

// CloseApproval records that a step instance has taken its decision (or
// that its deadline passed), and returns once committed.
func (s *Store) CloseApproval(runID, step, instance string) error {
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.closeApproval.ExecContext(ctx, runID, step, instance)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the decision of step %s of run %s: %w", step, runID, err)
	}
	return nil
}

// Approval returns the approval of a step instance, or nil when it never
// asked.
func (s *Store) Approval(runID, step, instance string) (*Approval, error) {
	as, err := s.approvals(`WHERE run_id = ? AND step = ? AND instance = ?`, runID, step, instance)
	if err != nil || len(as) == 0 {
		return nil, err
	}
	return as[0], nil
}

// Approvals returns the approvals of a run, by step and instance; with an
// empty runID, the open approvals of every run.
func (s *Store) Approvals(runID string) ([]*Approval, error) {
	if runID == "" {
		return s.approvals(`WHERE closed = 0`)
	}
	return s.approvals(`WHERE run_id = ?`, runID)
}

func (s *Store) approvals(where string, args ...any) ([]*Approval, error) {
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT run_id, step, instance, message, requested_at,
		deadline, decided_at, approved, comment, decided_by, closed, fields, inputs FROM approvals `+where+` ORDER BY run_id, step, instance`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading approvals: %w", err)
	}
	defer rows.Close()
	var out []*Approval
	for rows.Next() {
		a := new(Approval)
		var requested int64
		var deadline, decided sql.NullInt64
		var fields, inputs sql.NullString
		if err := rows.Scan(&a.RunID, &a.Step, &a.Instance, &a.Message, &requested, &deadline, &decided,
			&a.Approved, &a.Comment, &a.By, &a.Closed, &fields, &inputs); err != nil {
			return nil, fmt.Errorf("reading approvals: %w", err)
		}
		a.RequestedAt, a.Deadline, a.DecidedAt = time.Unix(0, requested), fromNanos(deadline), fromNanos(decided)
		if fields.Valid {
			a.Fields = json.RawMessage(fields.String)
		}
		if inputs.Valid {
			a.Inputs = json.RawMessage(inputs.String)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading approvals: %w", err)
	}
	return out, nil
}

// A run of the temporal engine that a process reopens is that process's
// from then on: not a run on Temporal any more.
const reopenRunSQL = `
UPDATE runs SET status = 'running', finished_at = NULL, error = '',
	origin = CASE WHEN origin = '` + OriginTemporal + `' THEN '' ELSE origin END,
	fingerprints = coalesce(CAST(? AS TEXT), fingerprints), owner = ?
WHERE id = ? AND status IN ('waiting', 'failed', 'cancelled', 'interrupted')`

const interruptRunSQL = `UPDATE runs SET status = ?, error = ? WHERE id = ? AND status = 'cancelled'`

const requestApprovalSQL = `
INSERT INTO approvals (run_id, step, instance, message, requested_at, deadline, fields)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (run_id, step, instance) DO UPDATE SET
	message = excluded.message,
	requested_at = excluded.requested_at,
	deadline = excluded.deadline,
	fields = excluded.fields,
	decided_at = NULL, approved = 0, comment = '', decided_by = '', closed = 0, inputs = NULL`

const decideApprovalSQL = `
UPDATE approvals SET decided_at = ?, approved = ?, comment = ?, decided_by = ?, inputs = ?
WHERE run_id = ? AND step = ? AND instance = ? AND decided_at IS NULL AND closed = 0
	AND (deadline IS NULL OR deadline > ?)`

const closeApprovalSQL = `
UPDATE approvals SET closed = 1 WHERE run_id = ? AND step = ? AND instance = ?`
