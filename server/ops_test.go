package server

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// TestDuplicateKeyStatus: of many starts at once with one Idempotency-Key,
// on two servers of one state, one is answered 202 and the others 200 with its run, and every reply
// carries the run's status, never an empty one.
func TestDuplicateKeyStatus(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) { o.MaxActive, o.MaxQueue = 2, 100 })
	ts2 := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) { o.Store = ts.store; o.MaxActive, o.MaxQueue = 2, 100 })
	servers := []*testServer{ts, ts2}
	const rounds, each = 10, 8
	for round := range rounds {
		key := fmt.Sprintf("dup-%d", round)
		replies := make([]runReply, each)
		codes := make([]int, each)
		var wg sync.WaitGroup
		for i := range each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = servers[i%2].code("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "ada"}}`, &replies[i], "Idempotency-Key", key)
			}()
		}
		wg.Wait()
		accepted := 0
		for i, rr := range replies {
			if codes[i] == http.StatusAccepted {
				accepted++
			}
			if (codes[i] != http.StatusAccepted && codes[i] != http.StatusOK) || rr.RunID != replies[0].RunID || rr.Status == "" {
				t.Errorf("round %d, start %d: %d %+v (first %s)", round, i, codes[i], rr, replies[0].RunID)
			}
		}
		if accepted != 1 {
			t.Errorf("round %d: %d starts answered 202, want 1", round, accepted)
		}
	}
}

// TestReadyzDocumented: the /readyz example of docs/serve.md names the
// checks that a server with the local engine answers.
func TestReadyzDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^\\| `GET /readyz` \\|[^`]*`(\\{[^`]*\\})`").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/serve.md has no /readyz example")
	}
	var documented, served struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	if err := json.Unmarshal(m[1], &documented); err != nil {
		t.Fatalf("the documented /readyz %s: %v", m[1], err)
	}
	ts := newTestServer(t, files{}, nil)
	if code := ts.code("GET", "/readyz", "", &served); code != http.StatusOK {
		t.Fatalf("/readyz: %d", code)
	}
	names := func(m map[string]string) []string {
		var n []string
		for k := range m {
			n = append(n, k)
		}
		slices.Sort(n)
		return n
	}
	if !slices.Equal(names(documented.Checks), names(served.Checks)) || documented.Status != served.Status {
		t.Errorf("docs/serve.md shows /readyz %+v, the local engine answers %+v", documented, served)
	}
}

// TestLogDurationMS: the log gives durations in milliseconds, as
// duration_ms: a run that sleeps 300ms logs "run finished" with a
// duration_ms of at least 300 (not 300,000,000 nanoseconds), and a
// request's line has one too.
func TestLogDurationMS(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, nil)
	id := ts.start("greet", `{"inputs": {"name": "ada", "wait": "300ms"}}`)
	ts.wait(id, "ok")
	ts.srv.Close()
	var finished, requests int
	for _, line := range strings.Split(strings.TrimSpace(ts.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if _, ok := rec["duration"]; ok {
			t.Errorf("a log line has duration: %s", line)
		}
		ms, ok := rec["duration_ms"].(float64)
		switch rec["msg"] {
		case "run finished":
			finished++
			if !ok || ms < 300 || ms > 1e6 {
				t.Errorf("run finished with duration_ms %v, want the milliseconds of a run of at least 300ms: %s", rec["duration_ms"], line)
			}
		case "request":
			requests++
			if !ok || ms < 0 || ms > 1e6 {
				t.Errorf("a request with duration_ms %v: %s", rec["duration_ms"], line)
			}
		}
	}
	if finished != 1 || requests == 0 {
		t.Errorf("%d lines run finished and %d request lines; want 1 and some:\n%s", finished, requests, ts.logs.String())
	}
}

// TestRunEndNotRecorded: a run whose steps all ran but whose end the state
// refuses (a constraint, here a trigger) is not logged as a run that did
// not start, nor answered as one: its steps are there, and its status is
// the one the state kept (failed, with why).
func TestRunEndNotRecorded(t *testing.T) {
	if os.Getenv(pgtest.EnvURL) != "" {
		t.Skip("the trigger is SQLite's")
	}
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, nil)
	db, err := sql.Open("sqlite", filepath.Join(ts.dir, ".flowctl", state.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER no_ok BEFORE UPDATE ON runs WHEN NEW.status = 'ok'
		BEGIN SELECT RAISE(ABORT, 'no run ends ok here'); END`); err != nil {
		t.Fatal(err)
	}
	id := ts.start("greet", `{"inputs": {"name": "ada"}}`)
	run := ts.wait(id, "ok", "failed")
	if run.Status != "failed" || !strings.Contains(string(run.Error), "no run ends ok here") || len(run.Steps) != 2 {
		t.Errorf("run %s: %s %s, %d steps; want failed with the state's error and its 2 steps", id, run.Status, run.Error, len(run.Steps))
	}
	for _, line := range strings.Split(ts.logs.String(), "\n") {
		if strings.Contains(line, id) && strings.Contains(line, "run not started") {
			t.Errorf("a run whose steps ran is logged as not started: %s", line)
		}
	}
	if !strings.Contains(ts.logs.String(), `"msg":"run not recorded"`) {
		t.Errorf("no \"run not recorded\" line:\n%s", ts.logs.String())
	}
}

// TestDuplicateKeyStatusOfTheState: a duplicate start answered while the
// server holds the run with no status of its own (a run another process
// took over: the state says what it is) carries the state's status.
func TestDuplicateKeyStatusOfTheState(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, nil)
	key := []string{"Idempotency-Key", "taken-1"}
	id := ts.start("greet", `{"inputs": {"name": "ada"}}`, key...)
	ts.wait(id, "ok")
	ts.srv.mu.Lock()
	lr := newLiveRun(id, "greet", nil, nil, "")
	lr.status = ""
	ts.srv.live[id] = lr
	ts.srv.mu.Unlock()
	var again runReply
	if code := ts.code("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "ada"}}`, &again, key...); code != http.StatusOK || again.RunID != id || again.Status != "ok" {
		t.Errorf("the key again: %d %+v, want 200 with run %s ok", code, again, id)
	}
}
