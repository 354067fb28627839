package server

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// A testServer is a Server on a loopback port (httptest), with the flows
// of a temporary directory, a state of its own, the built-in blocks and js
// in the process, and its log kept.
type testServer struct {
	t     *testing.T
	srv   *Server
	http  *httptest.Server
	url   string
	dir   string
	store *state.Store
	token string
	logs  *syncBuffer
}

// syncBuffer is a bytes.Buffer written by several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// files are the files of a test's flow directory, by name.
type files map[string]string

// newTestServer serves files; edit changes the options before the server
// starts (Dir, Store, Executors and Logger are set).
func newTestServer(t *testing.T, fs files, edit func(*Options)) *testServer {
	t.Helper()
	dir := t.TempDir()
	for name, src := range fs {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := openState(t, filepath.Join(dir, ".flowctl"))
	logs := &syncBuffer{}
	opts := Options{
		Dir: dir, Store: st, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{lang.RuntimeJS: jsrun.NewExecutor()}},
	}
	if edit != nil {
		edit(&opts)
	}
	srv := New(opts)
	hs := httptest.NewServer(srv)
	ts := &testServer{t: t, srv: srv, http: hs, url: hs.URL, dir: dir, store: st, logs: logs}
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		srv.Close()
	})
	return ts
}

// openState opens a state in dir, or, when pgtest.EnvURL is set
// (.ci/with-postgres), in a PostgreSQL schema of the test's own.
func openState(t testing.TB, dir string) *state.Store {
	t.Helper()
	var st *state.Store
	var err error
	name := "srv_" + strings.ToLower(strings.NewReplacer("/", "_", "-", "_", "=", "_", "+", "_").Replace(t.Name())) + "_" + newRequestID()
	if url := pgtest.URL(t, name); url != "" {
		st, err = state.OpenURL(url)
		t.Cleanup(func() { dropSchema(t, name) })
	} else {
		st, err = state.Open(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// dropSchema drops a test's PostgreSQL schema.
func dropSchema(t testing.TB, name string) {
	db, err := sql.Open("pgx", os.Getenv(pgtest.EnvURL))
	if err != nil {
		t.Error(err)
		return
	}
	defer db.Close()
	if _, err := db.Exec(`DROP SCHEMA ` + name + ` CASCADE`); err != nil {
		t.Error(err)
	}
}

// do sends a request, with the server's token when it has one, and
// decodes a JSON reply into out (when not nil). headers are name, value
// pairs; a JSON body gets Content-Type: application/json unless they say
// otherwise.
func (ts *testServer) do(method, path, body string, out any, headers ...string) *http.Response {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		ts.t.Fatal(err)
	}
	if ts.token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			ts.t.Fatalf("%s %s: %d %v: %s", method, path, resp.StatusCode, err, b)
		}
	}
	return resp
}

// body is the body of a GET.
func (ts *testServer) body(path string) string {
	ts.t.Helper()
	resp, err := http.Get(ts.url + path)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// code sends a request and returns the reply's status.
func (ts *testServer) code(method, path, body string, out any, headers ...string) int {
	ts.t.Helper()
	return ts.do(method, path, body, out, headers...).StatusCode
}

// runReply is the body of a reply about a run, or an error.
type runReply struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
	Error  struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	} `json:"error"`
}

// start starts a run of flow and returns its ID.
func (ts *testServer) start(flow, body string, headers ...string) string {
	ts.t.Helper()
	var rr runReply
	if code := ts.code("POST", "/v1/flows/"+flow+"/runs", body, &rr, headers...); code != http.StatusAccepted {
		ts.t.Fatalf("starting %s: %d %+v", flow, code, rr)
	}
	return rr.RunID
}

// runJSON is GET /v1/runs/{id} as the tests read it.
type runJSON struct {
	RunID  string          `json:"run_id"`
	Status string          `json:"status"`
	Error  json.RawMessage `json:"error"`
	Steps  []struct {
		Step     string          `json:"step"`
		Instance string          `json:"instance"`
		Status   string          `json:"status"`
		Outputs  json.RawMessage `json:"outputs"`
	} `json:"steps"`
	Outputs map[string]any `json:"outputs"`
}

// wait polls a run until its status is one of want, for far longer than
// it should take.
func (ts *testServer) wait(id string, want ...string) runJSON {
	ts.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var run runJSON
		ts.code("GET", "/v1/runs/"+id, "", &run)
		for _, w := range want {
			if run.Status == w {
				return run
			}
		}
		if time.Now().After(deadline) {
			ts.t.Fatalf("run %s is %s, not %v", id, run.Status, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const greetFlow = `flow "greet" {}

input "name" {
  type = string
}

input "wait" {
  type    = string
  default = "0s"
}

step "pause" {
  use      = "sleep"
  duration = input.wait
}

step "hello" {
  use        = "value"
  value      = "Hello, ${input.name}!"
  depends_on = [step.pause]
}

output "greeting" {
  value = step.hello.value
}
`

const reviewFlow = `flow "review" {}

step "draft" {
  use   = "value"
  value = "text"
}

step "check" {
  use     = "approval"
  message = "Publish it?"
}

step "publish" {
  use        = "value"
  value      = upper(step.draft.value)
  depends_on = [step.check]
}

output "published" {
  value = step.publish.value
}
`
