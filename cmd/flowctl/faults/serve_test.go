package faults

import (
	"encoding/json"
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

// The fault-injection tests of a server's own faults (issue 48): a server
// killed (kill -9) right after it answered 202 loses none of the runs it
// answered for, with or without an Idempotency-Key, on SQLite and on
// PostgreSQL; each run is later run to its end by the server started
// after it. Each prints, with -v, a line "faults: …" of what it injected
// and counted.

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
	var c *pgtest.Cluster
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run("killed-after-202/"+backend, func(t *testing.T) {
			where, env := t.TempDir(), []string(nil)
			if backend == "postgres" {
				if c == nil {
					c = pgtest.StartCluster(t)
				}
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
	// A burst: 30 at once, half with a key.
	s := serve(t, dir, env, "--state", state)
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
