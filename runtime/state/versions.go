package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Versions of flows and paused runs.
//
// A run keeps the version of its flow it started with: the sources (the
// flow file, its block files and the code files they name, the flows it
// uses) are stored once per content hash (flow_versions), and each run
// names its version (run_versions), with the git commit of the flow's
// directory when it is in a repository. A resumption runs that version
// unless asked to upgrade (runtime.PinnedVersion).
//
// A paused run starts no step until resumed (run_pauses): the flag is in
// the state, so a pause made through one server holds for a run another
// runs.

// A FlowVersion is the sources of one version of a flow: Files maps each
// path, relative to the flow file's directory (slash-separated), to its
// content. Hash is their content hash.
type FlowVersion struct {
	Hash  string
	Files map[string][]byte
}

// A RunVersion is the version a run runs: its hash, and the git commit
// of the flow's directory when it started ("" outside a repository).
type RunVersion struct {
	Hash, Commit string
}

// versionFiles are the sources of the versions this process recorded, as
// the JSON stored, by hash: a run of a version recorded before does not
// encode them again.
var versionFiles sync.Map // hash → []byte

// SetRunVersion records that run id runs version v (stored with its
// sources unless a version of the same hash is), and returns once
// committed. A resumption that upgrades a run records its new version.
func (s *Store) SetRunVersion(id string, v *FlowVersion, commit string) error {
	files, ok := versionFiles.Load(v.Hash)
	if !ok {
		text := make(map[string]string, len(v.Files))
		for name, src := range v.Files {
			text[name] = string(src)
		}
		b, err := json.Marshal(text)
		if err != nil {
			return fmt.Errorf("recording the version of run %s: %w", id, err)
		}
		files, _ = versionFiles.LoadOrStore(v.Hash, b)
	}
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		if _, err := st.conn.ExecContext(ctx, `INSERT INTO flow_versions (hash, files, stored_at) VALUES (?, ?, ?)
			ON CONFLICT (hash) DO NOTHING`, v.Hash, string(files.([]byte)), time.Now().UnixNano()); err != nil {
			return err
		}
		_, err := st.conn.ExecContext(ctx, `INSERT INTO run_versions (run_id, hash, git_commit) VALUES (?, ?, ?)
			ON CONFLICT (run_id) DO UPDATE SET hash = excluded.hash, git_commit = excluded.git_commit`, id, v.Hash, commit)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the version of run %s: %w", id, err)
	}
	return nil
}

// RunVersion is the version run id runs; nil when it recorded none (it
// started before versions were kept, or without the state).
func (s *Store) RunVersion(id string) (*RunVersion, error) {
	var v RunVersion
	err := s.db.QueryRowContext(s.db.bg(), `SELECT hash, git_commit FROM run_versions WHERE run_id = ?`, id).Scan(&v.Hash, &v.Commit)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the version of run %s: %w", id, err)
	}
	return &v, nil
}

// FlowVersion returns the sources of the version hash; nil when they are
// not stored.
func (s *Store) FlowVersion(hash string) (*FlowVersion, error) {
	var files string
	err := s.db.QueryRowContext(s.db.bg(), `SELECT files FROM flow_versions WHERE hash = ?`, hash).Scan(&files)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading version %s of a flow: %w", hash, err)
	}
	var text map[string]string
	if err := json.Unmarshal([]byte(files), &text); err != nil {
		return nil, fmt.Errorf("reading version %s of a flow: %w", hash, err)
	}
	v := &FlowVersion{Hash: hash, Files: make(map[string][]byte, len(text))}
	for name, src := range text {
		v.Files[name] = []byte(src)
	}
	return v, nil
}

// A Pause is a run's pause: when, and by whom.
type Pause struct {
	At time.Time
	By string
}

// PauseRun pauses a run that has not finished: no step of it starts until
// ResumeRun. Pausing a paused run keeps its first pause; a run that
// finished is ErrNotPausable.
func (s *Store) PauseRun(id, by string) error {
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		res, err := st.conn.ExecContext(ctx, `INSERT INTO run_pauses (run_id, paused_at, paused_by)
			SELECT id, ?, ? FROM runs WHERE id = ? AND status IN ('running', 'waiting', '`+StatusQueued+`', '`+StatusInterrupted+`')
			ON CONFLICT (run_id) DO NOTHING`, time.Now().UnixNano(), by, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var paused int
			if err := st.conn.QueryRowContext(ctx, `SELECT count(*) FROM run_pauses WHERE run_id = ?`, id).Scan(&paused); err != nil {
				return err
			}
			if paused == 0 {
				return ErrNotPausable
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pausing run %s: %w", id, err)
	}
	return nil
}

// ErrNotPausable is returned by PauseRun for a run that has finished.
var ErrNotPausable = errors.New("the run has finished")

// ResumeRun lifts a run's pause; it reports whether the run was paused.
func (s *Store) ResumeRun(id string) (bool, error) {
	var was bool
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		res, err := st.conn.ExecContext(ctx, `DELETE FROM run_pauses WHERE run_id = ?`, id)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		was = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("resuming run %s: %w", id, err)
	}
	return was, nil
}

// Paused returns run id's pause; nil when it is not paused.
func (s *Store) Paused(id string) (*Pause, error) {
	var at int64
	var p Pause
	err := s.db.QueryRowContext(s.db.bg(), `SELECT paused_at, paused_by FROM run_pauses WHERE run_id = ?`, id).Scan(&at, &p.By)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading whether run %s is paused: %w", id, err)
	}
	p.At = time.Unix(0, at)
	return &p, nil
}
