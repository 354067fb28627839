package state

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// openStore opens a store in a new temporary directory and closes it, checking
// the error, when the test ends.
func openStore(t testing.TB) *Store {
	t.Helper()
	return openStoreIn(t, t.TempDir())
}

// openStoreIn opens the store of dir: its SQLite database, or, when
// FLOWCTL_TEST_STATE_URL names a PostgreSQL database (.ci/with-postgres
// does), a schema of that database of dir's own, so that the suite runs
// against either backend.
func openStoreIn(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := openAny(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// openSQLiteIn opens the SQLite store of dir, whatever backend the suite
// runs against: for what only the SQLite store has (lock files).
func openSQLiteIn(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openAny opens the store of dir on the backend the suite runs against
// (openStoreIn): a schema of dir's own when pgtest.EnvURL is set.
func openAny(t testing.TB, dir string) (*Store, error) {
	if url := pgtest.URL(t, "t"+strconv.FormatUint(uint64(keyHash(dir)), 16)); url != "" {
		return OpenURL(url)
	}
	return Open(dir)
}

// createRun creates a run of flow with the given ID, started at start.
func createRun(t testing.TB, s *Store, id, flow string, start time.Time) *Run {
	t.Helper()
	r := &Run{ID: id, Flow: flow, StartedAt: start}
	if err := s.CreateRun(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func flush(t testing.TB, s *Store) {
	t.Helper()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
}

func pragma(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

func TestOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", ".flowctl")
	s := openSQLiteIn(t, dir)

	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&^0o022 != 0o755 {
		t.Errorf("state directory: %v, %v; want a directory with mode 0755 (less umask)", fi, err)
	}
	if want := filepath.Join(dir, FileName); s.Path() != want {
		t.Errorf("Path() = %q, want %q", s.Path(), want)
	}
	if _, err := os.Stat(s.Path()); err != nil {
		t.Error(err)
	}
	for name, want := range map[string]string{
		"journal_mode": "wal",
		"synchronous":  "1", // NORMAL
		"foreign_keys": "1",
		"busy_timeout": "10000",
		"temp_store":   "2", // MEMORY
		"user_version": strconv.Itoa(schemaVersion),
	} {
		if got := pragma(t, s.db.DB, name); got != want {
			t.Errorf("PRAGMA %s = %s, want %s", name, got, want)
		}
	}
	if got := pragma(t, s.db.DB, "integrity_check"); got != "ok" {
		t.Errorf("integrity_check: %s", got)
	}
}

// TestOpenOddPath checks that the path reaches SQLite intact through the
// file: URI: spaces, '?', '#' and '%' are escaped.
func TestOpenOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b?c#d%20e")
	s := openSQLiteIn(t, dir)
	createRun(t, s, "", "f", time.Time{})
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Fatalf("the database is not where it was asked for: %v", err)
	}
}

func TestOpenRelativeDir(t *testing.T) {
	t.Chdir(t.TempDir())
	s := openSQLiteIn(t, ".flowctl")
	if !filepath.IsAbs(s.Path()) {
		t.Errorf("Path() = %q, want an absolute path", s.Path())
	}
	if _, err := os.Stat(filepath.Join(".flowctl", FileName)); err != nil {
		t.Fatal(err)
	}
}

func TestOpenErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(file); err == nil {
		s.Close()
		t.Error("Open of a regular file succeeded")
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("not a database, but longer than a header of one hundred bytes..............................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(dir); err == nil {
		s.Close()
		t.Error("Open of a file that is not a database succeeded")
	}
}

func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	s, err := openAny(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	run := createRun(t, s, "", "f", time.Time{})
	s.RecordStep(&StepResult{RunID: run.ID, Step: "a", Status: "ok"})
	s.CachePut("k", "f", "a", json.RawMessage(`1`))
	if err := s.SetMemory("f", "", map[string]json.RawMessage{"m": json.RawMessage(`"v"`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // flushes
		t.Fatal(err)
	}

	s = openStoreIn(t, dir)
	if _, err := s.Run(run.ID); err != nil {
		t.Error(err)
	}
	if steps, err := s.Steps(run.ID); err != nil || len(steps) != 1 {
		t.Errorf("Steps = %v, %v; want the one step recorded before Close", steps, err)
	}
	if v, ok, err := s.CacheGet("k"); err != nil || !ok || string(v) != "1" {
		t.Errorf("CacheGet = %s, %v, %v", v, ok, err)
	}
	if m, err := s.Memory("f", ""); err != nil || string(m["m"]) != `"v"` {
		t.Errorf("Memory = %v, %v", m, err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(dir)
	if err == nil {
		s.Close()
		t.Fatal("Open of a database with schema version 99 succeeded")
	}
	if !strings.Contains(err.Error(), "newer flowctl") {
		t.Errorf("error %q does not say the database is from a newer flowctl", err)
	}
}

// TestMigrateFromEmpty checks that a database without the schema (version
// 0, as SQLite creates it) is migrated, and that Open is idempotent.
func TestMigrateFromEmpty(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE unrelated (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 {
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if v := pragma(t, s.db.DB, "user_version"); v != strconv.Itoa(schemaVersion) {
			t.Errorf("user_version = %s, want %d", v, schemaVersion)
		}
		s.Close()
	}
}

func TestClose(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run := createRun(t, s, "", "f", time.Time{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	if err := s.CreateRun(&Run{Flow: "f"}); !errors.Is(err, ErrClosed) {
		t.Errorf("CreateRun after Close = %v, want ErrClosed", err)
	}
	if err := s.FinishRun(&Run{ID: run.ID, Status: "ok"}); !errors.Is(err, ErrClosed) {
		t.Errorf("FinishRun after Close = %v, want ErrClosed", err)
	}
	if err := s.SetMemory("f", "", map[string]json.RawMessage{"a": nil}); !errors.Is(err, ErrClosed) {
		t.Errorf("SetMemory after Close = %v, want ErrClosed", err)
	}
	s.RecordStep(&StepResult{RunID: run.ID, Step: "a"}) // does nothing, does not block
	s.CachePut("k", "f", "a", nil)
	if _, err := s.Runs("", 0); err == nil {
		t.Error("Runs after Close succeeded")
	}
}

// TestTwoStores opens the same database twice, as two processes would, and
// writes through both at once: the busy timeout makes their writers take
// turns.
func TestTwoStores(t *testing.T) {
	dir := t.TempDir()
	stores := []*Store{openStoreIn(t, dir), openStoreIn(t, dir)}
	var wg sync.WaitGroup
	runs := make([]*Run, len(stores))
	for i, s := range stores {
		runs[i] = createRun(t, s, "", "f", time.Time{})
		wg.Go(func() {
			for j := range 2000 {
				s.RecordStep(&StepResult{RunID: runs[i].ID, Step: "s", Instance: string(rune('a'+j%26)) + strings.Repeat("x", j/26), Status: "ok"})
				if j%500 == 0 {
					if err := s.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
			if err := s.FinishRun(&Run{ID: runs[i].ID, Status: "ok"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, s := range stores {
		for _, r := range runs {
			steps, err := s.Steps(r.ID)
			if err != nil || len(steps) != 2000 {
				t.Errorf("Steps(%s) = %d steps, %v; want 2000", r.ID, len(steps), err)
			}
			if got, err := s.Run(r.ID); err != nil || got.Status != "ok" {
				t.Errorf("Run(%s) = %+v, %v", r.ID, got, err)
			}
		}
	}
}

func TestDSN(t *testing.T) {
	d := dsn("/tmp/x y/state.db")
	if !strings.HasPrefix(d, "file:///tmp/x%20y/state.db?") {
		t.Errorf("dsn = %q", d)
	}
	for _, want := range []string{"busy_timeout%2810000%29", "synchronous%28NORMAL%29", "foreign_keys%28ON%29", "_txlock=immediate"} {
		if !strings.Contains(d, want) {
			t.Errorf("dsn %q lacks %q", d, want)
		}
	}
}

// jsonEqual reports whether two optional JSON values are the same bytes,
// nil being distinct from empty.
func jsonEqual(a, b json.RawMessage) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

func TestReady(t *testing.T) {
	s := openStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Ready(ctx); err == nil {
		t.Fatal("Ready of a closed store: no error")
	}
}
