package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
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
	// concurrent openers wait for.
	migrate(ctx context.Context, db *sql.DB) error
	// begin is the statement that begins the writer's transactions.
	begin() string
	// setupWriter tunes the writer's connection.
	setupWriter(ctx context.Context, conn *sql.Conn) error
	// guarded: a failed statement aborts the transaction, so that each
	// statement of the writer that may fail runs in a savepoint of its own.
	guarded() bool
	// lockMemory makes the memory of a flow's namespace the transaction's
	// until it ends ("" when the writer's transaction already excludes
	// every other writer).
	lockMemory() string
	// owner keeps the locks by which this process owns its running runs.
	owner(ctx context.Context, db *sql.DB) (owner, error)
	// duplicate reports whether err is a violation of a unique key.
	duplicate(err error) bool
}

// sqlDB is a database whose queries are bound for its backend.
type sqlDB struct {
	*sql.DB
	b backend
}

func (d *sqlDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return d.DB.QueryContext(ctx, d.b.bind(query), args...)
}

func (d *sqlDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return d.DB.QueryRowContext(ctx, d.b.bind(query), args...)
}

func (d *sqlDB) Query(query string, args ...any) (*sql.Rows, error) {
	return d.QueryContext(context.Background(), query, args...)
}

func (d *sqlDB) QueryRow(query string, args ...any) *sql.Row {
	return d.QueryRowContext(context.Background(), query, args...)
}

func (d *sqlDB) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return d.DB.PrepareContext(ctx, d.b.bind(query))
}

// sqlConn is a connection whose statements are bound for its backend.
type sqlConn struct {
	*sql.Conn
	b backend
}

func (c *sqlConn) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return c.Conn.PrepareContext(ctx, c.b.bind(query))
}

// sqliteBackend is the embedded SQLite of a state directory.
type sqliteBackend struct{ dir string }

func (sqliteBackend) bind(query string) string { return query }

func (sqliteBackend) migrate(ctx context.Context, db *sql.DB) error { return setup(ctx, db) }

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

func (b sqliteBackend) owner(context.Context, *sql.DB) (owner, error) {
	return &fileOwner{dir: b.dir}, nil
}

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

func (postgresBackend) owner(ctx context.Context, db *sql.DB) (owner, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &pgOwner{conn: conn, held: map[string]bool{}}, nil
}

// postgresTypes are the SQLite types of the migrations and PostgreSQL's
// for them: times and counts are 64-bit, bytes are bytea.
var postgresTypes = strings.NewReplacer(
	" INTEGER", " BIGINT",
	" BLOB", " BYTEA",
	") WITHOUT ROWID;", ");",
)

// migrate runs the migrations SQLite runs, their types translated, and
// keeps the version in schema_version. The advisory lock makes openers of
// a new database wait for the first.
func (postgresBackend) migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning the migration: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, keyHash("flowctl schema")); err != nil {
		return fmt.Errorf("locking the schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	version := 0
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	switch {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return fmt.Errorf("setting the schema version: %w", err)
		}
	case err != nil:
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if err := checkVersion(version); err != nil || version == schemaVersion {
		return err
	}
	for v := version; v < schemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, postgresTypes.Replace(migrations[v])); err != nil {
			return fmt.Errorf("migrating the state database to schema version %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = $1`, schemaVersion); err != nil {
		return fmt.Errorf("setting the schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating the state database: %w", err)
	}
	return nil
}
