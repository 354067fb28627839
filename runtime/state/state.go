package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // registers the "sqlite" database/sql driver
)

// FileName is the name of the database file inside the state directory.
const FileName = "state.db"

// DefaultNamespace is the namespace of runs and memory when none is given
// (docs/design.md, "Memory"). An empty namespace means DefaultNamespace everywhere in this
// package.
const DefaultNamespace = "default"

// busyTimeout is how long a write waits for another process's write to
// finish before it fails with "database is locked".
const busyTimeout = 10 * time.Second

var (
	// ErrClosed is returned by the methods of a closed Store.
	ErrClosed = errors.New("state store is closed")
	// ErrRunNotFound is returned (wrapped) when no run has the given ID.
	ErrRunNotFound = errors.New("run not found")
	// ErrAmbiguousRun is returned (wrapped) when a run ID prefix matches
	// several runs.
	ErrAmbiguousRun = errors.New("ambiguous run ID prefix")
	// ErrRunExists is returned (wrapped) by CreateRun when a run has the
	// ID already.
	ErrRunExists = errors.New("a run with this ID exists already")
	// ErrLocked is returned (wrapped) by Open when another connection
	// kept the database locked for longer than the busy timeout.
	ErrLocked = errors.New("the state database is locked by another process")
)

// A Run is one execution of a flow.
type Run struct {
	ID         string // NewRunID; CreateRun assigns one when empty
	Flow       string // the flow's name
	Namespace  string // --namespace; "" means DefaultNamespace
	FlowFile   string // path of the flow file
	SourceHash string // hash of the flow's source, for stale-plan checks
	Inputs     json.RawMessage
	Status     string // "running", then "ok", "failed", "cancelled" or "waiting"
	StartedAt  time.Time
	FinishedAt time.Time // zero while running
	Outputs    json.RawMessage
	// FailedOutputs are the outputs a failed or cancelled run could not
	// evaluate, with the reason: a JSON array, nil when there are none.
	FailedOutputs json.RawMessage
	Error         string
	Usage         json.RawMessage // token usage of the whole run
	// Origin is what started the run: "" for apply, "serve" for the
	// server (which resumes its own runs after a crash).
	Origin string
	// Fingerprints are the fingerprints of the steps of the program that
	// ran (last resumed) it, a JSON object by step name, recorded when it
	// ends other than ok; nil when unknown.
	Fingerprints json.RawMessage
	// ParentRun and ParentStep are the run and step instance (step or
	// step[key]) that started this run: a step that uses a flow (origin
	// "flow"), or a tool call of an llm step (origin "tool"); "" for
	// other runs.
	ParentRun  string
	ParentStep string
}

// An Event is one event of a run, as apply --json prints it: Seq numbers
// the events of a run from 1, Type is the event's type ("step_finished"),
// Data its JSON object.
type Event struct {
	RunID string
	Seq   int64
	Type  string
	Data  json.RawMessage
}

// A StepResult is the outcome of one instance of one step of a run. Instance
// tells the instances of a step with count or for_each apart ("" for a step
// without either).
type StepResult struct {
	RunID      string
	Step       string
	Instance   string
	Status     string // "ok", "failed", "skipped", "cached", "cancelled", ...
	Attempts   int
	StartedAt  time.Time // zero when the step never started
	FinishedAt time.Time
	Outputs    json.RawMessage // already redacted by the caller when Sensitive
	Sensitive  bool
	Error      string
	CacheKey   string
	Usage      json.RawMessage
	// Log is what the instance printed, redacted, one line per line,
	// capped by the runtime (with a marker when cut).
	Log string
}

// A Store is an open state database. Its methods are safe for concurrent
// use.
type Store struct {
	path string
	db   *sqlDB // the readers' pool; the writer holds one of its connections
	w    *writer

	// Prepared on db, used by the synchronous reads.
	cacheGet *sql.Stmt

	owner owner // the locks of the runs this store created (owner.go)

	closeOnce sync.Once
	closeErr  error
}

// Open opens the state database in dir, creating dir (0o755) and the
// database when they do not exist, and migrating the schema to the current
// version. Several processes may open the same database at once.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the state directory: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("opening the state database: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	// A few idle readers; the writer holds one connection for the life of
	// the store.
	db.SetMaxIdleConns(4)
	s, err := open(db, path, sqliteBackend{dir: filepath.Dir(path)})
	if err != nil {
		db.Close()
		if isBusy(err) {
			return nil, fmt.Errorf("opening %s: %w for more than %s", path, ErrLocked, busyTimeout)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return s, nil
}

// OpenURL opens the PostgreSQL database of a postgres:// (or
// postgresql://) URL, migrating its schema to the current version. Any
// number of processes may share it.
func OpenURL(dbURL string) (*Store, error) {
	shown := RedactURL(dbURL)
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", shown, err)
	}
	db.SetMaxIdleConns(4)
	s, err := open(db, shown, postgresBackend{})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", shown, err)
	}
	return s, nil
}

// IsURL reports whether a --state value names a database rather than a
// directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// RedactURL is a database URL without its password.
func RedactURL(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "the state database"
	}
	return u.Redacted()
}

func open(db *sql.DB, path string, b backend) (*Store, error) {
	ctx := context.Background()
	if err := b.migrate(ctx, db); err != nil {
		return nil, err
	}
	s := &Store{path: path, db: &sqlDB{DB: db, b: b}}
	var err error
	if s.owner, err = b.owner(ctx, db); err != nil {
		return nil, err
	}
	if s.cacheGet, err = s.db.PrepareContext(ctx, `SELECT key, outputs FROM cache WHERE hash = ?`); err != nil {
		s.owner.close()
		return nil, err
	}
	dir := ""
	if sb, ok := b.(sqliteBackend); ok {
		dir = sb.dir
	}
	if s.w, err = newWriter(ctx, db, dir, b); err != nil {
		s.cacheGet.Close()
		s.owner.close()
		return nil, err
	}
	if _, err := s.reapInterrupted(); err != nil {
		s.w.close()
		s.cacheGet.Close()
		s.owner.close()
		return nil, fmt.Errorf("recording interrupted runs: %w", err)
	}
	return s, nil
}

// dsn is the driver's data source name for the database at path, an
// absolute path, as a file: URI (so that any character in the path
// survives). The pragmas are applied to every connection the pool opens
// (journal_mode is not among them: WAL mode is persistent, see setup).
// _txlock=immediate makes every transaction
// BEGIN IMMEDIATE: a writer takes the write lock when it begins, where the
// busy timeout applies, rather than failing half-way when upgrading a read
// lock.
func dsn(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/...
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	// Statement journals (the writer's multi-row upserts need them) in
	// memory rather than in temporary files, where writing them took a
	// quarter of the writer's time.
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Add("_pragma", "wal_autocheckpoint(16384)")
	q.Set("_txlock", "immediate")
	return "file://" + (&url.URL{Path: p}).EscapedPath() + "?" + q.Encode()
}

// Path is the absolute path of the database file, or the database's URL
// without its password.
func (s *Store) Path() string { return s.path }

// Close flushes pending writes, stops the writer and closes the database.
// It returns the first error of the flush or of closing. Closing twice
// returns the first result again.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		defer s.owner.close()
		flushErr := s.w.flush()
		closeErr := s.w.close()
		s.closeErr = errors.Join(flushErr, closeErr, s.cacheGet.Close(), s.db.Close())
	})
	return s.closeErr
}

// nanos is t as stored: unix nanoseconds, or NULL for the zero time.
func nanos(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// fromNanos is the inverse of nanos.
func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64)
}

// flag is a boolean as stored: 1 or 0.
func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// text is a JSON value as bound to a "CAST(? AS TEXT)" parameter: the
// bytes without a copy into a string, nil (NULL) for a nil value.
func text(v json.RawMessage) any {
	if v == nil {
		return nil
	}
	return []byte(v)
}

func namespace(ns string) string {
	if ns == "" {
		return DefaultNamespace
	}
	return ns
}
