package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// The tests of this file restart, stop and crash a PostgreSQL cluster of
// the package's own (pgtest.SharedCluster), never the shared one of
// EnvURL that other tests use; each keeps to a schema of its own.

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// cluster is the package's cluster, and the URL of a schema of the
// test's.
func cluster(t *testing.T) (*pgtest.Cluster, string) {
	c := pgtest.SharedCluster(t)
	return c, c.Schema("t" + strings.ToLower(strings.TrimPrefix(t.Name(), "Test")))
}

// openCluster opens a store on the database of url with o, closed when
// the test ends.
func openCluster(t *testing.T, url string, o Options) *Store {
	t.Helper()
	s, err := OpenURLWith(url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestWriterSurvivesRestarts records step results and cache entries while
// the database restarts (fast and immediate) and crashes (kill -9 of the
// postmaster), and checks that every result handed over is recorded once
// it is back, that the writes before and after report no error, and that
// WaitWritable waits for the database rather than failing.
func TestWriterSurvivesRestarts(t *testing.T) {
	c, url := cluster(t)
	s := openCluster(t, url, Options{Wait: 2 * time.Minute})
	run := createRun(t, s, "", "f", time.Time{})
	n := 0
	record := func(count int) {
		for range count {
			s.RecordStep(&StepResult{RunID: run.ID, Step: "s", Instance: strconv.Itoa(n), Status: "ok", Outputs: json.RawMessage(strconv.Itoa(n))})
			s.CachePut("k"+strconv.Itoa(n), "f", "s", json.RawMessage(strconv.Itoa(n)))
			n++
		}
	}
	ctx := context.Background()
	for _, fault := range []string{"fast", "immediate", "kill"} {
		record(50)
		flush(t, s)
		switch fault {
		case "kill":
			c.Kill()
		default:
			c.Stop(fault)
		}
		// Handed over while the database is away: kept, and written when
		// it is back.
		record(50)
		waited := make(chan error, 1)
		go func() { waited <- s.WaitWritable(ctx, run.ID) }()
		time.Sleep(300 * time.Millisecond)
		c.Start()
		if err := <-waited; err != nil {
			t.Fatalf("%s: WaitWritable = %v", fault, err)
		}
		record(50)
		if err := s.Flush(); err != nil {
			t.Fatalf("%s: Flush = %v", fault, err)
		}
	}
	if err := s.FinishRun(&Run{ID: run.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	steps, err := s.Steps(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != n {
		t.Fatalf("%d step results recorded, want %d", len(steps), n)
	}
	for i := range n {
		if v, ok, err := s.CacheGet("k" + strconv.Itoa(i)); err != nil || !ok || string(v) != strconv.Itoa(i) {
			t.Fatalf("cache entry %d: %s, %v, %v", i, v, ok, err)
		}
	}
	if r, err := s.Run(run.ID); err != nil || r.Status != "ok" {
		t.Fatalf("run: %+v, %v", r, err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestWaitBounded: a database that does not come back within the wait
// fails WaitWritable and the writes handed over with ErrUnavailable; the
// store works again once it is back.
func TestWaitBounded(t *testing.T) {
	c, url := cluster(t)
	s := openCluster(t, url, Options{Wait: time.Second})
	run := createRun(t, s, "", "f", time.Time{})
	c.Stop("fast")
	s.RecordStep(&StepResult{RunID: run.ID, Step: "lost", Status: "ok"})
	ctx := context.Background()
	if err := s.Flush(); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Flush with the database stopped = %v, want ErrUnavailable", err)
	}
	if err := s.WaitWritable(ctx, run.ID); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("WaitWritable with the database stopped = %v, want ErrUnavailable", err)
	}
	if err := s.Ready(ctx); err == nil {
		t.Fatal("Ready with the database stopped = nil")
	}
	c.Start()
	deadline := time.Now().Add(time.Minute)
	for s.WaitWritable(ctx, run.ID) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the store did not come back within a minute of the database")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.RecordStep(&StepResult{RunID: run.ID, Step: "kept", Status: "ok"})
	if err := s.FinishRun(&Run{ID: run.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	steps, err := s.Steps(run.ID)
	if err != nil || len(steps) != 1 || steps[0].Step != "kept" {
		t.Fatalf("steps = %v, %v; want kept alone", steps, err)
	}
}

// TestLeaseSurvivesRestart: two processes on one database through a
// restart: neither takes the other's running run for abandoned, however
// often it reaps, and both go on writing.
func TestLeaseSurvivesRestart(t *testing.T) {
	c, url := cluster(t)
	o := Options{Wait: 2 * time.Minute, Lease: 2 * time.Second}
	a, b := openCluster(t, url, o), openCluster(t, url, o)
	ra := createRun(t, a, "", "f", time.Time{})
	rb := createRun(t, b, "", "f", time.Time{})
	for _, fault := range []string{"fast", "immediate", "kill"} {
		switch fault {
		case "kill":
			c.Crash()
		default:
			c.Restart(fault)
		}
		// Reap, as the heartbeats do too, for longer than two leases:
		// after a restart of the database the leases of both look
		// expired to it, but it has not been up for long enough to judge,
		// and then they are renewed.
		for range 5 {
			for _, s := range []*Store{a, b} {
				if reaped, err := s.reapInterrupted(); err != nil || len(reaped) > 0 {
					t.Fatalf("%s: reaped %v, %v; want nothing", fault, reaped, err)
				}
			}
			time.Sleep(o.Lease / 2)
		}
		for _, r := range []*Run{ra, rb} {
			got, err := a.Run(r.ID)
			if err != nil || got.Status != "running" {
				t.Fatalf("%s: run %s is %+v, %v; want running", fault, r.ID, got, err)
			}
		}
	}
	for _, p := range []struct {
		s *Store
		r *Run
	}{{a, ra}, {b, rb}} {
		p.s.RecordStep(&StepResult{RunID: p.r.ID, Step: "after", Status: "ok"})
		if err := p.s.FinishRun(&Run{ID: p.r.ID, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLeaseExpired: a process that stops renewing its lease (frozen, or
// cut off from the database) has its running runs recorded as
// interrupted by another; when it comes back, it writes nothing more for
// them — the other may have resumed them — and goes on with new runs.
func TestLeaseExpired(t *testing.T) {
	_, url := cluster(t)
	o := Options{Wait: 2 * time.Minute, Lease: 300 * time.Millisecond}
	a, b := openCluster(t, url, o), openCluster(t, url, o)
	run := createRun(t, a, "", "f", time.Time{})
	a.RecordStep(&StepResult{RunID: run.ID, Step: "before", Status: "ok"})
	flush(t, a)

	// a freezes (no heartbeat, no write), on another machine: judged by
	// its lease.
	a.stop <- struct{}{}
	otherMachine(t, a)
	time.Sleep(3 * o.Lease) // its lease expires, and a lease more passes
	// b's heartbeat reaps it, or this does.
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := b.reapInterrupted(); err != nil {
			t.Fatal(err)
		}
		r, err := b.Run(run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == StatusInterrupted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run of a process whose lease expired is still %s after a minute", r.Status)
		}
		time.Sleep(o.Lease)
	}
	// b resumes it.
	if err := b.ReopenRun(run.ID, nil); err != nil {
		t.Fatal(err)
	}

	// a comes back: its run is not its own any more.
	ctx := context.Background()
	if err := a.WaitWritable(ctx, run.ID); err == nil {
		// a does not know yet: it learns at its next write.
		a.RecordStep(&StepResult{RunID: run.ID, Step: "late", Status: "ok"})
		if err := a.Flush(); !errors.Is(err, ErrRunTaken) {
			t.Fatalf("a's write for the run b took = %v, want ErrRunTaken", err)
		}
	}
	if err := a.WaitWritable(ctx, run.ID); !errors.Is(err, ErrRunTaken) {
		t.Fatalf("WaitWritable of a taken run = %v, want ErrRunTaken", err)
	}
	if err := a.FinishRun(&Run{ID: run.ID, Status: "ok"}); !errors.Is(err, ErrRunTaken) {
		t.Fatalf("FinishRun of a taken run = %v, want ErrRunTaken", err)
	}
	// a's new runs are its own, under a new lease.
	fresh := createRun(t, a, "", "f", time.Time{})
	if err := a.FinishRun(&Run{ID: fresh.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	// b finishes the run it took; a's late write is not in it.
	b.RecordStep(&StepResult{RunID: run.ID, Step: "resumed", Status: "ok"})
	if err := b.FinishRun(&Run{ID: run.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	steps, err := b.Steps(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range steps {
		names = append(names, s.Step)
	}
	if fmt.Sprint(names) != "[before resumed]" {
		t.Fatalf("steps of the run = %v, want [before resumed]", names)
	}
}

// TestSameMachineDeadOwner: a process on this machine that is gone has
// its runs reaped at once, without waiting for its lease.
func TestSameMachineDeadOwner(t *testing.T) {
	_, url := cluster(t)
	a := openCluster(t, url, Options{})
	run := createRun(t, a, "", "f", time.Time{})
	// A live process of this machine keeps its runs, however late its
	// lease.
	if _, err := a.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `UPDATE owners SET expires_at = 0 WHERE id = ?`, a.owner.id())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	a.stop <- struct{}{}
	late := openCluster(t, url, Options{Lease: 100 * time.Millisecond})
	time.Sleep(300 * time.Millisecond)
	if reaped, err := late.reapInterrupted(); err != nil || len(reaped) > 0 {
		t.Fatalf("a live process of this machine with its lease expired: reaped %v, %v", reaped, err)
	}
	// Make a's row say it is a process of this machine that has gone (a
	// PID no process has, same boot and namespace).
	me := thisProcess()
	if me.token == "" {
		t.Skip("processes are not identified on this system")
	}
	head, _, _ := cutLast(me.token)
	if _, err := a.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `UPDATE owners SET pid = ?, process = ? WHERE id = ?`, 1<<22+7, head+" 12345", a.owner.id())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b := openCluster(t, url, Options{})
	if r, err := b.Run(run.ID); err != nil || r.Status != StatusInterrupted {
		t.Fatalf("the run of a dead process on this machine: %+v, %v; want interrupted", r, err)
	}
}

// TestConcurrentCacheWrites: two processes storing the same cache entries
// in opposite orders, many times, in batches that interleave: no write
// fails (a deadlock is avoided by the order of the keys, or tried again).
func TestConcurrentCacheWrites(t *testing.T) {
	url := pgtest.URL(t, "tconcurrentcache")
	if url == "" {
		t.Skip("no PostgreSQL (" + pgtest.EnvURL + ")")
	}
	stores := []*Store{}
	for range 2 {
		s, err := OpenURL(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	const keys = 300
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			for round := range 20 {
				for k := range keys {
					if i == 1 {
						k = keys - 1 - k
					}
					s.CachePut(fmt.Sprintf("key-%d", k), "f", "s", json.RawMessage(strconv.Itoa(round)))
				}
				if err := s.Flush(); err != nil {
					t.Errorf("store %d, round %d: %v", i, round, err)
				}
			}
		})
	}
	wg.Wait()
}

// TestSchemaUpgradeRefused: a process opening a shared database of an
// older schema refuses it unless told to migrate; flowctl state migrate's
// dry run shows the statements and changes nothing.
func TestSchemaUpgradeRefused(t *testing.T) {
	url := pgtest.URL(t, "tschemaold")
	if url == "" {
		t.Skip("no PostgreSQL (" + pgtest.EnvURL + ")")
	}
	s, err := OpenURL(url)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// As an older flowctl left it: one migration short (22 undone).
	for _, q := range []string{
		`DROP TABLE run_versions`, `DROP TABLE flow_versions`, `DROP TABLE run_pauses`,
		`ALTER TABLE approvals DROP COLUMN fields`, `ALTER TABLE approvals DROP COLUMN inputs`,
		fmt.Sprintf(`UPDATE schema_version SET version = %d`, schemaVersion-1),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	_, err = OpenURL(url)
	var se *SchemaError
	if !errors.As(err, &se) || se.Version != schemaVersion-1 || !errors.Is(err, ErrSchemaOld) {
		t.Fatalf("OpenURL of an older schema = %v, want a SchemaError", err)
	}
	ctx := context.Background()
	m, err := MigrateURL(ctx, url, true)
	if err != nil || m.From != schemaVersion-1 || m.To != schemaVersion || len(m.Statements) != 1 {
		t.Fatalf("dry run = %+v, %v", m, err)
	}
	if _, err := OpenURL(url); !errors.As(err, &se) {
		t.Fatalf("after the dry run: %v, want the schema still old", err)
	}
	s, err = OpenURLWith(url, Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if m, err := MigrateURL(ctx, url, false); err != nil || m.From != schemaVersion || len(m.Statements) != 0 {
		t.Fatalf("migrating an up-to-date database = %+v, %v", m, err)
	}
}

// otherMachine makes s's row say it runs on another machine, whose
// processes are judged by their leases alone.
func otherMachine(t testing.TB, s *Store) {
	t.Helper()
	if _, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `UPDATE owners SET host = 'elsewhere', process = 'another-machine 1' WHERE id = ?`, s.owner.id())
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestLapsedLease: a process whose lease lapsed (it was stopped, SIGSTOP,
// for longer than two leases, and another process took its runs) starts
// nothing more for them: WaitWritable renews the lease before it answers,
// and the renewal finds the runs taken. A process whose lease lapsed
// without anyone taking its runs renews it and goes on.
func TestLapsedLease(t *testing.T) {
	_, url := cluster(t)
	a := openCluster(t, url, Options{Lease: 2 * time.Second})
	run := createRun(t, a, "", "f", time.Time{})
	kept := createRun(t, a, "", "g", time.Time{})
	a.stop <- struct{}{} // no heartbeat: a is stopped
	otherMachine(t, a)
	l := a.owner.(*lease)
	ctx := context.Background()
	// Lapsed, and nobody took the runs: renewed, kept.
	l.validUntil.Store(0)
	if err := a.WaitWritable(ctx, kept.ID); err != nil {
		t.Fatalf("a lapsed lease nobody took: %v", err)
	}
	if !l.valid() {
		t.Error("WaitWritable left the lease lapsed")
	}
	// Lapsed for longer than two leases: b takes the runs.
	if _, err := a.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `UPDATE owners SET expires_at = 0 WHERE id = ?`, l.id())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b := openCluster(t, url, Options{Lease: 100 * time.Millisecond})
	if r, err := b.Run(run.ID); err != nil || r.Status != StatusInterrupted {
		t.Fatalf("the run of the stopped process: %+v, %v; want interrupted", r, err)
	}
	// a goes on: its monotonic clock ran on while it was stopped.
	l.validUntil.Store(0)
	if err := a.WaitWritable(ctx, run.ID); !errors.Is(err, ErrRunTaken) {
		t.Errorf("a step of a run taken while its process was stopped: WaitWritable = %v, want ErrRunTaken", err)
	}
}

// TestStoppedMidTransaction: a process stopped (SIGSTOP) inside a
// transaction of its writer, which locks its owners row (mark), does not
// keep another process from taking its runs: the database ends the
// stopped process's session a lease after its last statement, and its
// lock goes with it. Before, the other's reap waited on the lock for as
// long as the process stayed stopped, and with it every write of the
// other process.
func TestStoppedMidTransaction(t *testing.T) {
	_, url := cluster(t)
	a := openCluster(t, url, Options{Lease: 500 * time.Millisecond})
	run := createRun(t, a, "", "f", time.Time{})
	a.stop <- struct{}{} // no heartbeat: a is stopped
	otherMachine(t, a)
	if _, err := a.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `UPDATE owners SET expires_at = 0 WHERE id = ?`, a.owner.id())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// A transaction of a's, stopped after it locked a's row, as the
	// writer's is when the process stops between two statements.
	tx, err := a.db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`UPDATE owners SET batch = batch WHERE id = $1`, a.owner.id()); err != nil {
		t.Fatal(err)
	}
	opened := make(chan *Store, 1)
	go func() {
		b, err := OpenURLWith(url, Options{Lease: 100 * time.Millisecond})
		if err != nil {
			t.Error(err)
		}
		opened <- b
	}()
	select {
	case b := <-opened:
		if b == nil {
			return
		}
		defer b.Close()
		if r, err := b.Run(run.ID); err != nil || r.Status != StatusInterrupted {
			t.Fatalf("the run of the process stopped in a transaction: %+v, %v; want interrupted", r, err)
		}
		// a goes on: its transaction was rolled back with its session,
		// and its writer, on a new connection, finds its runs taken.
		if err := tx.Commit(); err == nil {
			t.Error("the transaction of the stopped process committed after its session was ended")
		}
		a.owner.(*lease).validUntil.Store(0)
		if err := a.WaitWritable(context.Background(), run.ID); !errors.Is(err, ErrRunTaken) {
			t.Errorf("a step of a run taken while its process was stopped: WaitWritable = %v, want ErrRunTaken", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("another process waits for the lock of a process stopped in a transaction (2 minutes)")
	}
}
