package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"           // registers the "sqlite" database/sql driver
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
	// WaitingFor is why a queued run has not started, when a limit of
	// its flow holds it (limits.go): `concurrency key "c-17"`.
	WaitingFor string
	// Limits, when not nil, are the limits a run that QueueRun records
	// goes through before it starts (StartLimited).
	Limits *RunLimits
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

	lookups lookups       // the cache's (cacheget.go)
	colls   collectionSet // the vector collections opened (collections.go)

	owner owner         // how this process owns its runs (owner.go)
	avail *availability // whether a shared database answers; nil for SQLite
	stop  chan struct{} // ends the heartbeat

	closeOnce sync.Once
	closeErr  error
	view      bool // Within's: Close does nothing
}

// Options are how a store is opened.
type Options struct {
	// Migrate upgrades the schema of a shared (PostgreSQL) database that
	// is older than this flowctl's; without it, such a database is
	// refused with ErrSchemaOld, so that no process upgrades a shared
	// state by chance (flowctl state migrate, or --migrate, upgrade it).
	// A new database gets the schema in any case, and SQLite, which one
	// machine uses, is always upgraded.
	Migrate bool
	// Wait is how long a store waits for a shared database that stopped
	// answering to come back before it fails what it could not record
	// (WaitWritable, the writes handed over). 0: $FLOWCTL_STATE_WAIT,
	// else DefaultWait.
	Wait time.Duration
	// Lease is how long this process's ownership of its runs lasts in a
	// shared database without being renewed (lease.go). 0:
	// $FLOWCTL_STATE_LEASE, else DefaultLease.
	Lease time.Duration
}

// The environment variables of Options.Wait and Options.Lease.
const (
	EnvWait  = "FLOWCTL_STATE_WAIT"
	EnvLease = "FLOWCTL_STATE_LEASE"
)

// withDefaults fills in what o leaves unset, from the environment.
func (o Options) withDefaults() (Options, error) {
	var err error
	if o.Wait, err = envDuration(o.Wait, EnvWait, DefaultWait); err != nil {
		return o, err
	}
	if o.Lease, err = envDuration(o.Lease, EnvLease, DefaultLease); err != nil {
		return o, err
	}
	return o, nil
}

func envDuration(d time.Duration, env string, def time.Duration) (time.Duration, error) {
	if d > 0 {
		return d, nil
	}
	v := os.Getenv(env)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q is not a positive duration such as 2m or 30s", env, v)
	}
	return d, nil
}

// Open opens the state database in dir, creating dir (0o755) and the
// database when they do not exist, and migrating the schema to the current
// version. Several processes may open the same database at once. A dir it
// creates holds a .gitignore of *, so that the state (its cache salt
// included) is never committed by accident.
func Open(dir string) (*Store, error) {
	if err := makeDir(dir); err != nil {
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
	b := sqliteBackend{dir: filepath.Dir(path)}
	s, err := open(db, path, b, Options{Migrate: true, Wait: DefaultWait, Lease: DefaultLease}, &fileOwner{dir: b.dir}, nil)
	if err != nil {
		db.Close()
		if isBusy(err) {
			return nil, fmt.Errorf("opening %s: %w for more than %s", path, ErrLocked, busyTimeout)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return s, nil
}

// GitIgnore is the .gitignore of a state directory Open makes: git
// ignores everything in it.
const GitIgnore = "*\n"

// makeDir makes the state directory dir with its .gitignore, when it does
// not exist.
func makeDir(dir string) error {
	if _, err := os.Stat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(GitIgnore), 0o644)
}

// OpenURL opens the PostgreSQL database of a postgres:// (or
// postgresql://) URL with the default Options.
func OpenURL(dbURL string) (*Store, error) { return OpenURLWith(dbURL, Options{}) }

// OpenURLWith opens the PostgreSQL database of a postgres:// (or
// postgresql://) URL. Any number of processes may share it.
//
// The store keeps a pool of connections (database/sql over pgx's driver,
// which checks a connection that was idle before reusing it and drops a
// broken one), so a restart of the database costs the queries under way
// when it went, which are tried again (retry.go), and nothing else.
func OpenURLWith(dbURL string, o Options) (*Store, error) {
	shown := RedactURL(dbURL)
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", shown, err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	if pgTracer != nil {
		cfg.Tracer = pgTracer
	}
	// Every connection searches collections with pgvector's settings
	// (collections_pg.go), so that a search is one statement.
	for name, value := range pgSearchSettings {
		if _, set := cfg.RuntimeParams[name]; !set {
			cfg.RuntimeParams[name] = value
		}
	}
	// A process stopped (SIGSTOP, a paused VM) inside a transaction holds
	// its locks, among them its owners row, which mark locks: another
	// process's reap would wait on it for as long as the process stays
	// stopped, and every write of that process behind it. The database
	// ends a session idle in a transaction for two leases (a second at
	// least), by when others take the process for gone anyway (lease):
	// its transaction is rolled back and its locks go. A process that
	// goes on finds its session ended, and its writer tries again on a
	// new connection (retry.go), where it learns its runs were taken.
	if _, set := cfg.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		cfg.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(max(2*o.Lease, time.Second).Milliseconds(), 10)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(30 * time.Minute)
	avail := newAvailability(o.Wait, db.PingContext)
	s, err := open(db, shown, postgresBackend{}, o, newLease(o.Lease), avail)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", shown, err)
	}
	return s, nil
}

// pgTracer, when set, sees every statement the stores opened since send
// PostgreSQL: the tests count the writer's round trips with it.
var pgTracer pgx.QueryTracer

// The pool of a PostgreSQL store: the writer holds one connection, the
// readers share the others; a dial that gets no answer gives up after
// connectTimeout (unless the URL says connect_timeout) and is tried
// again.
const (
	maxConns       = 8
	maxIdleConns   = 4
	connectTimeout = 10 * time.Second
)

// IsURL reports whether a --state value names a database rather than a
// directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// RedactURL is a state's location as a log may show it: a database URL
// without its password, a directory as it is.
func RedactURL(dbURL string) string {
	if !IsURL(dbURL) {
		return dbURL
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "the state database"
	}
	return u.Redacted()
}

func open(db *sql.DB, path string, b backend, o Options, own owner, avail *availability) (*Store, error) {
	ctx := context.Background()
	if err := b.migrate(ctx, db, o.Migrate); err != nil {
		return nil, err
	}
	s := &Store{path: path, db: &sqlDB{DB: db, b: b}, owner: own, avail: avail}
	var err error
	if err = s.lookups.prepare(ctx, s.db); err != nil {
		return nil, err
	}
	dir := ""
	if sb, ok := b.(sqliteBackend); ok {
		dir = sb.dir
	}
	if s.w, err = newWriter(ctx, db, dir, b, own, avail, o); err != nil {
		s.lookups.close()
		return nil, err
	}
	if _, err := s.reapInterrupted(); err != nil {
		s.w.close()
		s.lookups.close()
		return nil, fmt.Errorf("recording interrupted runs: %w", err)
	}
	if l, ok := own.(*lease); ok {
		s.stop = make(chan struct{})
		go s.heartbeat(l, s.stop)
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

// Within is a view of s whose reads of runs, steps, events and
// approvals (Run, Steps, StepCounts, StepResults, LastEvent, LastEventSeq,
// OpenApprovals, Events, ListRuns…) end when ctx does, with ctx's error:
// a server gives each request's reads its deadline, so that a database
// that does not answer (stopped, partitioned) costs a request the
// deadline, not the minutes a connection takes to time out. It is for
// those reads only: its writes, cache lookups and Close are s's, and it
// is not to be closed.
func (s *Store) Within(ctx context.Context) *Store {
	return &Store{path: s.path, db: &sqlDB{DB: s.db.DB, b: s.db.b, ctx: ctx}, w: s.w, owner: s.owner, avail: s.avail, view: true}
}

// Path is the absolute path of the database file, or the database's URL
// without its password.
func (s *Store) Path() string { return s.path }

// Close flushes pending writes, stops the writer and closes the database.
// The runs this store created and did not finish are left to be taken up:
// recorded as interrupted (PostgreSQL), or left to the next store opened
// (SQLite). It returns the first error of the flush or of closing.
// Closing twice returns the first result again.
func (s *Store) Close() error { return s.close(false) }

// CloseForExit is Close for a process that exits right after it: it
// writes and releases all that Close does, and on SQLite checkpoints the
// WAL to empty, but leaves the database connections to the exit. Closing
// them frees SQLite's page caches page by page, and the allocator hands
// each page back to the system: 0.3–0.45 s after a for_each of 20,000 js
// calls, a fifth of its run. The next process finds an empty WAL, as
// after Close. On PostgreSQL it is Close.
func (s *Store) CloseForExit() error {
	if _, ok := s.db.b.(sqliteBackend); !ok {
		return s.Close()
	}
	return s.close(true)
}

func (s *Store) close(exit bool) error {
	if s.view {
		return nil
	}
	s.closeOnce.Do(func() {
		if s.stop != nil {
			close(s.stop)
		}
		collErr := s.closeCollections()
		flushErr := errors.Join(s.w.flush(), collErr)
		var ownerErr error
		switch o := s.owner.(type) {
		case *lease:
			_, ownerErr = s.w.do(func(ctx context.Context, st *writerStmts) error { return o.close(ctx, st) })
		case *fileOwner:
			defer o.unlockAll()
		}
		closeErr := s.w.close()
		if s.avail != nil {
			s.avail.close()
		}
		if exit {
			// Another process reading may keep part of the WAL: then
			// the next to open the state recovers it, as after a crash.
			_, err := s.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(TRUNCATE)`)
			s.closeErr = errors.Join(flushErr, ownerErr, closeErr, s.lookups.close(), err)
			return
		}
		s.closeErr = errors.Join(flushErr, ownerErr, closeErr, s.lookups.close(), s.db.Close())
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
