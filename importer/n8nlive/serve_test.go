package n8nlive

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/importer/importtest"
	"golang.org/x/tools/txtar"
	_ "modernc.org/sqlite" // n8n's database, to publish the workflows
)

// TestN8NServe runs each n8n case started by a request (run/request.json:
// a Webhook, a Chat Trigger or a Form Trigger) in n8n as a server and,
// imported, under flowctl serve, against the same local HTTP server: the
// answers to the same request (status, media type, body) must be the
// same — or, where n8n's run fails, flowctl's must fail too (each says so
// in its own words) — and n8n's the same as the case records
// (run/response.json).
func TestN8NServe(t *testing.T) {
	n8n := os.Getenv("FLOWCTL_N8N")
	if n8n == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FLOWCTL_N8N is not set: .ci/run installs n8n and runs this test with it")
		}
		t.Skip("FLOWCTL_N8N is not set (the path of n8n; .ci/run installs it)")
	}
	var cases []*importtest.Case
	for _, c := range importtest.Cases(t, "../testdata") {
		if c.Format == "n8n" && c.Serves() && c.Files["run/not-in-n8n"] == nil {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		t.Fatal("no n8n case is started by a request")
	}
	flowctl := buildFlowctl(t)
	home := t.TempDir()
	env, runnerEnv := n8nEnv(t, home)
	servers, ids := loadN8N(t, n8n, env, home, cases, publicChat)
	publish(t, home, ids)
	for _, c := range cases {
		env = append(env, caseEnv(c)...)
	}
	stopRunner := startRunner(t, n8n, runnerEnv)
	defer stopRunner()
	base := startN8N(t, n8n, env, ids)

	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			srv := servers[c.Name]
			req := caseRequest(t, c)
			fromN8N := send(t, base, req)
			srv.Reset()
			fromFlowctl := serveFlowctl(t, flowctl, c, srv.URL, req)
			if failed(fromN8N) {
				// Each server says in its own words that the run failed.
				if m, _ := fromFlowctl.JSON.(map[string]any); fromFlowctl.Status != http.StatusInternalServerError || m["status"] != "failed" {
					t.Errorf("n8n's run failed (%s), flowctl answers %s", importtest.JSON(fromN8N), importtest.JSON(fromFlowctl))
				}
			} else {
				compareAnswers(t, "flowctl", fromFlowctl, "n8n", fromN8N)
			}
			if *update {
				recordAnswer(t, c, fromN8N)
				return
			}
			var want answer
			if err := json.Unmarshal(c.Files["run/response.json"], &want); err != nil {
				t.Fatalf("run/response.json: %v", err)
			}
			compareAnswers(t, "the case's record (run/response.json)", want, "n8n", fromN8N)
		})
	}
}

// publicChat makes a Chat Trigger that is not public public, in what n8n
// is given: n8n runs such a trigger only from its editor's chat, which
// has no URL, and answers 404 at the trigger's URL; public, it runs the
// workflow at that URL as the editor's chat does.
func publicChat(_ *importtest.Case, wf map[string]any) {
	nodes, _ := wf["nodes"].([]any)
	for _, n := range nodes {
		node, _ := n.(map[string]any)
		if node["type"] != "@n8n/n8n-nodes-langchain.chatTrigger" {
			continue
		}
		params, _ := node["parameters"].(map[string]any)
		if params == nil {
			params = map[string]any{}
			node["parameters"] = params
		}
		params["public"] = true
	}
}

// publish makes the imported workflows active, as n8n publish:workflow
// does (WorkflowRepository.publishVersion: active, and the current
// version the active one), for them all at once: the command publishes
// one workflow and takes seconds to start. n8n activates them when it
// starts.
func publish(t *testing.T, home string, ids map[string]string) {
	db, err := sql.Open("sqlite", filepath.Join(home, ".n8n", "database.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, id := range ids {
		res, err := db.Exec(`UPDATE workflow_entity SET active = 1, activeVersionId = versionId WHERE id = ?`, id)
		if err != nil {
			t.Fatalf("publishing workflow %s: %v", id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("publishing workflow %s: %d workflows have this id", id, n)
		}
	}
}

// startN8N starts n8n as a server and waits until it has activated every
// workflow of ids (its log says so, a JSON line each); it returns its URL.
// The test's cleanup stops it.
func startN8N(t *testing.T, n8n string, env []string, ids map[string]string) string {
	t.Helper()
	var port string
	for _, e := range env {
		if p, ok := strings.CutPrefix(e, "N8N_PORT="); ok {
			port = p
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, n8n, "start")
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 20 * time.Second
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatalf("n8n start: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); w.Close(); close(exited) }()
	var (
		mu  sync.Mutex
		log bytes.Buffer
	)
	t.Cleanup(func() {
		cancel()
		<-exited
		if t.Failed() {
			mu.Lock()
			t.Logf("n8n said:\n%s", log.String())
			mu.Unlock()
		}
	})
	pending := map[string]bool{}
	for _, id := range ids {
		pending[id] = true
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			mu.Lock()
			log.Write(sc.Bytes())
			log.WriteByte('\n')
			mu.Unlock()
			var line struct {
				Message  string `json:"message"`
				Metadata struct {
					WorkflowID string `json:"workflowId"`
				} `json:"metadata"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || !strings.HasPrefix(line.Message, "Activated workflow") {
				continue
			}
			if pending[line.Metadata.WorkflowID] {
				delete(pending, line.Metadata.WorkflowID)
				if len(pending) == 0 {
					close(ready)
				}
			}
		}
		io.Copy(io.Discard, r)
	}()
	select {
	case <-ready:
	case <-exited:
		t.Fatal("n8n start ended before it activated the workflows")
	case <-time.After(10 * time.Minute):
		t.Fatal("n8n did not activate every workflow within 10 minutes")
	}
	return "http://127.0.0.1:" + port
}

// request is a case's request (run/request.json).
type request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	JSON    any               `json:"json"`
	Form    map[string]string `json:"form"`
	Text    string            `json:"text"`
}

func caseRequest(t *testing.T, c *importtest.Case) request {
	var req request
	if err := json.Unmarshal(c.Files["run/request.json"], &req); err != nil {
		t.Fatalf("run/request.json: %v", err)
	}
	if req.Method == "" {
		req.Method = "POST"
	}
	return req
}

// answer is what a server answers a request (run/response.json): the
// status, the media type, and the body, as JSON when the type is JSON.
type answer struct {
	Status int    `json:"status"`
	Type   string `json:"type,omitempty"`
	JSON   any    `json:"json,omitempty"`
	Text   string `json:"text,omitempty"`
}

// send sends the request to the server at base and reads its answer.
func send(t *testing.T, base string, req request) answer {
	t.Helper()
	var body io.Reader
	contentType := ""
	switch {
	case req.JSON != nil:
		b, _ := json.Marshal(req.JSON)
		body, contentType = bytes.NewReader(b), "application/json"
	case req.Form != nil:
		v := url.Values{}
		for k, x := range req.Form {
			v.Set(k, x)
		}
		body, contentType = strings.NewReader(v.Encode()), "application/x-www-form-urlencoded"
	case req.Text != "":
		body, contentType = strings.NewReader(req.Text), "text/plain"
	}
	r, err := http.NewRequest(req.Method, base+req.Path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for k, v := range req.Headers {
		r.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 5 * time.Minute}
	res, err := client.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, base+req.Path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	a := answer{Status: res.StatusCode}
	a.Type, _, _ = mime.ParseMediaType(res.Header.Get("Content-Type"))
	if strings.Contains(a.Type, "json") && json.Unmarshal(b, &a.JSON) == nil {
		return a
	}
	a.Text = string(b)
	return a
}

// failed reports whether n8n's answer says the run failed (n8n's
// "Error in workflow", as a webhook's caller gets it).
func failed(a answer) bool {
	m, _ := a.JSON.(map[string]any)
	return a.Status == http.StatusInternalServerError && m["message"] == "Error in workflow"
}

// compareAnswers reports a difference of status, media type or body
// (JSON as values, objects without order).
func compareAnswers(t *testing.T, gotName string, got answer, wantName string, want answer) {
	t.Helper()
	if got.Status != want.Status || got.Type != want.Type || got.Text != want.Text || !reflect.DeepEqual(normal(got.JSON), normal(want.JSON)) {
		t.Errorf("the answers differ:\n%s: %s\n%s: %s", gotName, importtest.JSON(got), wantName, importtest.JSON(want))
	}
}

func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// serveFlowctl imports the case's workflow, serves it (flowctl serve,
// with the case's secrets) and sends it the request; it returns the
// answer.
func serveFlowctl(t *testing.T, flowctl string, c *importtest.Case, srvURL string, req request) answer {
	dir := t.TempDir()
	src := filepath.Join(dir, "workflow.json")
	os.WriteFile(src, importtest.Substitute(c.Files["source.json"], srvURL), 0o644)
	// The case's environment ($env.NAME: secrets whose env is NAME) and
	// secrets (run/args).
	env := append(append(os.Environ(), "FLOWCTL_MODEL=test"), caseEnv(c)...)
	args := c.Args()
	for i := 0; i < len(args); i++ {
		if args[i] != "--secret" || i+1 == len(args) {
			t.Fatalf("run/args: %q: a case served is given only secrets (--secret NAME=VALUE)", args[i])
		}
		name, value, _ := strings.Cut(args[i+1], "=")
		env = append(env, "FLOWCTL_SECRET_"+strings.ToUpper(name)+"="+value)
		i++
	}
	cmd := exec.Command(flowctl, "import", "--out", filepath.Join(dir, "flow"), src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("flowctl import: %v\n%s", err, out)
	}
	c.PointAtServer(t, filepath.Join(dir, "flow"), srvURL)
	addr := "127.0.0.1:" + freePort(t)
	serve := exec.Command(flowctl, "serve", "--addr", addr, "--state", filepath.Join(dir, "state"), filepath.Join(dir, "flow"))
	serve.Env = env
	var log bytes.Buffer
	serve.Stdout, serve.Stderr = &log, &log
	if err := serve.Start(); err != nil {
		t.Fatalf("flowctl serve: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	defer func() {
		serve.Process.Signal(os.Interrupt)
		<-exited
		if t.Failed() {
			t.Logf("flowctl serve said:\n%s", log.String())
		}
	}()
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("flowctl serve ended: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	a := send(t, "http://"+addr, req)
	m, _ := a.JSON.(map[string]any)
	if id, _ := m["run_id"].(string); a.Status != http.StatusOK && id != "" {
		// Why the run failed, for the test's message.
		if res, err := http.Get("http://" + addr + "/v1/runs/" + id); err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			t.Logf("flowctl's run %s: %s", id, b)
		}
	}
	return a
}

// recordAnswer writes n8n's answer into the case (go test -update).
func recordAnswer(t *testing.T, c *importtest.Case, a answer) {
	ar, err := txtar.ParseFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(a, "", "  ")
	b = append(b, '\n')
	set := false
	for i := range ar.Files {
		if ar.Files[i].Name == "run/response.json" {
			ar.Files[i].Data, set = b, true
		}
	}
	if !set {
		ar.Files = append(ar.Files, txtar.File{Name: "run/response.json", Data: b})
	}
	if err := os.WriteFile(c.Path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "recorded %s\n", c.Path)
}
