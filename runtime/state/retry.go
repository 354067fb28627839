package state

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Every failure of the database is sorted here, in one place, into those
// worth trying again — the connection was lost or refused, the server is
// shutting down or starting, the transaction lost a deadlock or a
// serialization conflict, the database takes no writes for now (a full
// disk, a read-only database: refusesWrites) — and the others (a
// constraint, a bad query), which are reported at once.

// transient reports whether err may go away when the same work is tried
// again: on a new connection, or after the server comes back.
// Unreachable reports whether err is that of a database that did not
// answer (a connection lost, refused or timed out, the server shutting
// down), or that a store gave up waiting for (ErrUnavailable): the state
// may answer later, unlike a query that is wrong or a store closed.
func Unreachable(err error) bool {
	return errors.Is(err, ErrUnavailable) || transient(err)
}

func transient(err error) bool {
	if err == nil {
		return false
	}
	if retryInPlace(err) || refusesWrites(err) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection exception
			return true
		case pgErr.Code == "57P01", // admin_shutdown
			pgErr.Code == "57P02", // crash_shutdown
			pgErr.Code == "57P03", // cannot_connect_now: starting up, recovering
			pgErr.Code == "53300", // too_many_connections
			// idle_in_transaction_session_timeout: the session of a
			// process stopped inside a transaction was ended (OpenURLWith),
			// its transaction rolled back.
			pgErr.Code == "25P03":
			return true
		}
		return false // any other answer of the server is an answer
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.As(err, &connectErr), errors.As(err, &netErr),
		pgconn.SafeToRetry(err), pgconn.Timeout(err):
		return true
	}
	// What drivers say without a type of their own.
	msg := err.Error()
	for _, s := range []string{"conn closed", "bad connection", "connection is already closed", "unexpected EOF", "connection reset", "broken pipe"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// refusesWrites reports whether err is that of a database that answers
// but takes no writes now: its disk (or quota) is full, it or its file
// system is read-only, an I/O error. That may pass (space freed, the
// database made writable again), so the writer keeps the batch and tries
// it again, and WaitWritable starts nothing meanwhile (writer.refused).
func refusesWrites(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "53100", // disk_full
			"58030", // io_error
			"25006": // read_only_sql_transaction
			return true
		}
		return false
	}
	var e *sqlite.Error
	if errors.As(err, &e) {
		switch e.Code() & 0xff {
		case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY:
			return true
		}
		return false
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EIO)
}

// retryInPlace reports whether err rolled back a transaction whose
// connection is still good: a deadlock or a serialization failure, which
// the same transaction tried again usually does not meet.
func retryInPlace(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// maxInPlace bounds the tries of a transaction that keeps losing
// deadlocks or serialization conflicts (with a live server).
const maxInPlace = 10

// backoff is how long to wait before try n+1 (n from 0): from 25ms,
// doubling up to maxBackoff, with jitter so that processes that failed
// together do not try again together.
func backoff(n int) time.Duration { return backoffUpTo(n, maxBackoff) }

// maxBackoff is the longest wait between two tries.
const maxBackoff = 2 * time.Second

func backoffUpTo(n int, most time.Duration) time.Duration {
	d := 25 * time.Millisecond << min(n, 7)
	d = max(min(d, most), 2*time.Millisecond)
	return d/2 + rand.N(d/2+1)
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// readTries is how many times a read is tried when it fails transiently:
// enough for the pool to replace a connection that a restart of the
// server broke, not so many that a caller waits long for a database that
// is gone (a reader that must wait for it calls WaitWritable).
const readTries = 4

// read runs a read, trying it again while it fails transiently, at most
// readTries times.
func read[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	for n := 0; ; n++ {
		v, err := fn()
		if err == nil || !transient(err) || n+1 >= readTries || !sleep(ctx, backoff(n)) {
			return v, err
		}
	}
}

// prose is free text as the state records it (a run's or a step's error,
// a step's log): with each NUL byte, and each byte sequence that is not
// UTF-8, as U+FFFD, on both backends.
// PostgreSQL's text holds no NUL and only UTF-8 (SQLSTATE 22021), and a step that
// printed one, or failed with one in its message, would have a result no
// PostgreSQL state could record; SQLite's is made the same, so that a
// run reads alike from either. Outputs are JSON, where a NUL is the
// escape \u0000, recorded as it is.
func prose(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
