package faults

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// unrecordedFlow's first step calls the counter (slowly), its second
// too once the first has ended.
const unrecordedFlow = `
flow "unrecorded" {}

input "base" {
  type = string
}

input "tag" {
  type = string
}

step "first" {
  use = "http"
  url = "${input.base}/hit?k=${input.tag}-first"
}

step "after" {
  use = "http"
  url = "${input.base}/hit?k=${input.tag}-after-${step.first.status}"
}
`

// testUnrecordedResult: a served run whose step succeeded but whose
// result the state refused for good — a constraint, not a full disk:
// the run's row was deleted while the step ran (ON DELETE CASCADE took
// its steps), so the result breaks the foreign key — starts none of that
// step's dependants, and ends: the server runs it no more, and logs
// "run not recorded".
// (A NUL byte in a step's log or error was such a refusal on PostgreSQL,
// SQLSTATE 22021, until the state recorded it as U+FFFD: TestNulText.)
func testUnrecordedResult(t *testing.T, url string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "unrecorded.flow.hcl"), []byte(unrecordedFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	ctr := newCounter(t, 500*time.Millisecond)
	s := serve(t, dir, faultEnv(url), "--state", url)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const runs = 3
	calls := 0
	for i := range runs {
		tag := fmt.Sprintf("unrec%d", i)
		id := s.start(t, "unrecorded", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, tag))
		ctr.waitCalls(t, tag+"-first", 1)
		if _, err := db.Exec(`DELETE FROM runs WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		// The run ends in the server, and says it could not be recorded
		// (its end cannot be either).
		ended := "run not recorded\" run_id=" + id
		for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(s.out.String(), ended); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("run %s, whose row was deleted under it, has not ended after 2 minutes:\n%s", id, s.out.String())
			}
		}
		ctr.quiet(t, time.Second)
		n, _, _ := ctr.calls(tag + "-after")
		calls += n
		if n != 0 {
			t.Errorf("run %s: the dependant of a step whose result could not be recorded was called %d times; want 0", id, n)
		}
	}
	t.Logf("faults: unrecorded results: %d runs whose first step's result broke a foreign key (23503); %d dependants called", runs, calls)
}

// testStartsStatePaused: while the state's server answers nothing (its
// processes stopped, as a network partition leaves it), a start whose
// run cannot be recorded is answered 503 state_unavailable with
// Retry-After, within the write deadline, rather than no answer: the
// first while the server still takes the state for ready (its write is
// sent and hangs), the second behind it (its write waits for the writer,
// and is withdrawn). Once the state is back, each start retried with its
// Idempotency-Key gets a run that ends ok, its step called once: no run
// was half-recorded (a key without its run, a run no one runs).
func testStartsStatePaused(t *testing.T, c *pgtest.Cluster) {
	s, ctr, _, thaw := frozenServer(t, c, "starts_state_paused", "warm")
	// No answer in a minute is a failure (the client gives up).
	client := &http.Client{Timeout: time.Minute}
	tags := []string{"paused0", "paused1"}
	codes := make([]int, len(tags))
	var wg sync.WaitGroup
	for i, tag := range tags {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		wg.Go(func() {
			req, _ := http.NewRequest("POST", s.url+"/v1/flows/accept/runs",
				strings.NewReader(fmt.Sprintf(`{"inputs": {"base": %q, "tag": %q}}`, ctr.srv.URL, tag)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", tag)
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("start %s while the state does not answer: %v", tag, err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"state_unavailable"`) || resp.Header.Get("Retry-After") == "" {
				t.Errorf("start %s while the state does not answer: %d %s (Retry-After %q); want 503 state_unavailable with Retry-After",
					tag, resp.StatusCode, b, resp.Header.Get("Retry-After"))
			}
		})
	}
	wg.Wait()
	thaw()
	for _, tag := range tags {
		id, code := startRun(t, s, "accept", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, tag), tag)
		status, msg := waitEnded(t, s, id)
		if status != "ok" {
			t.Errorf("start %s retried with its key once the state is back: %d, run %s %s %s; want a run that ends ok", tag, code, id, status, msg)
		}
		if n, _, _ := ctr.calls(tag + "."); n != 1 {
			t.Errorf("start %s: its step called %d times; want once", tag, n)
		}
	}
	t.Logf("faults: starts while the state does not answer: %d starts, answered %v; each retried with its key ran once", len(tags), codes)
}
