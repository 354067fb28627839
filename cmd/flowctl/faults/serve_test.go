package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// The fault-injection tests of a server's own faults (issue 48): a server
// killed (kill -9) right after it answered 202 loses none of the runs it
// answered for, with or without an Idempotency-Key, running or queued,
// on SQLite and on PostgreSQL; each run is later run to its end by the
// server started after it, or by a live one beside it. A server stopped (SIGSTOP) for longer than two leases, whose
// runs another process took, makes no side effect for them once it goes
// on: only the steps it had under way at the pause may run twice. Each
// prints, with -v, a line "faults: …" of what it injected and counted.
// (A stopped server on SQLite keeps its runs: their lock files are held
// by the kernel for as long as the process lives, so no process takes
// them.)

// acceptFlow calls the counter once.
const acceptFlow = `
flow "accept" {}

input "base" {
  type = string
}

input "tag" {
  type = string
}

step "call" {
  use = "http"
  url = "${input.base}/hit?k=${input.tag}."
}
`

// TestServerFaults runs the server fault tests, on a PostgreSQL cluster
// of their own and on SQLite.
func TestServerFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("kills servers")
	}
	// The PostgreSQL tests' cluster, when PostgreSQL is installed (CI
	// installs it: pgtest fails there without it).
	var c *pgtest.Cluster
	if _, err := os.Stat(filepath.Join(pgtest.Bin(), "initdb")); err == nil || os.Getenv("CI") != "" {
		c = pgtest.StartCluster(t)
	}
	needPostgres := func(t *testing.T) {
		if c == nil {
			t.Skip("no PostgreSQL (" + pgtest.Bin() + ")")
		}
	}
	t.Run("disk-full/sqlite", func(t *testing.T) { testDiskFull(t, "sqlite") })
	t.Run("disk-full/postgres", func(t *testing.T) { testDiskFull(t, "postgres") })
	t.Run("unrecorded-result/postgres", func(t *testing.T) {
		needPostgres(t)
		testUnrecordedResult(t, c.Schema("unrecorded_result"))
	})
	t.Run("starts-state-paused/postgres", func(t *testing.T) {
		needPostgres(t)
		testStartsStatePaused(t, c)
	})
	t.Run("stopped-past-lease/postgres", func(t *testing.T) {
		needPostgres(t)
		testStoppedPastLease(t, c)
	})
	t.Run("reads-state-unreachable/postgres", func(t *testing.T) {
		needPostgres(t)
		testReadsStateUnreachable(t, c)
	})
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run("killed-taken-up-live/"+backend, func(t *testing.T) {
			where, env := t.TempDir(), []string(nil)
			if backend == "postgres" {
				needPostgres(t)
				where = c.Schema("killed_taken_up_live")
				env = faultEnv(where)
			}
			testKilledTakenUpLive(t, where, env)
		})
		t.Run("killed-after-202/"+backend, func(t *testing.T) {
			where, env := t.TempDir(), []string(nil)
			if backend == "postgres" {
				needPostgres(t)
				where = c.Schema("killed_after_202")
				// On this machine: a killed server is seen gone at once.
				env = faultEnv(where)
			}
			testKilledAfterAccept(t, where, env)
		})
	}
}

// testKilledAfterAccept: runs a server accepted (202) just before it was
// killed (kill -9) are run to their end by the server started after it;
// a start retried with its Idempotency-Key gets its run, and starts no
// other. Runs are sent one at a time (the server killed after each
// answer) and in a burst (killed once all are answered).
func testKilledAfterAccept(t *testing.T, where string, env []string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "accept.flow.hcl"), []byte(acceptFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(where, ".flowctl")
	if strings.Contains(where, "://") {
		state = where
	}
	ctr := newCounter(t, 20*time.Millisecond)
	// kills counts the servers killed: a run whose step was under way
	// at a kill runs it again, from its start, when it is resumed.
	type sent struct {
		id, tag, key string
		kills        int // the kills before it was sent
	}
	var runs []sent
	var mu sync.Mutex
	kills := 0
	post := func(s *server, tag, key string) {
		id, status := startRun(t, s, "accept", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, tag), key)
		if status != http.StatusAccepted {
			t.Errorf("run %s: %d, want 202", tag, status)
		}
		mu.Lock()
		runs = append(runs, sent{id, tag, key, kills})
		mu.Unlock()
	}
	kill := func(s *server) {
		s.cmd.Process.Kill()
		<-s.done
		kills++
	}
	// One at a time, with and without a key.
	for i := range 4 {
		s := serve(t, dir, env, "--state", state)
		key := ""
		if i%2 == 1 {
			key = fmt.Sprintf("one-%d", i)
		}
		post(s, fmt.Sprintf("one-%d", i), key)
		kill(s)
	}
	// A burst: 30 at once, half with a key, to a server that runs 2 at
	// once: most are queued when it is killed.
	s := serve(t, dir, env, "--state", state, "--max-active", "2")
	var wg sync.WaitGroup
	for i := range 30 {
		key := ""
		if i%2 == 1 {
			key = fmt.Sprintf("burst-%d", i)
		}
		wg.Go(func() { post(s, fmt.Sprintf("burst-%d", i), key) })
	}
	wg.Wait()
	kill(s)

	after := serve(t, dir, env, "--state", state)
	ok, repeats := 0, 0
	for _, r := range runs {
		status, msg := waitEnded(t, after, r.id)
		if status != "ok" {
			t.Errorf("run %s (%s), answered 202 before its server was killed, is %q: %s", r.id, r.tag, status, msg)
			continue
		}
		ok++
		calls, _, rep := ctr.calls(r.tag + ".")
		if calls < 1 || rep > kills-r.kills {
			t.Errorf("run %s (%s): its step called %d times; want once, and once more at most for each kill (%d) while it ran", r.id, r.tag, calls, kills-r.kills)
		}
		repeats += rep
		if r.key == "" {
			continue
		}
		id, code := startRun(t, after, "accept", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, r.tag), r.key)
		if code != http.StatusOK || id != r.id {
			t.Errorf("run %s retried with its Idempotency-Key %s: %d, run %s; want 200 with run %s", r.tag, r.key, code, id, r.id)
		}
	}
	t.Logf("faults: killed after 202: %d servers killed (kill -9), %d runs answered 202, %d ended ok afterwards, %d side effects repeated", kills, len(runs), ok, repeats)
}

// startRun posts a run of flow with inputs (a JSON object), with an
// Idempotency-Key when key is not "", and returns its id and the answer's
// status; 503 (the state or the server not ready) is retried as Retry-After
// says, for up to two minutes.
func startRun(t *testing.T, s *server, flow, inputs, key string) (string, int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		req, err := http.NewRequest("POST", s.url+"/v1/flows/"+flow+"/runs", strings.NewReader(`{"inputs": `+inputs+`}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && time.Now().Before(deadline) {
			time.Sleep(250 * time.Millisecond)
			continue
		}
		var r struct {
			RunID  string `json:"run_id"`
			Status string `json:"status"`
		}
		if resp.StatusCode/100 != 2 || json.Unmarshal(b, &r) != nil || r.RunID == "" || r.Status == "" {
			t.Fatalf("POST a run of %s: %d %s", flow, resp.StatusCode, b)
		}
		return r.RunID, resp.StatusCode
	}
}

// waitEnded reads a run on a server until it has ended (or is not found:
// ""), for up to three minutes, and returns its status and error.
func waitEnded(t *testing.T, s *server, id string) (string, string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		resp, err := http.Get(s.url + "/v1/runs/" + id)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Status string          `json:"status"`
			Error  json.RawMessage `json:"error"`
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			return "", string(b)
		}
		if resp.StatusCode == http.StatusOK && json.Unmarshal(b, &r) == nil {
			switch r.Status {
			case "ok", "failed", "cancelled":
				return r.Status, string(r.Error)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s has not ended after 3 minutes: %d %s", id, resp.StatusCode, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// twoStepFlow calls the counter twice, one step after the other.
const twoStepFlow = `
flow "twostep" {}

input "base" {
  type = string
}

input "tag" {
  type = string
}

step "first" {
  use = "http"
  url = "${input.base}/hit?k=${input.tag}.first"
}

step "second" {
  use        = "http"
  url        = "${input.base}/hit?k=${input.tag}.second"
  depends_on = [step.first]
}
`

// testStoppedPastLease: server a, on a machine of its own, runs 20 runs
// of two steps each; a's http steps have 8 connections to the counter,
// so 8 first steps are under way and 12 wait for a connection when a is
// stopped (SIGSTOP). Once another process has recorded a's runs
// interrupted (two leases), a goes on (SIGCONT): it must send none of the
// 12 waiting requests, nor any second step. Server b, live beside a,
// takes the runs up by itself and runs them to their end. Each step
// instance is called once, but for those under way at the pause: twice at
// most.
func testStoppedPastLease(t *testing.T, c *pgtest.Cluster) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "twostep.flow.hcl"), []byte(twoStepFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	url := c.Schema("stopped_past_lease")
	env := []string{"FLOWCTL_STATE_URL=" + url, state.EnvLease + "=3s"}
	ctr := newCounter(t, time.Second)
	st, err := state.OpenURLWith(url, state.Options{Wait: 3 * time.Minute, Lease: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := serve(t, dir, elsewhere(env), "--state", url)
	// b, live beside a, records a's runs interrupted once a's lease has
	// lapsed for a lease (as the test's store does), and takes them up.
	b := serve(t, dir, elsewhere(env), "--state", url)
	const runs = 20
	var ids []string
	for i := range runs {
		ids = append(ids, a.start(t, "twostep", fmt.Sprintf(`{"base": %q, "tag": "r%d"}`, ctr.srv.URL, i)))
	}
	ctr.waitCalls(t, "r", 8)
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // requests on their way arrive
	underway := map[string]bool{}
	ctr.mu.Lock()
	for k := range ctr.hits {
		underway[k] = true
	}
	ctr.mu.Unlock()
	// a's runs are interrupted two leases after its last renewal (and
	// b takes them up).
	deadline := time.Now().Add(2 * time.Minute)
	for _, id := range ids {
		for {
			r, err := st.Run(id)
			if err == nil && r.Status == state.StatusInterrupted || strings.Contains(b.out.String(), "run taken up\" run_id="+id) {
				break
			}
			if time.Now().After(deadline) {
				a.cmd.Process.Signal(syscall.SIGCONT)
				t.Fatalf("run %s of the stopped server is not interrupted after 2 minutes: %+v, %v\nthe stopped server's log:\n%s\nthe live server's log:\n%s", id, r, err, a.out.String(), b.out.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// a ends the runs it lost, locally, and starts nothing for them (a
	// run it had queued, not started, it may take up again, as any
	// interrupted run): its log says so for each. A minute at most is
	// waited for that.
	settled := func() int {
		out := a.out.String()
		return strings.Count(out, "run taken over by another process") + strings.Count(out, "queued run taken for abandoned")
	}
	for deadline := time.Now().Add(time.Minute); settled() < runs && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	// b takes the runs up by itself and runs them to their end.
	waitRuns(t, st, ids...)
	ctr.quiet(t, 2*time.Second)
	calls, repeats, beyond := 0, 0, 0
	for i, id := range ids {
		r, err := st.Run(id)
		if err != nil || r.Status != "ok" {
			t.Errorf("run %s: %+v, %v; want ok", id, r, err)
		}
		for _, step := range []string{"first", "second"} {
			k := fmt.Sprintf("r%d.%s", i, step)
			ctr.mu.Lock()
			n := ctr.hits[k]
			ctr.mu.Unlock()
			calls += n
			repeats += max(n-1, 0)
			allowed := 1
			if underway[k] {
				allowed = 2
			}
			if n < 1 || n > allowed {
				beyond++
				t.Errorf("step %s called %d times; want once, or twice for a step under way when its server was stopped", k, n)
			}
		}
	}
	select {
	case <-a.done:
		t.Errorf("the stopped server ended after it went on: %v\n%s", a.err, a.out.String())
	default:
	}
	t.Logf("faults: stopped past two leases: 1 server stopped (SIGSTOP) with %d runs, %d steps under way; %d side effects expected, %d counted, %d repeated (bound %d), %d beyond the bound",
		runs, len(underway), 2*runs, calls, repeats, len(underway), beyond)
}

// testKilledTakenUpLive: server a, killed (kill -9) right after it
// answered 202 for a burst of runs (half with an Idempotency-Key), beside
// server b on the same state: b takes a's runs up by itself, without a
// restart, and runs each to its end; a start retried on b with its key
// gets its run.
func testKilledTakenUpLive(t *testing.T, where string, env []string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "accept.flow.hcl"), []byte(acceptFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	stateArg := filepath.Join(where, ".flowctl")
	if strings.Contains(where, "://") {
		stateArg = where
	}
	ctr := newCounter(t, 20*time.Millisecond)
	a := serve(t, dir, env, "--state", stateArg, "--max-active", "4") // most queued
	b := serve(t, dir, env, "--state", stateArg)
	type sent struct{ id, tag, key string }
	runs := make([]sent, 20)
	var wg sync.WaitGroup
	for i := range runs {
		tag, key := fmt.Sprintf("live-%d", i), ""
		if i%2 == 1 {
			key = tag
		}
		wg.Go(func() {
			id, code := startRun(t, a, "accept", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, tag), key)
			if code != http.StatusAccepted {
				t.Errorf("run %s: %d, want 202", tag, code)
			}
			runs[i] = sent{id, tag, key}
		})
	}
	wg.Wait()
	a.cmd.Process.Kill()
	<-a.done
	ok, repeats := 0, 0
	for _, r := range runs {
		status, msg := waitEnded(t, b, r.id)
		if status != "ok" {
			t.Errorf("run %s (%s), answered 202 before its server was killed, is %q on the live server: %s", r.id, r.tag, status, msg)
			continue
		}
		ok++
		calls, _, rep := ctr.calls(r.tag + ".")
		if calls < 1 || rep > 1 {
			t.Errorf("run %s (%s): its step called %d times; want once, or twice when the kill came while it ran", r.id, r.tag, calls)
		}
		repeats += rep
		if r.key != "" {
			if id, code := startRun(t, b, "accept", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, r.tag), r.key); code != http.StatusOK || id != r.id {
				t.Errorf("run %s retried on the live server with its key: %d, run %s; want 200 with run %s", r.tag, code, id, r.id)
			}
		}
	}
	t.Logf("faults: killed beside a live server: 1 server killed (kill -9) after %d runs answered 202; %d ended ok on the live server, without a restart; %d side effects repeated",
		len(runs), ok, repeats)
}

// testReadsStateUnreachable: while the state's server answers nothing
// (its processes stopped, as a network partition leaves it), reading a
// run, a run's step and the run list get 503 state_unavailable with
// Retry-After, within the read deadline, rather than no answer; and the
// run once the state is back.
func testReadsStateUnreachable(t *testing.T, c *pgtest.Cluster) {
	s, _, id, thaw := frozenServer(t, c, "reads_state_unreachable", "read")
	// No answer in a minute is a failure (the client gives up).
	client := &http.Client{Timeout: time.Minute}
	refused := 0
	for _, path := range []string{"/v1/runs/" + id, "/v1/runs/" + id + "/steps/call", "/v1/runs"} {
		resp, err := client.Get(s.url + path)
		if err != nil {
			t.Errorf("GET %s while the state does not answer: %v", path, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"state_unavailable"`) || resp.Header.Get("Retry-After") == "" {
			t.Errorf("GET %s while the state does not answer: %d %s (Retry-After %q); want 503 state_unavailable with Retry-After",
				path, resp.StatusCode, b, resp.Header.Get("Retry-After"))
			continue
		}
		refused++
	}
	thaw()
	if status, msg := waitEnded(t, s, id); status != "ok" {
		t.Errorf("run %s once the state is back: %s %s", id, status, msg)
	}
	t.Logf("faults: reads while the state does not answer: 3 reads, %d answered 503 state_unavailable within the read deadline (%s)", refused, "5s")
}

// testDiskFull: a server whose state's disk fills while its runs are
// under way starts no step whose result it cannot record: the runs wait,
// none is left running, and once there is room again they end ok, every
// result recorded once and no step called twice. The state is on a small
// tmpfs (mounting one needs root, as CI runs): SQLite's files, or the
// data directory of a PostgreSQL cluster of the test's own (its WAL
// elsewhere: pgtest.StartClusterOn), which then refuses writes with
// SQLSTATE 53100 (disk_full).
func testDiskFull(t *testing.T, backend string) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("mounting a small file system for the state needs root")
		}
		t.Skip("mounting a small file system for the state needs root")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "faults.flow.hcl"), []byte(faultFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	disk, err := os.MkdirTemp("", "flowctl-disk-")
	if err != nil {
		t.Fatal(err)
	}
	size := "size=16m"
	if backend == "postgres" {
		size = "size=48m" // a fresh cluster's tables take some 25 MB
	}
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, size); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() {
		syscall.Unmount(disk, syscall.MNT_DETACH)
		os.Remove(disk)
	})
	stateArg, env := filepath.Join(disk, ".flowctl"), []string(nil)
	var st *state.Store
	var c *pgtest.Cluster
	if backend == "postgres" {
		c = pgtest.StartClusterOn(t, disk)
		stateArg = c.Schema("disk_full")
		env = faultEnv(stateArg)
	}
	ctr := newCounter(t, 60*time.Millisecond)
	p := serve(t, dir, env, "--state", stateArg)
	if backend == "postgres" {
		st = openFaultState(t, stateArg)
	} else if st, err = state.Open(stateArg); err != nil {
		t.Fatal(err)
	} else {
		t.Cleanup(func() { st.Close() })
	}
	var ids, tags []string
	for j := range 3 {
		tag := fmt.Sprintf("full%d", j)
		ids, tags = append(ids, postRun(t, p, ctr.srv.URL, tag, 20)), append(tags, tag)
	}
	ctr.waitCalls(t, "full", 10)
	filler, err := os.Create(filepath.Join(disk, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(filler, zeroReader{}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the disk: %v", err)
	}
	filler.Close()
	// The steps under way end; no more start while the disk is full.
	ctr.quiet(t, 2*time.Second)
	during, _, _ := ctr.calls("full")
	if during >= 3*21 {
		t.Fatalf("all %d steps ran with the disk full", during)
	}
	// The database did refuse writes; no run was recorded ended.
	if c != nil && !strings.Contains(c.Log(), "No space left on device") {
		t.Errorf("PostgreSQL refused no write with its disk full; its log:\n%s", c.Log())
	}
	for _, id := range ids {
		if r, err := st.Run(id); err == nil && r.Status != "running" {
			t.Errorf("run %s is %s with the disk full: %s", id, r.Status, r.Error)
		}
	}
	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	waitRuns(t, st, ids...)
	var tally faultTally
	for j, id := range ids {
		checkRun(t, st, ctr, id, tags[j], 20, &tally)
	}
	tally.report(t, fmt.Sprintf("disk full (%s): %d of %d steps called before room was made", backend, during, 3*21))
}

// zeroReader reads zeros without end.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// frozenServer serves the accept flow on schema of c, runs it once (tag)
// to the end, and freezes the cluster, as a network partition leaves it.
// It returns the server, the counter, that run, and thaw, which the test
// calls when the state must come back (and which runs at its end
// otherwise).
func frozenServer(t *testing.T, c *pgtest.Cluster, schema, tag string) (*server, *counter, string, func()) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "accept.flow.hcl"), []byte(acceptFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	url := c.Schema(schema)
	ctr := newCounter(t, 0)
	s := serve(t, dir, faultEnv(url), "--state", url)
	id, _ := startRun(t, s, "accept", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, tag), "")
	if status, msg := waitEnded(t, s, id); status != "ok" {
		t.Fatalf("run %s: %s %s", id, status, msg)
	}
	c.Freeze()
	var once sync.Once
	thaw := func() { once.Do(c.Thaw) }
	t.Cleanup(thaw)
	return s, ctr, id, thaw
}
