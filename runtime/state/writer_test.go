package state

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestStepRoundTrip(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	start := time.Unix(0, 1_700_000_000_000_000_001)
	want := &StepResult{
		RunID:      run.ID,
		Step:       "fetch",
		Instance:   `"https://example.com"`,
		Status:     "ok",
		Attempts:   3,
		StartedAt:  start,
		FinishedAt: start.Add(time.Second),
		Outputs:    json.RawMessage(`{"body": "(sensitive)"}`),
		Sensitive:  true,
		Error:      "",
		CacheKey:   "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4",
		Usage:      json.RawMessage(`{"prompt_tokens":1}`),
	}
	s.RecordStep(want)
	bare := &StepResult{RunID: run.ID, Step: "skipped", Status: "skipped", Error: "upstream failed"}
	s.RecordStep(bare)
	flush(t, s)

	steps, err := s.Steps(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 {
		t.Fatalf("Steps = %d results, want 2", len(steps))
	}
	checkStep(t, steps[0], want)
	checkStep(t, steps[1], bare) // never started: last
}

func checkStep(t *testing.T, got, want *StepResult) {
	t.Helper()
	if got.RunID != want.RunID || got.Step != want.Step || got.Instance != want.Instance ||
		got.Status != want.Status || got.Attempts != want.Attempts ||
		!got.StartedAt.Equal(want.StartedAt) || !got.FinishedAt.Equal(want.FinishedAt) ||
		!jsonEqual(got.Outputs, want.Outputs) || got.Sensitive != want.Sensitive ||
		got.Error != want.Error || got.CacheKey != want.CacheKey || !jsonEqual(got.Usage, want.Usage) {
		t.Errorf("step result:\n got %+v\nwant %+v", got, want)
	}
}

// TestRecordStepCopies checks that RecordStep keeps the values, not the
// pointer: the caller may reuse its StepResult at once.
func TestRecordStepCopies(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	r := &StepResult{RunID: run.ID, Step: "a", Status: "ok"}
	s.RecordStep(r)
	r.Step, r.Status = "b", "failed"
	s.RecordStep(r)
	flush(t, s)
	steps, err := s.Steps(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, st := range steps {
		got += st.Step + "=" + st.Status + " "
	}
	if got != "a=ok b=failed " {
		t.Errorf("recorded %q, want a=ok b=failed", got)
	}
}

func TestStepsOrder(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	t0 := time.Unix(1_700_000_000, 0)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	for _, r := range []*StepResult{
		{Step: "never", FinishedAt: at(9)},
		{Step: "third", StartedAt: at(3), FinishedAt: at(4)},
		{Step: "first", StartedAt: at(1), FinishedAt: at(5)},
		{Step: "tie", Instance: "1", StartedAt: at(2), FinishedAt: at(3)},
		{Step: "tie", Instance: "0", StartedAt: at(2), FinishedAt: at(3)},
		{Step: "early", StartedAt: at(2), FinishedAt: at(2)},
		{Step: "also_never"},
	} {
		r.RunID, r.Status = run.ID, "ok"
		s.RecordStep(r)
	}
	other := createRun(t, s, "", "f", time.Time{})
	s.RecordStep(&StepResult{RunID: other.ID, Step: "other", StartedAt: at(0)})
	flush(t, s)

	steps, err := s.Steps(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range steps {
		got = append(got, st.Step+instanceSuffix(st.Instance))
	}
	want := "first early tie[0] tie[1] third also_never never"
	if strings.Join(got, " ") != want {
		t.Errorf("Steps order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if steps, err := s.Steps("nosuchrun"); err != nil || len(steps) != 0 {
		t.Errorf("Steps of an unknown run = %v, %v; want none", steps, err)
	}
}

// TestRecordStepUpsert records the same step instance several times, in
// one batch (some in one multi-row statement) and across batches: the last
// one handed over wins.
func TestRecordStepUpsert(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	release := blockWriter(t, s)
	for i := 1; i <= 2*rowsPerStatement+3; i++ {
		s.RecordStep(&StepResult{RunID: run.ID, Step: "a", Status: "running", Attempts: i})
		s.RecordStep(&StepResult{RunID: run.ID, Step: "b", Instance: fmt.Sprint(i % 2), Attempts: i})
	}
	release()
	flush(t, s)
	s.RecordStep(&StepResult{RunID: run.ID, Step: "a", Status: "ok", Attempts: 100, Outputs: json.RawMessage(`1`)})
	flush(t, s)

	steps, err := s.Steps(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, st := range steps {
		got[st.Step+instanceSuffix(st.Instance)] = st.Attempts
	}
	want := map[string]int{"a": 100, "b[0]": 2*rowsPerStatement + 2, "b[1]": 2*rowsPerStatement + 3}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after upserts: %v, want %v", got, want)
	}
}

// TestRowsOneStatement records, in one batch, fewer rows than
// rowsPerStatement, among them a step's running and finished rows: they
// are written in one statement (they were written one by one, a round
// trip each and, on PostgreSQL, a savepoint's two more), and the last row
// of each step instance wins.
func TestRowsOneStatement(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	release := blockWriter(t, s)
	before := s.w.rowStatements.Load()
	for _, step := range []string{"a", "b", "c"} {
		s.RecordStep(&StepResult{RunID: run.ID, Step: step, Status: "running", Attempts: 1})
		s.RecordStep(&StepResult{RunID: run.ID, Step: step, Status: "ok", Attempts: 1, Outputs: json.RawMessage(`"` + step + `"`)})
	}
	release()
	flush(t, s)
	if n := s.w.rowStatements.Load() - before; n != 1 {
		t.Errorf("%d statements wrote the rows, want 1", n)
	}
	steps, err := s.Steps(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, st := range steps {
		got[st.Step] = st.Status + " " + string(st.Outputs)
	}
	if want := map[string]string{"a": `ok "a"`, "b": `ok "b"`, "c": `ok "c"`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("steps %v, want %v", got, want)
	}
}

// blockWriter makes the writer wait, inside a transaction, until release
// is called, so that the writes handed over meanwhile form one batch.
func blockWriter(t *testing.T, s *Store) (release func()) {
	t.Helper()
	started, unblock := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.w.do(func(context.Context, *writerStmts) error {
			close(started)
			<-unblock
			return nil
		})
		done <- err
	}()
	<-started
	return func() {
		close(unblock)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func (w *writer) commitCount() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.commits
}

// TestGroupCommit checks that the writes handed over while the writer is
// busy are committed together, in one transaction.
func TestGroupCommit(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	release := blockWriter(t, s)
	before := s.w.commitCount()
	const n = 1000
	for i := range n {
		s.RecordStep(&StepResult{RunID: run.ID, Step: "s", Instance: fmt.Sprint(i), Status: "ok"})
		s.CachePut(fmt.Sprint("key", i), "f", "s", json.RawMessage(`{}`))
	}
	release()
	flush(t, s)
	if got := s.w.commitCount() - before; got != 2 {
		t.Errorf("%d transactions for the blocked batch and %d writes handed over meanwhile, want 2", got, 2*n)
	}
	if steps, err := s.Steps(run.ID); err != nil || len(steps) != n {
		t.Errorf("Steps = %d results, %v; want %d", len(steps), err, n)
	}
}

// TestIdleCommit checks that an idle writer commits a row at once, without
// waiting for a Flush.
func TestIdleCommit(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	s.RecordStep(&StepResult{RunID: run.ID, Step: "s", Status: "ok"})
	s.CachePut("k", "f", "s", json.RawMessage(`true`))
	deadline := time.Now().Add(10 * time.Second)
	for {
		steps, err := s.Steps(run.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := s.CacheGet("k")
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) == 1 && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not committed after 10s without Flush: %d steps, cache entry %v", len(steps), ok)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCache(t *testing.T) {
	s := openStore(t)
	if v, ok, err := s.CacheGet("k1"); v != nil || ok || err != nil {
		t.Errorf("CacheGet of a missing key = %s, %v, %v", v, ok, err)
	}
	s.CachePut("k1", "f", "a", json.RawMessage(`{"n": 1}`))
	s.CachePut("k2", "f", "b", nil)
	flush(t, s)
	if v, ok, err := s.CacheGet("k1"); string(v) != `{"n": 1}` || !ok || err != nil {
		t.Errorf("CacheGet(k1) = %s, %v, %v", v, ok, err)
	}
	if v, ok, err := s.CacheGet("k2"); v != nil || !ok || err != nil {
		t.Errorf("CacheGet(k2) = %s, %v, %v; want nil outputs, found", v, ok, err)
	}

	// Upsert.
	s.CachePut("k1", "f", "a", json.RawMessage(`{"n": 2}`))
	flush(t, s)
	if v, _, _ := s.CacheGet("k1"); string(v) != `{"n": 2}` {
		t.Errorf("after a second CachePut, CacheGet(k1) = %s", v)
	}
	var n int
	if err := s.db.QueryRow("SELECT count(*) FROM cache").Scan(&n); err != nil || n != 2 {
		t.Errorf("%d cache rows, %v; want 2", n, err)
	}

	// A slot holding another key with the same hash is a miss.
	if _, err := s.db.Exec("UPDATE cache SET key = 'other' WHERE key = 'k1'"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.CacheGet("k1"); v != nil || ok || err != nil {
		t.Errorf("CacheGet of a key whose slot another key holds = %s, %v, %v; want a miss", v, ok, err)
	}
}

func TestKeyHash(t *testing.T) {
	// FNV-1a test vectors.
	for in, want := range map[string]uint64{
		"":       0xcbf29ce484222325,
		"a":      0xaf63dc4c8601ec8c,
		"foobar": 0x85944171f73967e8,
	} {
		if got := uint64(keyHash(in)); got != want {
			t.Errorf("keyHash(%q) = %#x, want %#x", in, got, want)
		}
	}
}

func TestMemory(t *testing.T) {
	s := openStore(t)
	set := func(flow, ns string, kv ...string) {
		t.Helper()
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		if err := s.SetMemory(flow, ns, m); err != nil {
			t.Fatal(err)
		}
	}
	get := func(flow, ns string) string {
		t.Helper()
		m, err := s.Memory(flow, ns)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			t.Errorf("Memory(%q, %q) is nil, want a map", flow, ns)
		}
		return fmt.Sprint(m)
	}
	if got := get("f", ""); got != "map[]" {
		t.Errorf("empty memory = %s", got)
	}
	set("f", "", "count", "1", "notes", `["a"]`)
	set("f", "alice", "count", "10")
	set("g", "", "count", "100")
	set("f", "", "count", "2") // the other names keep their values
	set("f", "")               // nothing to store

	for _, tc := range []struct{ flow, ns, want string }{
		{"f", "", `map[count:[50] notes:[91 34 97 34 93]]`},
		{"f", "default", `map[count:[50] notes:[91 34 97 34 93]]`},
		{"f", "alice", `map[count:[49 48]]`},
		{"f", "bob", `map[]`},
		{"g", "", `map[count:[49 48 48]]`},
	} {
		if got := get(tc.flow, tc.ns); got != tc.want {
			t.Errorf("Memory(%q, %q) = %s, want %s", tc.flow, tc.ns, got, tc.want)
		}
	}

	if err := s.SetMemory("f", "", map[string]json.RawMessage{"gone": nil}); err != nil {
		t.Fatal(err)
	}
	m, _ := s.Memory("f", "")
	if v, ok := m["gone"]; !ok || v != nil {
		t.Errorf("a nil value came back as %q, %v; want nil, present", v, ok)
	}
}

// TestSetMemoryAtomic checks that SetMemory is applied entirely or not at
// all: a failing value undoes the ones before it, and only those.
func TestSetMemoryAtomic(t *testing.T) {
	s := openSQLiteIn(t, t.TempDir())
	if err := s.SetMemory("f", "", map[string]json.RawMessage{"a": json.RawMessage(`1`)}); err != nil {
		t.Fatal(err)
	}
	// A trigger makes the value "bad" fail; "a" sorts before it and is
	// written first.
	if _, err := s.db.Exec(`CREATE TRIGGER no_bad BEFORE INSERT ON memory WHEN NEW.name = 'bad'
		BEGIN SELECT RAISE(ABORT, 'bad memory'); END`); err != nil {
		t.Fatal(err)
	}
	run := createRun(t, s, "", "f", time.Time{})
	release := blockWriter(t, s)
	s.RecordStep(&StepResult{RunID: run.ID, Step: "same_batch", Status: "ok"})
	errc := make(chan error)
	go func() {
		errc <- s.SetMemory("f", "", map[string]json.RawMessage{"a": json.RawMessage(`2`), "bad": json.RawMessage(`3`)})
	}()
	waitQueued(t, s, 2)
	release()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "bad memory") {
		t.Errorf("SetMemory = %v, want the trigger's error", err)
	}
	m, _ := s.Memory("f", "")
	if fmt.Sprint(m) != "map[a:[49]]" {
		t.Errorf("memory after a failed SetMemory = %s, want a:1", m)
	}
	if steps, _ := s.Steps(run.ID); len(steps) != 1 {
		t.Errorf("the step result in the same batch as the failed SetMemory was lost")
	}
}

// waitQueued waits until n ops are queued.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		s.w.mu.Lock()
		queued := len(s.w.pending)
		s.w.mu.Unlock()
		if queued >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d ops queued after 10s, want %d", queued, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFlushError checks that failed asynchronous writes are reported by the
// next Flush, once, and that they do not take the good writes of their
// batch down with them.
func TestFlushError(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	if err := s.Flush(); err != nil {
		t.Fatalf("Flush with nothing pending = %v", err)
	}

	// A step result of a run that does not exist breaks the foreign key:
	// once on its own and once inside a full multi-row statement.
	release := blockWriter(t, s)
	s.RecordStep(&StepResult{RunID: "nosuchrun", Step: "orphan", Status: "ok"})
	for i := range rowsPerStatement + 5 {
		s.RecordStep(&StepResult{RunID: run.ID, Step: "good", Instance: fmt.Sprint(i), Status: "ok"})
		if i == 7 {
			s.RecordStep(&StepResult{RunID: "nosuchrun", Step: "orphan2", Status: "ok"})
		}
	}
	s.CachePut("k", "f", "good", json.RawMessage(`1`))
	release()

	err := s.Flush()
	if err == nil {
		t.Fatal("Flush after failed writes = nil")
	}
	for _, want := range []string{"recording step orphan of run nosuchrun", "FOREIGN KEY", "and 1 more failed write"} {
		if !strings.Contains(strings.ToUpper(err.Error()), strings.ToUpper(want)) {
			t.Errorf("Flush error %q does not contain %q", err, want)
		}
	}
	if err := s.Flush(); err != nil {
		t.Errorf("second Flush = %v, want nil: an error is reported once", err)
	}
	if steps, err := s.Steps(run.ID); err != nil || len(steps) != rowsPerStatement+5 {
		t.Errorf("Steps = %d results, %v; want the %d good ones", len(steps), err, rowsPerStatement+5)
	}
	if _, ok, _ := s.CacheGet("k"); !ok {
		t.Error("the cache entry of the batch was lost")
	}
}

// TestFinishRunReportsWriteErrors checks that FinishRun, which flushes,
// reports a failed step write of its run (TestWriteErrorsOfTheirRun), not
// one of another run, which the next Flush reports; the run's end is
// stored.
func TestFinishRunReportsWriteErrors(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	s.RecordStep(&StepResult{RunID: "nosuchrun", Step: "orphan"})
	if err := s.FinishRun(&Run{ID: run.ID, Status: "ok"}); err != nil {
		t.Errorf("FinishRun = %v, want nil: the failed write is another run's", err)
	}
	if r, _ := s.Run(run.ID); r == nil || r.Status != "ok" {
		t.Errorf("run after FinishRun = %+v, want status ok", r)
	}
	if err := s.Flush(); err == nil || !strings.Contains(err.Error(), "orphan") {
		t.Errorf("Flush after FinishRun = %v, want the other run's failed write", err)
	}
}

// TestConcurrentUse hands writes over from many goroutines while others
// read; run it with -race.
func TestConcurrentUse(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	const workers, each = 4, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("%d-%d", w, i)
				s.RecordStep(&StepResult{RunID: run.ID, Step: "s", Instance: id, Status: "ok", Outputs: json.RawMessage(`"` + id + `"`)})
				s.CachePut(id, "f", "s", json.RawMessage(`"`+id+`"`))
				if i%50 == 0 {
					if err := s.Flush(); err != nil {
						t.Error(err)
					}
					if err := s.SetMemory("f", "", map[string]json.RawMessage{fmt.Sprint("w", w): json.RawMessage(fmt.Sprint(i))}); err != nil {
						t.Error(err)
					}
				}
			}
		})
		wg.Go(func() {
			for i := range each / 20 {
				if _, err := s.Steps(run.ID); err != nil {
					t.Error(err)
				}
				if _, _, err := s.CacheGet(fmt.Sprintf("%d-%d", w, i)); err != nil {
					t.Error(err)
				}
				if _, err := s.Runs("", 5); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := s.FinishRun(&Run{ID: run.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	steps, err := s.Steps(run.ID)
	if err != nil || len(steps) != workers*each {
		t.Fatalf("Steps = %d results, %v; want %d", len(steps), err, workers*each)
	}
	for _, st := range steps {
		if string(st.Outputs) != `"`+st.Instance+`"` {
			t.Fatalf("step %s has outputs %s", st.Instance, st.Outputs)
		}
		v, ok, err := s.CacheGet(st.Instance)
		if err != nil || !ok || string(v) != string(st.Outputs) {
			t.Fatalf("CacheGet(%s) = %s, %v, %v", st.Instance, v, ok, err)
		}
	}
}

// TestQueueBound checks that a writer far behind makes RecordStep wait
// rather than grow the queue beyond maxPending.
func TestQueueBound(t *testing.T) {
	defer func(n int) { maxPending = n }(maxPending)
	maxPending = 500
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	release := blockWriter(t, s)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range maxPending + 10 {
			s.RecordStep(&StepResult{RunID: run.ID, Step: "s", Instance: fmt.Sprint(i)})
		}
	}()
	waitQueued(t, s, maxPending)
	select {
	case <-done:
		t.Fatal("RecordStep did not wait for a full queue")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	<-done
	flush(t, s)
	if steps, err := s.Steps(run.ID); err != nil || len(steps) != maxPending+10 {
		t.Errorf("Steps = %d results, %v; want %d", len(steps), err, maxPending+10)
	}
}

// TestUpdateMemoryConcurrent: updates of one memory from two stores (two
// processes) at once lose none.
func TestUpdateMemoryConcurrent(t *testing.T) {
	dir := t.TempDir()
	stores := []*Store{openStoreIn(t, dir), openStoreIn(t, dir)}
	const each = 20
	var wg sync.WaitGroup
	for _, s := range stores {
		for range each {
			wg.Go(func() {
				err := s.UpdateMemory("f", "", func(stored map[string]json.RawMessage) (map[string]json.RawMessage, error) {
					n := 0
					if v, ok := stored["count"]; ok {
						if err := json.Unmarshal(v, &n); err != nil {
							return nil, err
						}
					}
					return map[string]json.RawMessage{"count": json.RawMessage(strconv.Itoa(n + 1))}, nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	got, err := stores[0].Memory("f", "")
	if err != nil {
		t.Fatal(err)
	}
	if string(got["count"]) != strconv.Itoa(2*each) {
		t.Errorf("count = %s after %d updates", got["count"], 2*each)
	}
}

// TestCheckpointWhileWriting: each checkpointAfter ops committed, the WAL
// is checkpointed on a connection of its own, while the writer goes on;
// what was written stays readable, and after CloseForExit the WAL is
// empty and the state reads the same.
func TestCheckpointWhileWriting(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := createRun(t, s, "", "f", time.Time{})
	n := 2*checkpointAfter + 10
	for i := range n {
		s.RecordStep(&StepResult{RunID: run.ID, Step: "s", Instance: fmt.Sprint(i), Status: "ok", Outputs: json.RawMessage(`{"x":1}`)})
	}
	flush(t, s)
	deadline := time.Now().Add(time.Minute)
	for s.w.ckpt.count.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the WAL was not checkpointed while the writer wrote")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if steps, err := s.Steps(run.ID); err != nil || len(steps) != n {
		t.Errorf("Steps = %d results, %v; want %d", len(steps), err, n)
	}
	if err := s.CloseForExit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "state.db-wal")); err != nil || fi.Size() != 0 {
		t.Errorf("the WAL after CloseForExit: %v, %v", fi, err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if steps, err := s2.Steps(run.ID); err != nil || len(steps) != n {
		t.Errorf("reopened: Steps = %d results, %v; want %d", len(steps), err, n)
	}
}

// TestWriteErrorsOfTheirRun: the failed asynchronous writes of two runs at
// once are each reported to their own run, by its FinishRun or FlushRun,
// never to the other: a run's error never names another run, and no run
// takes another's failure for its own and leaves it unreported.
func TestWriteErrorsOfTheirRun(t *testing.T) {
	s := openSQLiteIn(t, t.TempDir())
	if _, err := s.db.Exec(`CREATE TRIGGER no_bad BEFORE INSERT ON steps WHEN NEW.step = 'bad'
		BEGIN SELECT RAISE(ABORT, 'bad step'); END`); err != nil {
		t.Fatal(err)
	}
	a, b, c := createRun(t, s, "", "f", time.Time{}), createRun(t, s, "", "f", time.Time{}), createRun(t, s, "", "f", time.Time{})
	release := blockWriter(t, s)
	// b's write is queued first, then a's, then a's and b's ends.
	s.RecordStep(&StepResult{RunID: b.ID, Step: "bad", Status: "ok"})
	s.RecordStep(&StepResult{RunID: a.ID, Step: "bad", Status: "ok"})
	s.RecordStep(&StepResult{RunID: c.ID, Step: "bad", Status: "ok"})
	errs := make([]chan error, 2)
	for i, r := range []*Run{a, b} {
		errs[i] = make(chan error, 1)
		go func() { errs[i] <- s.FinishRun(&Run{ID: r.ID, Status: "ok"}) }()
		waitQueued(t, s, 4+i)
	}
	release()
	for i, r := range []*Run{a, b} {
		other := []*Run{b, a}[i]
		err := <-errs[i]
		if err == nil || !strings.Contains(err.Error(), r.ID) || strings.Contains(err.Error(), other.ID) || strings.Contains(err.Error(), "more failed") {
			t.Errorf("FinishRun(%s) = %v, want its own failed write, and only it", r.ID, err)
		}
	}
	if err := s.FlushRun(c.ID); err == nil || !strings.Contains(err.Error(), c.ID) {
		t.Errorf("FlushRun(%s) = %v, want its failed write", c.ID, err)
	}
	if err := s.Flush(); err != nil {
		t.Errorf("Flush after every run's was reported = %v", err)
	}
}
