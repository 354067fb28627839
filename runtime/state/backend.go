package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A backend is what differs between the databases a Store keeps its state
// in: the embedded SQLite (Open) and PostgreSQL (OpenURL). Everything else
// — the schema's migrations, the queries, the writer — is shared.
type backend interface {
	// bind rewrites a query's ? parameters into the database's own.
	bind(query string) string
	// migrate brings the schema to schemaVersion, in one transaction that
	// concurrent openers wait for; a shared database's older schema only
	// when upgrade is set (Options.Migrate).
	migrate(ctx context.Context, db *sql.DB, upgrade bool) error
	// begin is the statement that begins the writer's transactions.
	begin() string
	// setupWriter tunes the writer's connection.
	setupWriter(ctx context.Context, conn *sql.Conn) error
	// guarded: a failed statement aborts the transaction, so that each
	// statement of the writer that may fail runs in a savepoint of its
	// own, when a batch is written carefully (writer.hopeful).
	guarded() bool
	// lockMemory makes the memory of a flow's namespace the transaction's
	// until it ends ("" when the writer's transaction already excludes
	// every other writer).
	lockMemory() string
	// duplicate reports whether err is a violation of a unique key.
	duplicate(err error) bool
}

// sqlDB is a database whose queries are bound for its backend.
type sqlDB struct {
	*sql.DB
	b backend
	// ctx, when not nil, is the context of the queries that are given
	// none (Store.Within).
	ctx context.Context
}

// bg is the context of a query given none.
func (d *sqlDB) bg() context.Context {
	if d.ctx != nil {
		return d.ctx
	}
	return context.Background()
}

// QueryContext runs a query, trying it again while it fails transiently
// (a connection that a restart of the database broke: retry.go).
func (d *sqlDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	query = d.b.bind(query)
	return read(ctx, func() (*sql.Rows, error) { return d.DB.QueryContext(ctx, query, args...) })
}

// scanRow reads the one row of a query into dest, trying it again while
// it fails transiently; sql.ErrNoRows when there is none.
func (d *sqlDB) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	query = d.b.bind(query)
	_, err := read(ctx, func() (struct{}, error) { return struct{}{}, d.DB.QueryRowContext(ctx, query, args...).Scan(dest...) })
	return err
}

func (d *sqlDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return d.DB.QueryRowContext(ctx, d.b.bind(query), args...)
}

func (d *sqlDB) Query(query string, args ...any) (*sql.Rows, error) {
	return d.QueryContext(d.bg(), query, args...)
}

func (d *sqlDB) QueryRow(query string, args ...any) *sql.Row {
	return d.QueryRowContext(d.bg(), query, args...)
}

func (d *sqlDB) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return d.DB.PrepareContext(ctx, d.b.bind(query))
}

// sqlConn is a connection whose statements are bound for its backend.
type sqlConn struct {
	*sql.Conn
	b backend
}

// txFailed reports whether the connection's transaction has failed
// (PostgreSQL's aborted transaction, which COMMIT rolls back without an
// error), as the server last said: it costs no round trip.
func (c *sqlConn) txFailed() bool {
	failed := false
	c.Raw(func(dc any) error {
		if pc, ok := dc.(*stdlib.Conn); ok {
			failed = pc.Conn().PgConn().TxStatus() == 'E'
		}
		return nil
	})
	return failed
}

func (c *sqlConn) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return c.Conn.PrepareContext(ctx, c.b.bind(query))
}

func (c *sqlConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.Conn.ExecContext(ctx, c.b.bind(query), args...)
}

func (c *sqlConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.Conn.QueryContext(ctx, c.b.bind(query), args...)
}

func (c *sqlConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.Conn.QueryRowContext(ctx, c.b.bind(query), args...)
}

// sqliteBackend is the embedded SQLite of a state directory.
type sqliteBackend struct{ dir string }

func (sqliteBackend) bind(query string) string { return query }

func (sqliteBackend) migrate(ctx context.Context, db *sql.DB, _ bool) error { return setup(ctx, db) }

// begin: BEGIN IMMEDIATE takes the write lock at once, waiting up to the
// busy timeout for another process's transaction.
func (sqliteBackend) begin() string { return `BEGIN IMMEDIATE` }

func (sqliteBackend) setupWriter(ctx context.Context, conn *sql.Conn) error {
	// A page cache large enough for the pages a big batch dirties (the
	// default is 2 MiB), for this connection only.
	_, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", -writerCacheKiB))
	return err
}

func (sqliteBackend) guarded() bool { return false }

func (sqliteBackend) duplicate(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && (e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE)
}

// lockMemory: a writer's transaction holds the database's write lock.
func (sqliteBackend) lockMemory() string { return "" }

// postgresBackend is a PostgreSQL database that several processes share.
type postgresBackend struct{}

// bind numbers the ? parameters $1, $2, ..., and makes ?N $N (no query of
// this package has a ? inside a literal).
func (postgresBackend) bind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		if c != '?' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('$')
		if i+1 < len(query) && query[i+1] >= '0' && query[i+1] <= '9' {
			continue // ?NNN, numbered: $NNN
		}
		n++
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

func (postgresBackend) begin() string { return `BEGIN` }

func (postgresBackend) setupWriter(context.Context, *sql.Conn) error { return nil }

func (postgresBackend) guarded() bool { return true }

func (postgresBackend) duplicate(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505" // unique_violation
}

// lockMemory: a transaction-scoped advisory lock on the hash of the flow
// and namespace, which rows not yet inserted could not give.
func (postgresBackend) lockMemory() string { return `SELECT pg_advisory_xact_lock(?)` }

// postgresTypes are the SQLite types of the migrations and PostgreSQL's
// for them: times and counts are 64-bit, bytes are bytea.
var postgresTypes = strings.NewReplacer(
	" INTEGER", " BIGINT",
	" BLOB", " BYTEA",
	") WITHOUT ROWID;", ");",
)

// migrate runs the migrations SQLite runs, their types translated, and
// keeps the version in schema_version. The advisory lock makes openers of
// a new database wait for the first. An older schema is upgraded only
// when upgrade is set; a new database gets the schema in any case.
func (postgresBackend) migrate(ctx context.Context, db *sql.DB, upgrade bool) error {
	_, _, err := migratePostgres(ctx, db, upgrade, false)
	return err
}

// migratePostgres brings the schema of a PostgreSQL database to
// schemaVersion (see postgresBackend.migrate) and returns the version it
// had and the statements it ran; with dryRun, it runs none and returns
// those it would run.
func migratePostgres(ctx context.Context, db *sql.DB, upgrade, dryRun bool) (int, []string, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("beginning the migration: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, keyHash("flowctl schema")); err != nil {
		return 0, nil, fmt.Errorf("locking the schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)`); err != nil {
		return 0, nil, fmt.Errorf("reading the schema version: %w", err)
	}
	version := 0
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	switch {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return 0, nil, fmt.Errorf("setting the schema version: %w", err)
		}
	case err != nil:
		return 0, nil, fmt.Errorf("reading the schema version: %w", err)
	}
	if err := checkVersion(version); err != nil || version == schemaVersion {
		return version, nil, err
	}
	if version > 0 && !upgrade && !dryRun {
		return version, nil, &SchemaError{Version: version}
	}
	var ran []string
	for v := version; v < schemaVersion; v++ {
		stmt := postgresTypes.Replace(migrations[v]) + postgresOnly[v]
		ran = append(ran, stmt)
		if dryRun {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return version, nil, fmt.Errorf("migrating the state database to schema version %d: %w", v+1, err)
		}
	}
	if dryRun {
		return version, ran, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = $1`, schemaVersion); err != nil {
		return version, nil, fmt.Errorf("setting the schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return version, nil, fmt.Errorf("migrating the state database: %w", err)
	}
	return version, ran, nil
}
