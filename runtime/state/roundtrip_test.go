package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state/pgtest"
	"github.com/jackc/pgx/v5"
)

// tripCounter is a pgx tracer that counts the round trips to the
// database: a statement sent alone, by its text, or a pipeline of them
// (a pgx Batch).
type tripCounter struct {
	mu sync.Mutex
	by map[string]int
}

func (c *tripCounter) count(what string) {
	c.mu.Lock()
	c.by[what]++
	c.mu.Unlock()
}

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.count(strings.Join(strings.Fields(d.SQL), " "))
	return ctx
}

func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	c.count("(a pipeline)")
	return ctx
}

func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// perRun is how many of the round trips counted are for runs'
// bookkeeping (all but those each transaction of the writer makes once,
// BEGIN, COMMIT and its lease's renewal, and the lease's upkeep and
// pings), how many in all, and which.
func (c *tripCounter) perRun() (int, int, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, all := 0, 0
	var list []string
	for q, k := range c.by {
		all += k
		list = append(list, fmt.Sprintf("%5d %.70s", k, q))
		if q == "BEGIN" || q == "COMMIT" || strings.Contains(q, "owners") || strings.HasPrefix(q, "-- ping") {
			continue
		}
		n += k
	}
	sort.Strings(list)
	return n, all, list
}

// TestRoundTripsPerRun counts the round trips to PostgreSQL of the
// bookkeeping of a run as serve keeps it, with many runs at once:
// recorded queued (QueueRun), started (StartQueued), three step results
// and six events, finished (FinishRun). Each round trip is one of the
// writer's one connection, which all runs of a process wait for in turn:
// they bound a server's runs per second. A run cost 15 and its share of
// its transactions' BEGIN, lease mark and COMMIT (each write a statement
// in a SAVEPOINT and a RELEASE of its own, and its rows written before
// each write that followed them); a transaction of the writer, with its
// writes and everyone's in its batch, is now one round trip (a
// pipeline).
func TestRoundTripsPerRun(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	counter := &tripCounter{by: map[string]int{}}
	pgTracer = counter
	url := pgtest.URL(t, "roundtrips_"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if url == "" {
		pgTracer = nil
		t.Skip("round trips are PostgreSQL's: " + pgtest.EnvURL + " is not set")
	}
	s, err := OpenURL(url)
	pgTracer = nil
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const runs, clients = 200, 32
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	next := make(chan int, runs)
	for i := range runs {
		next <- i
	}
	close(next)
	counter.mu.Lock()
	clear(counter.by)
	counter.mu.Unlock()
	for range clients {
		wg.Go(func() {
			for i := range next {
				if err := bookkeeping(s, i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n, all, list := counter.perRun()
	t.Logf("%d round trips for %d runs, %d of them for their bookkeeping:\n%s", all, runs, n, strings.Join(list, "\n"))
	if all > 3*runs {
		t.Errorf("%d round trips for %d runs (%.1f a run, %d of them for their bookkeeping), want at most 3 a run: a transaction for each of the run's three writes, at most, sent in one pipeline with its BEGIN, its rows and its COMMIT", all, runs, float64(all)/runs, n)
	}
	// And everything is recorded.
	for i := range runs {
		id := fmt.Sprintf("rt-%03d", i)
		r, err := s.Run(id)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := s.Steps(id)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := s.Events(id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "ok" || len(steps) != 3 || len(evs) != 6 {
			t.Fatalf("run %s: %s, %d step results, %d events; want ok, 3, 6", id, r.Status, len(steps), len(evs))
		}
	}
}

// bookkeeping records run i as serve does: queued, started, its steps'
// results and events, finished.
func bookkeeping(s *Store, i int) error {
	id := fmt.Sprintf("rt-%03d", i)
	r := &Run{ID: id, Flow: "f", Inputs: json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)}
	if _, err := s.QueueRun(r, nil, time.Time{}); err != nil {
		return err
	}
	if err := s.StartQueued(id, time.Now(), ""); err != nil {
		return err
	}
	seq := int64(0)
	event := func(typ string) {
		seq++
		s.RecordEvent(Event{RunID: id, Seq: seq, Type: typ, Data: json.RawMessage(`{}`)})
	}
	event("run_started")
	for _, step := range []string{"a", "b", "c"} {
		s.RecordStep(&StepResult{RunID: id, Step: step, Status: "ok", Attempts: 1, Outputs: json.RawMessage(`"` + step + `"`)})
		event("step_finished")
	}
	if err := s.FinishRun(&Run{ID: id, Status: "ok", Outputs: json.RawMessage(`{}`)}); err != nil {
		return err
	}
	event("run_finished")
	event("end")
	return s.FlushRun(id)
}

// TestFailedOpAmongOthers hands over, in one batch, ops that succeed
// around others that fail: a run whose ID exists, an op that ignores the
// error of its statement, a run started that is not queued, a run
// finished that does not exist. The batch is written first without savepoints
// on PostgreSQL (writer.hopeful), where the failure aborts the
// transaction: it is written again, carefully, and only the failed ops
// fail. (An op that ignored its statement's error would otherwise have
// made COMMIT roll the batch back without an error.)
func TestFailedOpAmongOthers(t *testing.T) {
	s := openStore(t)
	a := createRun(t, s, "a", "f", time.Time{})
	release := blockWriter(t, s)
	s.w.mu.Lock()
	queued := s.w.seq
	s.w.mu.Unlock()
	s.RecordStep(&StepResult{RunID: a.ID, Step: "s", Status: "ok", Outputs: json.RawMessage(`1`)})
	type result struct {
		name string
		err  error
	}
	results := make(chan result, 8)
	ops := []struct {
		name string
		fn   func() error
	}{
		{"duplicate", func() error { return s.CreateRun(&Run{ID: "a", Flow: "f"}) }},
		{"b", func() error { return s.CreateRun(&Run{ID: "b", Flow: "f"}) }},
		{"ignores", func() error {
			_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
				st.conn.ExecContext(ctx, `SELECT no_such_column FROM runs`)
				return nil
			})
			return err
		}},
		{"finish", func() error { return s.FinishRun(&Run{ID: "a", Status: "ok"}) }},
		// Piped ops (pipeline.go) that fail, and one that does not.
		{"queue duplicate", func() error { _, err := s.QueueRun(&Run{ID: "a", Flow: "f"}, nil, time.Time{}); return err }},
		{"queue c", func() error { _, err := s.QueueRun(&Run{ID: "c", Flow: "f"}, nil, time.Time{}); return err }},
		{"start running", func() error { return s.StartQueued("b", time.Now(), "") }},
		{"finish unknown", func() error { return s.FinishRun(&Run{ID: "nosuchrun", Status: "ok"}) }},
	}
	for n, op := range ops {
		// One at a time, in this order, all in the blocked batch.
		go func() { results <- result{op.name, op.fn()} }()
		for {
			s.w.mu.Lock()
			in := s.w.seq - queued
			s.w.mu.Unlock()
			if in == uint64(n)+2 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	release()
	got := map[string]error{}
	for range ops {
		r := <-results
		got[r.name] = r.err
	}
	if err := got["duplicate"]; !errors.Is(err, ErrRunExists) {
		t.Errorf("CreateRun of an existing ID: %v, want ErrRunExists", err)
	}
	if err := got["queue duplicate"]; !errors.Is(err, ErrRunExists) {
		t.Errorf("QueueRun of an existing ID: %v, want ErrRunExists", err)
	}
	if err := got["start running"]; !errors.Is(err, ErrNotQueued) {
		t.Errorf("StartQueued of a running run: %v, want ErrNotQueued", err)
	}
	if err := got["finish unknown"]; !errors.Is(err, ErrRunNotFound) {
		t.Errorf("FinishRun of an unknown run: %v, want ErrRunNotFound", err)
	}
	if c, err := s.Run("c"); err != nil || c.Status != StatusQueued {
		t.Errorf("run c: %+v, %v; want it recorded queued", c, err)
	}
	for _, name := range []string{"b", "finish", "queue c"} {
		if got[name] != nil {
			t.Errorf("%s: %v", name, got[name])
		}
	}
	if b, err := s.Run("b"); err != nil || b.Status != "running" {
		t.Errorf("run b: %+v, %v; want it recorded running", b, err)
	}
	if a, err := s.Run("a"); err != nil || a.Status != "ok" {
		t.Errorf("run a: %+v, %v; want it finished ok", a, err)
	}
	if steps, err := s.Steps("a"); err != nil || len(steps) != 1 || string(steps[0].Outputs) != "1" {
		t.Errorf("steps of run a: %+v, %v; want its one result", steps, err)
	}
}
