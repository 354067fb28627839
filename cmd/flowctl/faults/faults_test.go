package faults

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/state/pgtest"
	"github.com/flowctl/flowctl/runtime/temporal/devserver"
)

// The fault-injection tests of a shared PostgreSQL state (issue 37): a
// cluster of their own, which they restart (fast and immediate) and crash
// (kill -9 of the postmaster) while apply, serve and a Temporal worker run
// flows whose http steps call a local server that counts each call by
// step instance. Every run must end ok by itself, with every step
// result recorded once and no step instance called twice. Each prints,
// with -v, a line "faults: …" of what it injected and counted.

// faultFlow calls the counter once per instance of a for_each step, a
// few at a time, then once more in a step after them.
const faultFlow = `
flow "faults" {}

input "base" {
  type = string
}

input "tag" {
  type = string
}

input "n" {
  type    = number
  default = 40
}

step "call" {
  use         = "http"
  for_each    = range(input.n)
  parallelism = 4
  url         = "${input.base}/hit?k=${input.tag}-call-${each.key}"
}

step "after" {
  use = "http"
  url = "${input.base}/hit?k=${input.tag}-after-${length(step.call)}"
}

output "calls" {
  value = length(step.call)
}
`

// counter is the local server the flows' http steps call: it counts the
// calls of each key (a step instance of a run) and answers after delay.
type counter struct {
	srv   *httptest.Server
	delay time.Duration
	mu    sync.Mutex
	hits  map[string]int
}

func newCounter(t *testing.T, delay time.Duration) *counter {
	c := &counter{delay: delay, hits: map[string]int{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.hits[r.URL.Query().Get("k")]++
		c.mu.Unlock()
		time.Sleep(c.delay)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true}`)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// calls counts the calls whose key starts with prefix, and those that
// repeated a call.
func (c *counter) calls(prefix string) (calls, keys, repeats int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, n := range c.hits {
		if strings.HasPrefix(k, prefix) {
			calls += n
			keys++
			repeats += n - 1
		}
	}
	return calls, keys, repeats
}

// waitCalls waits until n calls of prefix were made.
func (c *counter) waitCalls(t *testing.T, prefix string, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if got, _, _ := c.calls(prefix); got >= n {
			return
		}
		if time.Now().After(deadline) {
			got, _, _ := c.calls(prefix)
			t.Fatalf("%d calls of %s after 3 minutes, waiting for %d", got, prefix, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// quiet waits until no call has come for d: the processes that make
// them have settled.
func (c *counter) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	last, since := -1, time.Now()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		n, _, _ := c.calls("")
		if n != last {
			last, since = n, time.Now()
		}
		if time.Since(since) >= d {
			return
		}
	}
	t.Fatalf("calls still came after 3 minutes")
}

// A fault is done to the cluster.
type fault struct {
	name   string
	inject func(c *pgtest.Cluster)
}

var faults = []fault{
	{"restart-fast", func(c *pgtest.Cluster) { c.Restart("fast") }},
	{"restart-immediate", func(c *pgtest.Cluster) { c.Restart("immediate") }},
	{"kill-9-postmaster", func(c *pgtest.Cluster) { c.Crash() }},
}

// faultTally adds up what a test injected and counted, for its report.
type faultTally struct {
	faults, runs, calls, repeats int
}

func (f *faultTally) report(t *testing.T, what string) {
	t.Logf("faults: %s: %d faults injected, %d runs, %d side effects counted, %d repeated", what, f.faults, f.runs, f.calls, f.repeats)
}

// checkRun checks a run of faultFlow in the state: ok, every step result
// recorded once, and the counter's calls of its tag: one per instance.
func checkRun(t *testing.T, st *state.Store, c *counter, runID, tag string, n int, tally *faultTally) {
	t.Helper()
	run, err := st.Run(runID)
	if err != nil {
		t.Fatalf("run %s: %v", runID, err)
	}
	if run.Status != "ok" {
		t.Errorf("run %s (%s) is %s: %s", runID, tag, run.Status, run.Error)
	}
	steps, err := st.Steps(runID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range steps {
		seen[s.Step+"["+s.Instance+"]"]++
		if s.Status != "ok" {
			t.Errorf("run %s: step %s[%s] is %s: %s", runID, s.Step, s.Instance, s.Status, s.Error)
		}
	}
	if len(steps) != n+1 || len(seen) != n+1 {
		t.Errorf("run %s: %d step results recorded (%d instances), want %d", runID, len(steps), len(seen), n+1)
	}
	calls, keys, repeats := c.calls(tag + "-")
	if keys != n+1 || repeats != 0 {
		t.Errorf("run %s: %d calls of %d step instances (%d repeated), want %d calls, one each", runID, calls, keys, repeats, n+1)
	}
	tally.runs++
	tally.calls += calls
	tally.repeats += repeats
}

// openFaultState opens the state a test's flowctl processes share, to
// check what they recorded.
func openFaultState(t *testing.T, url string) *state.Store {
	t.Helper()
	st, err := state.OpenURLWith(url, state.Options{Wait: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// faultEnv is the environment of the flowctl processes of a fault test:
// the state, and a lease short enough for the processes to judge each
// other within the test (and take a live one's runs, were leases wrong).
func faultEnv(url string) []string {
	return []string{"FLOWCTL_STATE_URL=" + url, state.EnvLease + "=10s", "FLOWCTL_TEMPORAL_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="}
}

var machines atomic.Int64

// elsewhere is env for a process that says it runs on a machine of its
// own (state.EnvMachine): the others judge it by its lease alone, as
// they would a process on another machine, not by its PID.
func elsewhere(env []string) []string {
	return append(env[:len(env):len(env)], fmt.Sprintf("%s=machine-%d", state.EnvMachine, machines.Add(1)))
}

// TestStateFaults runs the fault tests on one cluster of their own, each
// in a schema of its own.
func TestStateFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a PostgreSQL cluster")
	}
	c := pgtest.StartCluster(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "faults.flow.hcl"), []byte(faultFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("apply", func(t *testing.T) { testApplyFaults(t, c, dir) })
	t.Run("serve", func(t *testing.T) { testServeFaults(t, c, dir) })
	t.Run("two-servers", func(t *testing.T) { testTwoServersRestart(t, c, dir) })
	t.Run("serve-killed", func(t *testing.T) { testServeKilled(t, c, dir) })
	t.Run("worker", func(t *testing.T) { testWorkerFaults(t, c, dir) })
	t.Run("concurrent-applies", func(t *testing.T) { testConcurrentApplies(t, c) })
	t.Run("schedule-two-servers", func(t *testing.T) { testScheduleTwoServers(t, c) })
}

// testApplyFaults: an apply whose state restarts or crashes under it
// waits for the state, records every result once, runs no step twice,
// and ends ok.
func testApplyFaults(t *testing.T, c *pgtest.Cluster, dir string) {
	url := c.Schema("apply_faults")
	env := faultEnv(url)
	ctr := newCounter(t, 60*time.Millisecond)
	st := openFaultState(t, url)
	var tally faultTally
	for i, f := range faults {
		tag := fmt.Sprintf("apply%d", i)
		a := start(t, dir, elsewhere(env), "apply", "--auto-approve", "--json", "--input", "base="+ctr.srv.URL, "--input", "tag="+tag, "faults.flow.hcl")
		ctr.waitCalls(t, tag+"-", 10)
		f.inject(c)
		tally.faults++
		a.wait(t)
		if strings.Contains(a.out.String(), "Results not recorded") {
			t.Errorf("%s: apply says results were not recorded:\n%s", f.name, a.out.String())
		}
		var runID string
		if status := finished(a.out.String()); status != "ok" {
			t.Errorf("%s: the run finished %q\n%s", f.name, status, a.out.String())
		}
		if runs, err := st.Runs("faults", 0); err == nil {
			for _, r := range runs {
				if strings.Contains(string(r.Inputs), `"`+tag+`"`) {
					runID = r.ID
				}
			}
		}
		if runID == "" {
			t.Fatalf("%s: no run of tag %s recorded", f.name, tag)
		}
		checkRun(t, st, ctr, runID, tag, 40, &tally)
	}
	tally.report(t, "apply")
}

// postRun starts a run of faultFlow on a server and returns its id.
func postRun(t *testing.T, s *server, base, tag string, n int) string {
	t.Helper()
	return s.start(t, "faults", fmt.Sprintf(`{"base": %q, "tag": %q, "n": %d}`, base, tag, n))
}

// waitRuns waits until the runs have ended in the state (by a store of
// the test's, which waits for the database as a server does): neither
// queued nor running.
func waitRuns(t *testing.T, st *state.Store, ids ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for _, id := range ids {
		for {
			r, err := st.Run(id)
			if err == nil && r.Status != "running" && r.Status != state.StatusQueued {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s has not ended after 5 minutes: %+v, %v", id, r, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// testServeFaults: one server through every fault: its runs under way
// wait for the state, end ok with every result recorded once and no step
// called twice, and it starts new runs afterwards without a restart.
func testServeFaults(t *testing.T, c *pgtest.Cluster, dir string) {
	url := c.Schema("serve_faults")
	ctr := newCounter(t, 60*time.Millisecond)
	p := serve(t, dir, elsewhere(faultEnv(url)), "--state", url)
	st := openFaultState(t, url)
	var tally faultTally
	for i, f := range faults {
		runsThrough(t, c, st, ctr, p, fmt.Sprintf("serve%d-", i), 3, 20, 15, f, nil, &tally)
	}
	// Recovered by itself: a new run.
	id := postRun(t, p, ctr.srv.URL, "serve-after", 5)
	waitRuns(t, st, id)
	checkRun(t, st, ctr, id, "serve-after", 5, &tally)
	tally.report(t, "serve")
}

// testTwoServersRestart: two servers on one state through a restart of
// the database, and a third started right after it: none takes another's
// runs for abandoned, and no step is called twice.
func testTwoServersRestart(t *testing.T, c *pgtest.Cluster, dir string) {
	url := c.Schema("two_servers")
	ctr := newCounter(t, 100*time.Millisecond)
	env := faultEnv(url)
	a := serve(t, dir, elsewhere(env), "--state", url)
	serve(t, dir, elsewhere(env), "--state", url)
	st := openFaultState(t, url)
	var tally faultTally
	for i, f := range faults {
		// A server that opens the state right after the fault reaps what
		// it takes for abandoned: nothing of a's.
		third := func() { serve(t, dir, elsewhere(env), "--state", url) }
		runsThrough(t, c, st, ctr, a, fmt.Sprintf("two%d-", i), 10, 8, 20, f, third, &tally)
	}
	tally.report(t, "two servers")
}

// runsThrough posts runs of faultFlow (n instances each, tags prefix0,
// prefix1, …) to s, injects f once calls of them were made, calls after
// (if any), waits for the runs to end and checks each (checkRun).
func runsThrough(t *testing.T, c *pgtest.Cluster, st *state.Store, ctr *counter, s *server, prefix string, runs, n, calls int, f fault, after func(), tally *faultTally) {
	t.Helper()
	var ids, tags []string
	for j := range runs {
		tag := fmt.Sprintf("%s%d", prefix, j)
		ids, tags = append(ids, postRun(t, s, ctr.srv.URL, tag, n)), append(tags, tag)
	}
	ctr.waitCalls(t, prefix, calls)
	f.inject(c)
	tally.faults++
	if after != nil {
		after()
	}
	waitRuns(t, st, ids...)
	for j, id := range ids {
		checkRun(t, st, ctr, id, tags[j], n, tally)
	}
}

// testServeKilled: a server killed (kill -9) while its runs are under
// way, on a machine of its own, cannot finish them: they are recorded
// interrupted once its lease expired (by another server, or the test's
// store, which reap as every process does), none stays running, and the
// live server takes them up and runs them to their end: a step instance
// under way at the kill is called twice at most, the others once.
func testServeKilled(t *testing.T, c *pgtest.Cluster, dir string) {
	url := c.Schema("serve_killed")
	ctr := newCounter(t, 200*time.Millisecond)
	env := faultEnv(url)
	a := serve(t, dir, elsewhere(env), "--state", url)
	st := openFaultState(t, url)
	var ids []string
	for j := range 3 {
		ids = append(ids, postRun(t, a, ctr.srv.URL, fmt.Sprintf("killed-%d", j), 40))
	}
	// Killed once every run is under way: recorded, and calling.
	for j := range ids {
		ctr.waitCalls(t, fmt.Sprintf("killed-%d-", j), 2)
	}
	for _, id := range ids {
		if _, err := st.Run(id); err != nil {
			t.Fatalf("run %s is calling, and not recorded: %v", id, err)
		}
	}
	a.cmd.Process.Kill()
	<-a.done
	serve(t, dir, elsewhere(env), "--state", url)
	resumed := 0
	deadline := time.Now().Add(5 * time.Minute)
	for _, id := range ids {
		for {
			r, err := st.Run(id)
			if err == nil && (r.Status == "ok" || r.Status == "failed" || r.Status == "cancelled") {
				if r.Status != "ok" {
					t.Errorf("run %s of the killed server is %s, want ok (taken up): %s", id, r.Status, r.Error)
				} else {
					resumed++
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s of the killed server has not ended after 5 minutes: %+v, %v", id, r, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	ctr.mu.Lock()
	for k, n := range ctr.hits {
		if strings.HasPrefix(k, "killed-") && n > 2 {
			t.Errorf("step %s called %d times; want twice at most (once more when it was under way at the kill)", k, n)
		}
	}
	ctr.mu.Unlock()
	calls, _, repeats := ctr.calls("killed-")
	t.Logf("faults: serve killed: 1 server killed (kill -9), %d runs, %d interrupted by lease expiry and taken up by the live server, %d side effects counted, %d repeated", len(ids), resumed, calls, repeats)
}

// testWorkerFaults: a Temporal worker whose state restarts or crashes
// under it recovers by itself; the run ends ok with every result recorded
// once and no step called twice.
func testWorkerFaults(t *testing.T, c *pgtest.Cluster, dir string) {
	bin := devserver.Find()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no temporal CLI: go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (.ci/run does)")
		}
		t.Skip("no temporal CLI (go install github.com/temporalio/cli/cmd/temporal@v1.5.1); CI runs this test")
	}
	srv, err := devserver.Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	addr := srv.Addr
	url := c.Schema("worker_faults")
	env := faultEnv(url)
	ctr := newCounter(t, 60*time.Millisecond)
	w := start(t, dir, elsewhere(env), "worker", "--engine", "temporal", "--address", addr, "--task-queue", "faults", "--state", url, ".")
	st := openFaultState(t, url)
	var tally faultTally
	for i, f := range faults {
		tag := fmt.Sprintf("worker%d", i)
		a := start(t, dir, elsewhere(env), "apply", "--engine", "temporal", "--address", addr, "--task-queue", "faults",
			"--auto-approve", "--json", "--input", "base="+ctr.srv.URL, "--input", "tag="+tag, "faults.flow.hcl")
		ctr.waitCalls(t, tag+"-", 10)
		f.inject(c)
		tally.faults++
		a.wait(t)
		var runID string
		if status := finished(a.out.String()); status != "ok" {
			t.Errorf("%s: the run finished %q\n%s", f.name, status, a.out.String())
		}
		runs, err := st.Runs("faults", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if strings.Contains(string(r.Inputs), `"`+tag+`"`) {
				runID = r.ID
			}
		}
		if runID == "" {
			t.Fatalf("%s: no run of tag %s recorded\n%s", f.name, tag, a.out.String())
		}
		checkRun(t, st, ctr, runID, tag, 40, &tally)
	}
	select {
	case <-w.done:
		t.Fatalf("the worker ended: %v\n%s", w.err, w.out.String())
	default:
	}
	tally.report(t, "worker")
}

// cacheFlow stores a cache entry per instance: concurrent applies store
// the same entries, in different orders.
const cacheFlow = `
flow "cachefill" {}

input "salt" {
  type    = string
  default = "s"
}

step "v" {
  use      = "value"
  for_each = range(300)
  cache    = true
  value    = "${input.salt}-${each.key}"
}
`

// testConcurrentApplies: five applies from each of two directories at
// once on one state, three times: none fails (the cache entries they all
// store were written in different orders, and deadlocked).
func testConcurrentApplies(t *testing.T, c *pgtest.Cluster) {
	url := c.Schema("concurrent_applies")
	env := faultEnv(url)
	var dirs []string
	for i := range 2 {
		d := filepath.Join(t.TempDir(), fmt.Sprint(i))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "cachefill.flow.hcl"), []byte(cacheFlow), 0o644)
		dirs = append(dirs, d)
	}
	runs, failed := 0, 0
	deadlocks := c.Deadlocks()
	for range 3 {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, d := range dirs {
			for range 5 {
				wg.Go(func() {
					p := start(t, d, env, "apply", "--auto-approve", "--no-cache", "cachefill.flow.hcl")
					<-p.done
					mu.Lock()
					defer mu.Unlock()
					runs++
					if p.err != nil {
						failed++
						t.Errorf("apply in %s: %v\n%s", d, p.err, p.out.String())
					}
				})
			}
		}
		wg.Wait()
	}
	// Deadlocks the database detected (and the writers retried): the
	// applies' connections have ended, so their statistics are flushed.
	deadlocks = c.Deadlocks() - deadlocks
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var entries int
	if err := db.QueryRow(`SELECT count(*) FROM cache`).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	if entries != 300 {
		t.Errorf("%d cache entries stored, want 300 (one per instance, stored by every apply)", entries)
	}
	t.Logf("faults: concurrent applies: %d runs, %d failed, %d deadlocks detected by PostgreSQL", runs, failed, deadlocks)
	if runs != 30 {
		t.Errorf("%d applies ran, want 30", runs)
	}
}

// tickFlow is run by a schedule every second.
const tickFlow = `
flow "ticker" {}

schedule "often" {
  cron = "@every 1s"
}

step "tick" {
  use   = "value"
  value = "tick"
}
`

// testScheduleTwoServers: two servers on one state, SQLite and
// PostgreSQL, fire a schedule once per tick between them. "@every 1s"
// fires at most once in a second of the clock (its next time is the next
// whole second), so two runs that started in one second are one tick
// fired twice.
func testScheduleTwoServers(t *testing.T, c *pgtest.Cluster) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "ticker.flow.hcl"), []byte(tickFlow), 0o644)
			where := filepath.Join(dir, ".flowctl")
			env := []string{}
			if backend == "postgres" {
				where = c.Schema("schedule_two")
				env = faultEnv(where)
			}
			servers := []*server{serve(t, dir, env, "--state", where), serve(t, dir, env, "--state", where)}
			var st *state.Store
			var err error
			if backend == "postgres" {
				st = openFaultState(t, where)
			} else if st, err = state.Open(where); err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			deadline := time.Now().Add(2 * time.Minute)
			var runs []*state.Run
			for len(runs) < 6 {
				if time.Now().After(deadline) {
					t.Fatalf("%d runs of the schedule after 2 minutes", len(runs))
				}
				time.Sleep(200 * time.Millisecond)
				if runs, err = st.Runs("ticker", 0); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range servers {
				p.stop(t)
			}
			runs, err = st.Runs("ticker", 0)
			if err != nil {
				t.Fatal(err)
			}
			bySecond := map[int64][]string{}
			for _, r := range runs {
				s := r.StartedAt.Unix()
				bySecond[s] = append(bySecond[s], r.StartedAt.Format("15:04:05.000"))
			}
			var twice []string
			for _, starts := range bySecond {
				if len(starts) > 1 {
					sort.Strings(starts)
					twice = append(twice, strings.Join(starts, " and "))
				}
			}
			if len(twice) > 0 {
				t.Errorf("ticks fired twice: %v", twice)
			}
			t.Logf("faults: schedule on %s, two servers: %d runs, %d ticks fired twice", backend, len(runs), len(twice))
		})
	}
}
