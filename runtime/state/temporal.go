package state

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Runs on the temporal engine (origin OriginTemporal) are kept going by
// Temporal, not by a process: they take no lock, and their workers and
// clients move them between statuses with these two writes, which take
// no lock either. (A run that a process resumes with ReopenRun becomes
// that process's: it is no longer a run on Temporal.)

// ContinueOnTemporal records that a run goes on on Temporal: a waiting
// run of the temporal engine whose approval was decided, or a run that
// failed, was cancelled or was interrupted and is started again there. It
// becomes running with origin OriginTemporal, with fingerprints (kept as
// they were when nil), and without its end. It fails with ErrNotResumable
// when the run is running or finished ok.
func (s *Store) ContinueOnTemporal(id string, fingerprints json.RawMessage) error {
	_, err := s.w.do(func(ctx context.Context, _ *writerStmts) error {
		res, err := s.w.conn.ExecContext(ctx, s.w.b.bind(continueOnTemporalSQL), OriginTemporal, text(fingerprints), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotResumable
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording run %s as running on Temporal: %w", id, err)
	}
	return nil
}

// InterruptTemporal records a run of the temporal engine that Temporal
// will not finish (its server lost the workflow, or the workflow ended
// without recording the run's end) as interrupted, with cause as its
// error, so that it can be resumed. It reports false, and changes
// nothing, when the run is not a running or waiting run of the temporal
// engine (it finished meanwhile, or someone took it over).
func (s *Store) InterruptTemporal(id, cause string) (bool, error) {
	var changed bool
	_, err := s.w.do(func(ctx context.Context, _ *writerStmts) error {
		res, err := s.w.conn.ExecContext(ctx, s.w.b.bind(interruptTemporalSQL), StatusInterrupted, nanos(time.Now()), cause, id, OriginTemporal)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		changed = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("recording run %s as interrupted: %w", id, err)
	}
	return changed, nil
}

const continueOnTemporalSQL = `
UPDATE runs SET status = 'running', finished_at = NULL, error = '', origin = ?,
	fingerprints = coalesce(CAST(? AS TEXT), fingerprints)
WHERE id = ? AND status IN ('waiting', 'failed', 'cancelled', 'interrupted')`

const interruptTemporalSQL = `
UPDATE runs SET status = ?, finished_at = ?, error = ?
WHERE id = ? AND origin = ? AND status IN ('running', 'waiting')`
