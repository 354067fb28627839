package cli

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveProc is a flowctl serve process on a loopback port.
type serveProc struct {
	t      *testing.T
	url    string
	token  string
	cmd    *exec.Cmd
	killed bool
	// client sends the requests (http.DefaultClient unless set).
	client *http.Client
	// stderr is what the server wrote after saying where it listens,
	// before what it wrote until then.
	stderr *lockedBuffer
	before string
}

// lockedBuffer is a bytes.Buffer that a goroutine writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// kill ends the server with SIGKILL, as a crash would.
func (p *serveProc) kill() {
	p.killed = true
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// startServe starts flowctl serve on dir and waits until it listens.
func startServe(t *testing.T, dir string, env []string, args ...string) *serveProc {
	t.Helper()
	cmd := flowctl(t, dir, append([]string{"serve", "--addr", "127.0.0.1:0", "--sandbox", "inprocess"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	addr := regexp.MustCompile(`on (https?://127\.0\.0\.1:\d+)`)
	url := ""
	var before strings.Builder // what the server wrote before it listened
	for lines.Scan() {
		before.WriteString(lines.Text() + "\n")
		if m := addr.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		cmd.Process.Kill()
		t.Fatal("serve did not say where it listens")
	}
	p := &serveProc{t: t, url: url, cmd: cmd, client: http.DefaultClient, stderr: &lockedBuffer{}}
	p.before = before.String()
	go io.Copy(p.stderr, stderr)
	t.Cleanup(func() {
		if p.killed {
			return
		}
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve after SIGTERM: %v", err)
			}
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Error("serve did not stop after SIGTERM")
		}
	})
	return p
}

// do sends a request and decodes the JSON reply into out (when not nil).
func (p *serveProc) do(method, path, body string, out any, headers ...string) int {
	p.t.Helper()
	req, err := http.NewRequest(method, p.url+path, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			p.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	id, event, data string
}

// events reads a run's event stream to its end.
func (p *serveProc) events(id string, lastID string) []sseEvent {
	p.t.Helper()
	st := p.openEvents(id, lastID)
	defer st.close()
	var out []sseEvent
	for {
		e, ok := st.next()
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

// eventStream reads a run's event stream one event at a time.
type eventStream struct {
	body io.ReadCloser
	sc   *bufio.Scanner
}

// openEvents opens a run's event stream.
func (p *serveProc) openEvents(id string, lastID string) *eventStream {
	p.t.Helper()
	req, _ := http.NewRequest("GET", p.url+"/v1/runs/"+id+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		resp.Body.Close()
		p.t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &eventStream{body: resp.Body, sc: sc}
}

// next returns the next event; false at the end of the stream.
func (st *eventStream) next() (sseEvent, bool) {
	var cur sseEvent
	for st.sc.Scan() {
		line := st.sc.Text()
		switch {
		case line == "":
			if cur.event != "" {
				return cur, true
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		}
	}
	return sseEvent{}, false
}

func (st *eventStream) close() { st.body.Close() }

const serveFlow = `flow "greet" {
  description = "Greets"
}

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

func serveDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greet.flow.hcl"), []byte(serveFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

type runReply struct {
	RunID  string            `json:"run_id"`
	Status string            `json:"status"`
	Links  map[string]string `json:"links"`
	Error  struct {
		Code        string `json:"code"`
		Message     string `json:"message"`
		Diagnostics []struct {
			Summary string `json:"summary"`
		} `json:"diagnostics"`
	} `json:"error"`
}

// TestServeRunAndEvents: a run started over HTTP finishes, its record and
// its full event stream can be read, and a client that reconnects with
// Last-Event-ID gets exactly the events it missed.
func TestServeRunAndEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	p := startServe(t, serveDir(t), nil)
	var health map[string]string
	if p.do("GET", "/healthz", "", &health) != 200 || health["status"] != "ok" {
		t.Fatalf("healthz: %v", health)
	}
	var flows struct {
		Flows []struct {
			Name   string `json:"name"`
			Inputs []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"inputs"`
		} `json:"flows"`
	}
	if p.do("GET", "/v1/flows", "", &flows) != 200 || len(flows.Flows) != 1 || flows.Flows[0].Name != "greet" || !flows.Flows[0].Inputs[0].Required {
		t.Fatalf("flows: %+v", flows)
	}
	var r runReply
	if code := p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}}`, &r); code != 202 || r.RunID == "" || r.Links["events"] != "/v1/runs/"+r.RunID+"/events" {
		t.Fatalf("start: %d %+v", code, r)
	}
	evs := p.events(r.RunID, "")
	if len(evs) < 4 || evs[0].event != "run_started" || evs[len(evs)-1].event != "run_finished" {
		t.Fatalf("events: %+v", evs)
	}
	for i, e := range evs {
		if e.id != fmt.Sprint(i+1) || !strings.Contains(e.data, `"type":"`+e.event+`"`) {
			t.Errorf("event %d: %+v", i+1, e)
		}
	}
	if !strings.Contains(evs[len(evs)-1].data, `"greeting":"Hello, Ada!"`) {
		t.Errorf("run_finished: %s", evs[len(evs)-1].data)
	}
	missed := p.events(r.RunID, "2")
	if len(missed) != len(evs)-2 || missed[0].id != "3" || missed[len(missed)-1].event != "run_finished" {
		t.Errorf("after 2: %+v", missed)
	}
	var run struct {
		Status  string            `json:"status"`
		Outputs map[string]string `json:"outputs"`
		Steps   []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"steps"`
	}
	if p.do("GET", "/v1/runs/"+r.RunID, "", &run) != 200 || run.Status != "ok" || run.Outputs["greeting"] != "Hello, Ada!" || len(run.Steps) != 2 {
		t.Errorf("run: %+v", run)
	}
	var list struct {
		Runs []struct {
			RunID  string `json:"run_id"`
			Status string `json:"status"`
		} `json:"runs"`
	}
	if p.do("GET", "/v1/runs?flow=greet&status=ok", "", &list) != 200 || len(list.Runs) != 1 || list.Runs[0].RunID != r.RunID {
		t.Errorf("runs: %+v", list)
	}
}

// TestServeErrors: unknown flows and runs are 404, bad inputs 400 with
// diagnostics, unknown fields 400, all as {"error": {...}}.
func TestServeErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	p := startServe(t, serveDir(t), nil)
	for _, c := range []struct {
		method, path, body string
		code               int
		errCode            string
	}{
		{"POST", "/v1/flows/nope/runs", `{}`, 404, "not_found"},
		{"POST", "/v1/flows/greet/runs", `{}`, 400, "invalid_inputs"},
		{"POST", "/v1/flows/greet/runs", `{"inputs": {"name": 1, "other": 2}}`, 400, "invalid_inputs"},
		{"POST", "/v1/flows/greet/runs", `{"inputz": {}}`, 400, "bad_request"},
		{"GET", "/v1/runs/nope", ``, 404, "not_found"},
		{"GET", "/v1/runs/nope/events", ``, 404, "not_found"},
		{"POST", "/v1/runs/nope/cancel", ``, 404, "not_found"},
		{"GET", "/v1/runs?limit=0", ``, 400, "bad_request"},
	} {
		var r runReply
		if code := p.do(c.method, c.path, c.body, &r); code != c.code || r.Error.Code != c.errCode || r.Error.Message == "" {
			t.Errorf("%s %s %s: %d %+v", c.method, c.path, c.body, code, r.Error)
		}
		if c.errCode == "invalid_inputs" && len(r.Error.Diagnostics) == 0 {
			t.Errorf("%s: no diagnostics", c.body)
		}
	}
}

// TestServeQueueCancelIdempotency: beyond --max-active runs wait queued and
// start in order; a queued or running run can be cancelled; an
// Idempotency-Key seen before gives its run.
func TestServeQueueCancelIdempotency(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	p := startServe(t, serveDir(t), nil, "--max-active", "1")
	var long, queued, again runReply
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "long", "wait": "1h"}}`, &long, "Idempotency-Key", "k1")
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "next"}}`, &queued)
	if queued.Status != "queued" {
		t.Fatalf("second run: %+v", queued)
	}
	if code := p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "long", "wait": "1h"}}`, &again, "Idempotency-Key", "k1"); code != 200 || again.RunID != long.RunID {
		t.Errorf("idempotent start: %d %+v, want %s", code, again, long.RunID)
	}
	var c runReply
	if code := p.do("POST", "/v1/runs/"+queued.RunID+"/cancel", "", &c); code != 200 || c.Status != "cancelled" {
		t.Errorf("cancel queued: %d %+v", code, c)
	}
	// A run cancelled before it started is recorded, and streamed.
	qevs := p.events(queued.RunID, "")
	if last := qevs[len(qevs)-1]; last.event != "run_finished" || !strings.Contains(last.data, `"status":"cancelled"`) {
		t.Errorf("the cancelled queued run ends with %+v", last)
	}
	var rec struct {
		Status string `json:"status"`
	}
	if p.do("GET", "/v1/runs/"+queued.RunID, "", &rec); rec.Status != "cancelled" {
		t.Errorf("the cancelled queued run's record: %+v", rec)
	}
	if code := p.do("POST", "/v1/runs/"+long.RunID+"/cancel", "", &c); code != 202 || c.Status != "cancelling" {
		t.Errorf("cancel running: %d %+v", code, c)
	}
	evs := p.events(long.RunID, "")
	if last := evs[len(evs)-1]; last.event != "run_finished" || !strings.Contains(last.data, `"status":"cancelled"`) {
		t.Errorf("the cancelled run ends with %+v", last)
	}
	if code := p.do("POST", "/v1/runs/"+long.RunID+"/cancel", "", &c); code != 409 || c.Error.Code != "finished" {
		t.Errorf("cancel finished: %d %+v", code, c.Error)
	}
}

// TestServeToken: with a token every request but /healthz needs it;
// serve refuses a non-loopback address without one.
func TestServeToken(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	p := startServe(t, dir, []string{"FLOWCTL_TOKEN=s3cret-0123456789"})
	var r runReply
	if code := p.do("GET", "/v1/flows", "", &r); code != 401 || r.Error.Code != "unauthorized" {
		t.Errorf("without the token: %d %+v", code, r.Error)
	}
	if code := p.do("GET", "/healthz", "", nil); code != 200 {
		t.Errorf("healthz without the token: %d", code)
	}
	p.token = "s3cret-0123456789"
	if code := p.do("GET", "/v1/flows", "", nil); code != 200 {
		t.Errorf("with the token: %d", code)
	}
	cmd := flowctl(t, dir, "serve", "--addr", "0.0.0.0:0")
	out, err := cmd.CombinedOutput()
	if err == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "only with a token") {
		t.Errorf("non-loopback without a token: %v\n%s", err, out)
	}
}

// TestServeManyRuns: 200 runs started at once all finish, each with its
// whole event stream.
func TestServeManyRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	p := startServe(t, serveDir(t), nil)
	const n = 200
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var r runReply
			if code := p.do("POST", "/v1/flows/greet/runs", fmt.Sprintf(`{"inputs": {"name": "n%d"}}`, i), &r); code != 202 {
				t.Errorf("run %d: %d %+v", i, code, r)
			}
			ids[i] = r.RunID
		})
	}
	wg.Wait()
	for i, id := range ids {
		evs := p.events(id, "")
		if len(evs) < 4 || evs[len(evs)-1].event != "run_finished" || !strings.Contains(evs[len(evs)-1].data, fmt.Sprintf(`"Hello, n%d!"`, i)) {
			t.Fatalf("run %d: %+v", i, evs)
		}
	}
}

// TestServeRecompiles: an edit of a flow is picked up; an edit that does
// not compile is reported by GET /v1/flows while runs use the last good
// version; bodies over 1 MiB are refused.
func TestServeRecompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	p := startServe(t, dir, nil)
	type flowsReply struct {
		Flows []struct {
			Description string `json:"description"`
			Errors      []struct {
				Summary string `json:"summary"`
			} `json:"errors"`
		} `json:"flows"`
	}
	// until polls GET /v1/flows until cond holds (the server looks at the
	// files at most twice a second).
	until := func(what string, cond func(flowsReply) bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			var f flowsReply
			p.do("GET", "/v1/flows", "", &f)
			if len(f.Flows) == 1 && cond(f) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v", what, f)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	flow := filepath.Join(dir, "greet.flow.hcl")
	os.WriteFile(flow, []byte(strings.Replace(serveFlow, `description = "Greets"`, `description = "Says hello"`, 1)), 0o644)
	until("the edit", func(f flowsReply) bool { return f.Flows[0].Description == "Says hello" && len(f.Flows[0].Errors) == 0 })
	os.WriteFile(flow, []byte(strings.Replace(serveFlow, "step.pause", "step.nope", 1)), 0o644)
	until("the broken edit", func(f flowsReply) bool {
		return len(f.Flows[0].Errors) == 1 && f.Flows[0].Errors[0].Summary == "Unknown step" && f.Flows[0].Description == "Says hello"
	})
	var r runReply
	if code := p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}}`, &r); code != 202 {
		t.Fatalf("a run of the last good version: %d %+v", code, r)
	}
	if evs := p.events(r.RunID, ""); !strings.Contains(evs[len(evs)-1].data, `"Hello, Ada!"`) {
		t.Errorf("the run: %+v", evs[len(evs)-1])
	}
	big := `{"inputs": {"name": "` + strings.Repeat("x", 2<<20) + `"}}`
	if code := p.do("POST", "/v1/flows/greet/runs", big, &r); code != 413 || r.Error.Code != "too_large" {
		t.Errorf("a 2 MiB body: %d %+v", code, r.Error)
	}
}

// TestServeSchedules: a schedule starts runs of its flow with its inputs;
// a time missed while no server ran starts one run when the server
// starts, unless catch_up = false.
func TestServeSchedules(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	flow := serveFlow + `
schedule "often" {
  cron   = "@every 1s"
  inputs = { name = "often" }
}

schedule "hourly" {
  cron   = "@every 1h"
  inputs = { name = "hourly" }
}

schedule "hourly_no_catch_up" {
  cron     = "@every 1h"
  inputs   = { name = "skipped" }
  catch_up = false
}
`
	os.WriteFile(filepath.Join(dir, "greet.flow.hcl"), []byte(flow), 0o644)
	// The hourly schedules last fired two hours ago: one was missed.
	st, err := openStateDir(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hourly", "hourly_no_catch_up"} {
		if err := st.SetScheduleFired("greet", name, time.Now().Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	p := startServe(t, dir, nil)
	greetings := func() map[string]int {
		var list struct {
			Runs []struct {
				RunID  string `json:"run_id"`
				Status string `json:"status"`
			} `json:"runs"`
		}
		p.do("GET", "/v1/runs?limit=1000", "", &list)
		got := map[string]int{}
		for _, r := range list.Runs {
			if r.Status != "ok" {
				continue
			}
			var run struct {
				Inputs map[string]string `json:"inputs"`
			}
			p.do("GET", "/v1/runs/"+r.RunID, "", &run)
			got[run.Inputs["name"]]++
		}
		return got
	}
	deadline := time.Now().Add(time.Minute)
	for {
		g := greetings()
		if g["often"] >= 2 && g["hourly"] >= 1 {
			if g["hourly"] != 1 || g["skipped"] != 0 {
				t.Errorf("runs by name: %v", g)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs by name: %v", g)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestServeMetrics: GET /metrics counts runs by status and step
// durations, and says how many runs are queued and running.
func TestServeMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	p := startServe(t, serveDir(t), nil)
	var r runReply
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}}`, &r)
	p.events(r.RunID, "") // until it has finished
	// The run leaves the active ones just after its stream ends.
	var b []byte
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(p.url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "flowctl_runs_active 0") || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		`flowctl_runs_total{flow="greet",status="ok"} 1`,
		`flowctl_step_duration_seconds_count{flow="greet",status="ok"} 2`,
		`flowctl_runs_queued 0`,
		`flowctl_runs_active 0`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %q in\n%s", want, b)
		}
	}
}

// TestServeNotify: each finished run's summary is POSTed to --notify,
// signed with FLOWCTL_NOTIFY_SECRET, and tried again after a failure.
func TestServeNotify(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	var mu sync.Mutex
	var bodies [][]byte
	var sigs []string
	tries := 0
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		tries++
		if tries == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // tried again
			return
		}
		bodies = append(bodies, b)
		sigs = append(sigs, r.Header.Get("X-Flowctl-Signature"))
	}))
	defer recv.Close()
	p := startServe(t, serveDir(t), []string{"FLOWCTL_NOTIFY_SECRET=shh"}, "--notify", recv.URL)
	var r runReply
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}}`, &r)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(bodies)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no notification")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var sum struct {
		Type        string            `json:"type"`
		RunID       string            `json:"run_id"`
		Status      string            `json:"status"`
		Outputs     map[string]string `json:"outputs"`
		FailedSteps []string          `json:"failed_steps"`
		Link        string            `json:"link"`
	}
	if err := json.Unmarshal(bodies[0], &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Type != "run_finished" || sum.RunID != r.RunID || sum.Status != "ok" || sum.Outputs["greeting"] != "Hello, Ada!" ||
		len(sum.FailedSteps) != 0 || sum.Link != p.url+"/v1/runs/"+r.RunID {
		t.Errorf("summary: %s", bodies[0])
	}
	mac := hmac.New(sha256.New, []byte("shh"))
	mac.Write(bodies[0])
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); sigs[0] != want || tries != 2 {
		t.Errorf("signature %q, want %q; %d tries", sigs[0], want, tries)
	}
}

// TestServeNamespaceHeader: with --namespace-header, a trusted proxy's
// header chooses the namespace of the runs a request starts.
func TestServeNamespaceHeader(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	p := startServe(t, serveDir(t), nil, "--namespace-header", "X-Tenant")
	var r runReply
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}, "namespace": "body"}`, &r, "X-Tenant", "acme")
	p.events(r.RunID, "")
	var run struct {
		Namespace string `json:"namespace"`
	}
	if p.do("GET", "/v1/runs/"+r.RunID, "", &run); run.Namespace != "acme" {
		t.Errorf("namespace %q, want acme", run.Namespace)
	}
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}, "namespace": "body"}`, &r)
	p.events(r.RunID, "")
	if p.do("GET", "/v1/runs/"+r.RunID, "", &run); run.Namespace != "body" {
		t.Errorf("namespace %q without the header, want body", run.Namespace)
	}
}

// TestServeIdempotencyKeysAreKept: an Idempotency-Key is kept in the
// state, so another server on it (a restart) gives the same run.
func TestServeIdempotencyKeysAreKept(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	first := startServe(t, dir, nil)
	var a, b runReply
	first.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}}`, &a, "Idempotency-Key", "order-17")
	first.events(a.RunID, "")
	second := startServe(t, dir, nil)
	if code := second.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada"}}`, &b, "Idempotency-Key", "order-17"); code != 200 || b.RunID != a.RunID || b.Status != "ok" {
		t.Errorf("the key at another server: %d %+v, want run %s", code, b, a.RunID)
	}
}
