package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// migrations are the schema changes, in order. Migration i brings a database
// from schema version i to i+1; PRAGMA user_version holds the version. Never
// edit a migration that has shipped: append a new one.
//
// Conventions: times are INTEGER unix nanoseconds, NULL when unknown (a
// zero time.Time); JSON values are TEXT, NULL when absent (a nil
// json.RawMessage).
var migrations = []string{
	// 1: runs, step results, result cache, memory.
	`
CREATE TABLE runs (
	id          TEXT NOT NULL PRIMARY KEY,
	flow        TEXT NOT NULL,
	namespace   TEXT NOT NULL,
	flow_file   TEXT NOT NULL,
	source_hash TEXT NOT NULL,
	inputs      TEXT,
	status      TEXT NOT NULL,
	started_at  INTEGER,
	finished_at INTEGER,
	outputs     TEXT,
	error       TEXT NOT NULL,
	usage       TEXT
);
CREATE INDEX runs_by_started ON runs (started_at);
CREATE INDEX runs_by_flow ON runs (flow, started_at);
CREATE INDEX runs_by_namespace ON runs (flow, namespace, started_at);

-- A rowid table with a separate unique index rather than a WITHOUT ROWID
-- table keyed by (run_id, step, instance): outputs can be large, and large
-- rows belong in a rowid table. The step results of a run are appended.

CREATE TABLE steps (
	run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	step        TEXT NOT NULL,
	instance    TEXT NOT NULL,
	status      TEXT NOT NULL,
	attempts    INTEGER NOT NULL,
	started_at  INTEGER,
	finished_at INTEGER,
	outputs     TEXT,
	sensitive   INTEGER NOT NULL,
	error       TEXT NOT NULL,
	cache_key   TEXT NOT NULL,
	usage       TEXT,
	UNIQUE (run_id, step, instance)
);

-- The cache is looked up by the 64-bit hash of the key (keyHash), not by
-- the key: cache keys are long and random, and a run inserts thousands of
-- them at random places of the index; an index of integers is a quarter of
-- the size of one of keys, so those inserts dirty far fewer pages.
CREATE TABLE cache (
	hash      INTEGER NOT NULL,
	key       TEXT NOT NULL,
	flow      TEXT NOT NULL,
	step      TEXT NOT NULL,
	outputs   TEXT,
	stored_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX cache_by_hash ON cache (hash);

CREATE TABLE memory (
	flow       TEXT NOT NULL,
	namespace  TEXT NOT NULL,
	name       TEXT NOT NULL,
	value      TEXT,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (flow, namespace, name)
) WITHOUT ROWID;
`,
	// 2: embedding vectors of registry search.
	`
-- A vector is the little-endian float32s of one embedding, kilobytes
-- long: a rowid table with a unique index, for the reason given for steps.
-- key is the caller's (package blocks/index: a hash of the model and the
-- text); model is kept beside it so that a model's vectors can be told
-- apart and dropped.
CREATE TABLE vectors (
	model     TEXT NOT NULL,
	key       TEXT NOT NULL,
	vector    BLOB NOT NULL,
	stored_at INTEGER NOT NULL,
	UNIQUE (model, key)
);
`,
	// 3: the outputs a failed or cancelled run could not evaluate.
	`
ALTER TABLE runs ADD COLUMN failed_outputs TEXT;
`,
	// 4: the events of a run, as apply --json prints them, numbered from 1
	// (recorded by flowctl serve, so that a client that connects late or
	// reconnects misses none).
	`
CREATE TABLE events (
	run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq    INTEGER NOT NULL,
	type   TEXT NOT NULL,
	data   TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
`,
	// 5: when each schedule of flowctl serve last fired.
	`
CREATE TABLE schedules (
	flow     TEXT NOT NULL,
	name     TEXT NOT NULL,
	fired_at INTEGER NOT NULL,
	PRIMARY KEY (flow, name)
) WITHOUT ROWID;
`,
	// 6: the Idempotency-Keys of flowctl serve, and the runs they started.
	`
CREATE TABLE idempotency (
	key        TEXT NOT NULL PRIMARY KEY,
	run_id     TEXT NOT NULL,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
	// 7: approval steps (what each instance waits for, and the decision),
	// and what started each run ("" for apply, "serve").
	`
CREATE TABLE approvals (
	run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	step         TEXT NOT NULL,
	instance     TEXT NOT NULL,
	message      TEXT NOT NULL,
	requested_at INTEGER NOT NULL,
	deadline     INTEGER,
	decided_at   INTEGER,
	approved     INTEGER NOT NULL DEFAULT 0,
	comment      TEXT NOT NULL DEFAULT '',
	decided_by   TEXT NOT NULL DEFAULT '',
	closed       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (run_id, step, instance)
) WITHOUT ROWID;
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT '';
`,
	// 8: what each step instance printed (console.log, print).
	`
ALTER TABLE steps ADD COLUMN log TEXT NOT NULL DEFAULT '';
`,
	// 9: the fingerprint of each step of a run's program (a JSON object by
	// step name), against which a resumption checks its own.
	`
ALTER TABLE runs ADD COLUMN fingerprints TEXT;
`,
	// 10: the run and step instance a run was started by: a step that
	// uses a flow, or an llm step's tool call.
	`
ALTER TABLE runs ADD COLUMN parent_run TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN parent_step TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_parent ON runs (parent_run) WHERE parent_run != '';
`,
	// 11: the changes flowctl think --edit stages.
	`
CREATE TABLE proposals (
	id         TEXT NOT NULL PRIMARY KEY,
	flow       TEXT NOT NULL,
	flow_file  TEXT NOT NULL,
	intent     TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	status     TEXT NOT NULL,
	decided_at INTEGER,
	summary    TEXT,
	files      TEXT NOT NULL,
	diff       TEXT NOT NULL
);
`,
	// 12: payloads of the temporal engine kept by reference (over 1 MiB),
	// by the SHA-256 of their bytes.
	`
CREATE TABLE payloads (
	ref       TEXT NOT NULL PRIMARY KEY,
	data      BLOB NOT NULL,
	stored_at INTEGER NOT NULL
);
`,
	// 13: a page of runs costs the page, whatever the history: an index
	// for every filter of the runs list (flow, status, namespace, and
	// each combination), in the list's order (newest first, then by ID),
	// replacing the indexes without the ID. Idempotency-Keys of flowctl
	// serve are scoped to a flow and namespace and remember the request
	// they came with (so that a key reused with another is told apart), and
	// expire (created_at): the unscoped keys of migration 6 are dropped.
	`
DROP INDEX runs_by_started;
DROP INDEX runs_by_flow;
DROP INDEX runs_by_namespace;
CREATE INDEX runs_page ON runs (started_at, id);
CREATE INDEX runs_page_flow ON runs (flow, started_at, id);
CREATE INDEX runs_page_status ON runs (status, started_at, id);
CREATE INDEX runs_page_namespace ON runs (namespace, started_at, id);
CREATE INDEX runs_page_flow_status ON runs (flow, status, started_at, id);
CREATE INDEX runs_page_flow_namespace ON runs (flow, namespace, started_at, id);
CREATE INDEX runs_page_namespace_status ON runs (namespace, status, started_at, id);
CREATE INDEX runs_page_flow_namespace_status ON runs (flow, namespace, status, started_at, id);

DROP TABLE idempotency;
CREATE TABLE idempotency_keys (
	flow       TEXT NOT NULL,
	namespace  TEXT NOT NULL,
	key        TEXT NOT NULL,
	request    TEXT NOT NULL,
	run_id     TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (flow, namespace, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_by_created ON idempotency_keys (created_at);
`,
	// 14: patterns, the flows that worked (written by think, or a proposal
	// accepted), which think searches before it plans; each is one flow
	// file's, replaced when that file is accepted again. And what a
	// proposal of flowctl explain adds: the run it fixes, the diagnosis
	// and the evidence (the steps that failed and succeed with the fix).
	`
CREATE TABLE patterns (
	id            TEXT NOT NULL PRIMARY KEY,
	name          TEXT NOT NULL,
	intent        TEXT NOT NULL,
	flow          TEXT NOT NULL,
	flow_file     TEXT NOT NULL UNIQUE,
	source        TEXT NOT NULL,
	blocks        TEXT NOT NULL,
	origin        TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL,
	used          INTEGER NOT NULL DEFAULT 0,
	test_passes   INTEGER NOT NULL DEFAULT 0,
	test_failures INTEGER NOT NULL DEFAULT 0
);
ALTER TABLE proposals ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE proposals ADD COLUMN diagnosis TEXT NOT NULL DEFAULT '';
ALTER TABLE proposals ADD COLUMN evidence TEXT;
`,
	// 15: the processes that run runs in a shared database, each with its
	// lease (owner.go, lease.go; SQLite keeps lock files instead), and the
	// owner of each run; the saved plans applied, each once.
	`
CREATE TABLE owners (
	id         TEXT NOT NULL PRIMARY KEY,
	host       TEXT NOT NULL,
	pid        INTEGER NOT NULL,
	process    TEXT NOT NULL,
	started_at INTEGER NOT NULL,
	batch      INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
);
ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_running ON runs (owner) WHERE status = 'running';
CREATE TABLE applied_plans (
	id         TEXT NOT NULL PRIMARY KEY,
	run_id     TEXT NOT NULL,
	applied_at INTEGER NOT NULL
);
`,
	// 16: what a proposal weakens (thinker.Weakenings): the approvals,
	// guards, timeouts, hosts and secrets it removes or loosens, as JSON;
	// NULL for a proposal staged before it was checked.
	`
ALTER TABLE proposals ADD COLUMN weakenings TEXT;
`,
	// 17: the vector collections (collections.go): each with its
	// dimensions, distance and revision; their items, a removed one kept
	// as a tombstone (live = 0) of the revision that removed it, until
	// the collection is deleted. PostgreSQL adds pgvector's column
	// (postgresOnly).
	`
CREATE TABLE collections (
	name       TEXT NOT NULL PRIMARY KEY,
	dimensions INTEGER NOT NULL,
	distance   TEXT NOT NULL,
	rev        INTEGER NOT NULL
);
CREATE TABLE collection_items (
	collection TEXT NOT NULL,
	id         TEXT NOT NULL,
	rev        INTEGER NOT NULL,
	live       INTEGER NOT NULL,
	text       TEXT NOT NULL,
	metadata   TEXT NOT NULL,
	vector     BLOB,
	PRIMARY KEY (collection, id)
) WITHOUT ROWID;
CREATE INDEX collection_items_rev ON collection_items (collection, rev);
`,
	// 18: the model calls of runs (docs/llm.md, "Call traces"): each round
	// trip of a step with a model server, numbered in its run, its
	// blocks.ModelCall (redacted) as JSON.
	`
CREATE TABLE calls (
	run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq      INTEGER NOT NULL,
	step     TEXT NOT NULL,
	instance TEXT NOT NULL,
	data     TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX calls_by_step ON calls (run_id, step, seq);
`,
	// 19: the results of evaluations (flowctl eval, evals.go): each with
	// its eval, file, flow, start and, once finished, its summary
	// (result.Summary as JSON, NULL until then); and their cases, each
	// row × variant × repetition with its inputs, outputs, scores (JSON),
	// the run that produced it, tokens and cost. A rowid table for the
	// cases, for the reason given for steps.
	`
CREATE TABLE eval_results (
	id         TEXT NOT NULL PRIMARY KEY,
	eval       TEXT NOT NULL,
	file       TEXT NOT NULL,
	flow       TEXT NOT NULL,
	started_at INTEGER NOT NULL,
	summary    TEXT
);
CREATE INDEX eval_results_by_eval ON eval_results (eval, started_at);
CREATE TABLE eval_cases (
	result_id  TEXT NOT NULL REFERENCES eval_results (id) ON DELETE CASCADE,
	variant    TEXT NOT NULL,
	row_index  INTEGER NOT NULL,
	repetition INTEGER NOT NULL,
	inputs     TEXT,
	outputs    TEXT,
	error      TEXT NOT NULL,
	scores     TEXT NOT NULL,
	run_id     TEXT NOT NULL,
	tokens     INTEGER NOT NULL,
	cost_usd   DOUBLE PRECISION NOT NULL,
	duration   INTEGER NOT NULL,
	cached     INTEGER NOT NULL,
	UNIQUE (result_id, variant, row_index, repetition)
);
`,
	// 20: the runs of a flow by when they ended, which serve's on_run
	// triggers read (FinishedRuns); which trigger started a run for which
	// ended run is claimed with the run, as an idempotency key.
	`
CREATE INDEX runs_by_finished ON runs (flow, finished_at);
`,
	// 21: per-key limits on runs (limits.go): a run's keys, priority,
	// earliest start (debounce) and what it waits for; the places of the
	// keys (a concurrency key's held by running runs, a rate limit's by
	// the starts of its last period); at most one queued run of a
	// debounce key.
	`
ALTER TABLE runs ADD COLUMN concurrency_key TEXT;
ALTER TABLE runs ADD COLUMN rate_key TEXT;
ALTER TABLE runs ADD COLUMN debounce_key TEXT;
ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN not_before INTEGER;
ALTER TABLE runs ADD COLUMN waiting_for TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_concurrency_key ON runs (flow, namespace, concurrency_key, status) WHERE concurrency_key IS NOT NULL;
CREATE UNIQUE INDEX runs_debouncing ON runs (flow, namespace, debounce_key) WHERE debounce_key IS NOT NULL AND status = 'queued';
CREATE TABLE limit_slots (
	flow      TEXT NOT NULL,
	namespace TEXT NOT NULL,
	kind      TEXT NOT NULL,
	key       TEXT NOT NULL,
	slot      INTEGER NOT NULL,
	run_id    TEXT NOT NULL,
	free_at   INTEGER NOT NULL,
	PRIMARY KEY (flow, namespace, kind, key, slot)
) WITHOUT ROWID;
`,
	// 22: what approval steps ask for and are given (the typed input
	// fields they declare, as JSON, and the values given with a
	// decision); the runs paused (no step starts until resumed); the
	// versions of flows, the sources a run started with by content hash,
	// one copy per hash, and the version (and git commit) of each run.
	`
ALTER TABLE approvals ADD COLUMN fields TEXT;
ALTER TABLE approvals ADD COLUMN inputs TEXT;
CREATE TABLE run_pauses (
	run_id    TEXT NOT NULL PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	paused_at INTEGER NOT NULL,
	paused_by TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE flow_versions (
	hash      TEXT NOT NULL PRIMARY KEY,
	files     TEXT NOT NULL,
	stored_at INTEGER NOT NULL
);
CREATE TABLE run_versions (
	run_id     TEXT NOT NULL PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	hash       TEXT NOT NULL,
	git_commit TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX run_versions_by_hash ON run_versions (hash);
`,
}

// schemaVersion is the version a database has once every migration ran.
var schemaVersion = len(migrations)

// setup puts the database in WAL mode and migrates it.
//
// Switching a new database to WAL needs an exclusive lock, and SQLite does
// not wait for it: when several processes open a new database at once,
// some get SQLITE_BUSY at once, whatever the busy timeout. So setup retries
// on SQLITE_BUSY, for as long as the busy timeout. WAL mode is persistent:
// the other connections find it in the file.
func setup(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		err := setupOnce(ctx, db)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

func setupOnce(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return fmt.Errorf("switching to WAL mode: %w", err)
	}
	return migrate(ctx, db)
}

func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

// migrate brings the database to schemaVersion. It runs in one immediate
// transaction, so two processes opening a new database at once do not both
// create the schema, and a process killed half-way leaves the database as it
// was.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: see dsn.
	if err != nil {
		return fmt.Errorf("beginning the migration: %w", err)
	}
	defer tx.Rollback()

	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if err := checkVersion(version); err != nil || version == schemaVersion {
		return err
	}
	for v := version; v < schemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrating the state database to schema version %d: %w", v+1, err)
		}
	}
	// PRAGMA takes no parameters; schemaVersion is an int.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return fmt.Errorf("setting the schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating the state database: %w", err)
	}
	return nil
}

// checkVersion refuses a schema written by a newer flowctl.
func checkVersion(version int) error {
	if version > schemaVersion {
		return fmt.Errorf("the state database has schema version %d, but this flowctl knows versions up to %d: it was written by a newer flowctl", version, schemaVersion)
	}
	return nil
}

// ErrSchemaOld is wrapped by SchemaError.
var ErrSchemaOld = errors.New("the shared state database has an older schema")

// A SchemaError is the error of opening a shared database whose schema is
// older than this flowctl's without Options.Migrate: upgrading it is a
// decision (processes of the older flowctl cannot use it afterwards), so
// it is made by flowctl state migrate, or --migrate.
type SchemaError struct {
	Version int // the database's
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the state database has schema version %d and this flowctl uses version %d: upgrade it with flowctl state migrate (or pass --migrate), once every flowctl that uses it is of this version or newer", e.Version, schemaVersion)
}

func (e *SchemaError) Unwrap() error { return ErrSchemaOld }

// SchemaVersion is the schema version of this flowctl's state.
func SchemaVersion() int { return schemaVersion }

// A Migration is what flowctl state migrate did, or would do, to a
// database: the schema version it had, the one it has after, and the
// SQL statements between.
type Migration struct {
	From, To   int
	Statements []string
}

// MigrateURL upgrades the schema of the PostgreSQL database of dbURL to
// this flowctl's, in one transaction; with dryRun it changes nothing and
// returns what it would run.
func MigrateURL(ctx context.Context, dbURL string, dryRun bool) (*Migration, error) {
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	from, stmts, err := migratePostgres(ctx, db, true, dryRun)
	if err != nil {
		return nil, err
	}
	return &Migration{From: from, To: schemaVersion, Statements: stmts}, nil
}
