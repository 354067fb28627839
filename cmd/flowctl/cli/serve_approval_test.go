package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const approvalServeFlow = `flow "mail" {}

input "to" {
  type = string
}

step "draft" {
  use   = "value"
  value = "Dear ${input.to}"
}

step "review" {
  use     = "approval"
  message = "Send to ${input.to}?"
}

step "send" {
  use   = "value"
  value = "${step.draft.value}, approved by ${step.review.by}"
}

output "sent" {
  value = step.send.value
}
`

type runRecord struct {
	Status string `json:"status"`
	Error  struct {
		Message string `json:"message"`
	} `json:"error"`
	Outputs map[string]string `json:"outputs"`
	Steps   []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"steps"`
}

// waitStatus polls a run until its status is want.
func (p *serveProc) waitStatus(id, want string) runRecord {
	p.t.Helper()
	var run runRecord
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		run = runRecord{}
		if p.do("GET", "/v1/runs/"+id, "", &run) == 200 && run.Status == want {
			return run
		}
	}
	p.t.Fatalf("run %s is %s (%s), not %s", id, run.Status, run.Error.Message, want)
	return run
}

// TestServeApproval: a run waits at its approval step, its event stream
// open; a decision through the API continues it, and the stream goes on to
// run_finished; deciding again, or a step that does not wait, is 409. A
// waiting run survives kill -9 of the server and can be decided after the
// restart.
func TestServeApproval(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mail.flow.hcl"), []byte(approvalServeFlow), 0o644)
	notes := make(chan []byte, 10)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		notes <- b
	}))
	defer recv.Close()
	p := startServe(t, dir, nil, "--notify", recv.URL)
	var r runReply
	if code := p.do("POST", "/v1/flows/mail/runs", `{"inputs": {"to": "Ada"}}`, &r); code != 202 {
		t.Fatalf("start: %d %+v", code, r)
	}
	run := p.waitStatus(r.RunID, "waiting")
	if len(run.Steps) != 2 {
		t.Errorf("steps while waiting: %+v", run.Steps)
	}
	// The list says what a waiting run waits for; the flow, its graph.
	var list struct {
		Runs []struct {
			RunID      string `json:"run_id"`
			WaitingFor []struct {
				Step, Message string
			} `json:"waiting_for"`
		} `json:"runs"`
	}
	if code := p.do("GET", "/v1/runs", "", &list); code != 200 || len(list.Runs) != 1 || len(list.Runs[0].WaitingFor) != 1 ||
		list.Runs[0].WaitingFor[0].Step != "review" || list.Runs[0].WaitingFor[0].Message == "" {
		t.Errorf("GET /v1/runs of a waiting run: %d %+v", code, list)
	}
	var flow struct {
		Steps []struct {
			Name      string   `json:"name"`
			Stage     int      `json:"stage"`
			DependsOn []string `json:"depends_on"`
			Approval  bool     `json:"approval"`
		} `json:"steps"`
		CriticalPath []string `json:"critical_path"`
	}
	if code := p.do("GET", "/v1/flows/mail", "", &flow); code != 200 || len(flow.Steps) != 3 || !flow.Steps[1].Approval ||
		flow.Steps[2].Stage != 1 || len(flow.CriticalPath) == 0 {
		t.Errorf("GET /v1/flows/mail: %d %+v", code, flow)
	}
	if code := p.do("GET", "/v1/flows/nope", "", nil); code != 404 {
		t.Errorf("GET an unknown flow: %d", code)
	}
	select {
	case b := <-notes:
		var n struct {
			Type    string `json:"type"`
			RunID   string `json:"run_id"`
			Status  string `json:"status"`
			Waiting []struct {
				Step, Message, Decide string
			} `json:"waiting"`
		}
		json.Unmarshal(b, &n)
		if n.Type != "run_waiting" || n.RunID != r.RunID || n.Status != "waiting" || len(n.Waiting) != 1 ||
			n.Waiting[0].Message != "Send to Ada?" || n.Waiting[0].Decide != p.url+"/v1/runs/"+r.RunID+"/approvals/review" {
			t.Errorf("notification: %s", b)
		}
	case <-time.After(time.Minute):
		t.Fatal("no run_waiting notification")
	}
	// The stream stays open while the run waits: read it on the side.
	streamed := make(chan []sseEvent, 1)
	go func() { streamed <- p.events(r.RunID, "") }()

	var e runReply
	if code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/send", `{"approved": true}`, &e); code != 409 || e.Error.Code != "not_waiting" {
		t.Errorf("deciding a step that does not wait: %d %+v", code, e)
	}
	if code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/review", `{"comment": "x"}`, &e); code != 400 {
		t.Errorf("no approved: %d", code)
	}
	var d map[string]any
	if code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/review", `{"approved": true, "by": "ana", "comment": "ok"}`, &d); code != 200 || d["approved"] != true || d["by"] != "ana" {
		t.Fatalf("decide: %d %v", code, d)
	}
	run = p.waitStatus(r.RunID, "ok")
	if run.Outputs["sent"] != "Dear Ada, approved by ana" {
		t.Errorf("outputs: %v", run.Outputs)
	}
	if code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/review", `{"approved": false}`, &e); code != 409 {
		t.Errorf("deciding a finished run: %d", code)
	}
	var evs []sseEvent
	select {
	case evs = <-streamed:
	case <-time.After(time.Minute):
		t.Fatal("the event stream did not end after run_finished")
	}
	var types []string
	for i, ev := range evs {
		types = append(types, ev.event)
		if ev.id != fmt.Sprint(i+1) {
			t.Errorf("event %d has id %s", i+1, ev.id)
		}
	}
	got := strings.Join(types, " ")
	first, resumed := strings.Index(got, "run_waiting"), strings.LastIndex(got, "run_started")
	if !strings.HasPrefix(got, "run_started ") || !strings.HasSuffix(got, " run_finished") || strings.Count(got, "run_started") != 2 ||
		first < 0 || resumed < first || strings.Index(got, "step_waiting") > first {
		t.Errorf("events: %s", got)
	}
	keptDraft := false
	for _, ev := range evs[strings.Count(got[:resumed], " ")+1:] {
		keptDraft = keptDraft || (ev.event == "step_finished" && strings.Contains(ev.data, `"step":"draft"`) && strings.Contains(ev.data, `"resumed":true`))
	}
	if !keptDraft {
		t.Errorf("no resumed step_finished of draft after the second run_started: %+v", evs)
	}

	// A waiting run survives kill -9; after the restart it is decided
	// (a rejection) and fails.
	if code := p.do("POST", "/v1/flows/mail/runs", `{"inputs": {"to": "Bob"}}`, &r); code != 202 {
		t.Fatalf("start: %d", code)
	}
	p.waitStatus(r.RunID, "waiting")
	p.kill()
	p = startServe(t, dir, nil)
	p.waitStatus(r.RunID, "waiting")
	// A stream of the resumed run, open before the decision, starts with
	// the events the first server recorded.
	st := p.openEvents(r.RunID, "")
	defer st.close()
	got1 := make(chan sseEvent, 1)
	go func() { e, _ := st.next(); got1 <- e }()
	var head sseEvent
	select {
	case head = <-got1:
	case <-time.After(time.Minute):
		t.Fatal("the stream of the resumed run sent nothing for a minute")
	}
	if head.id != "1" || head.event != "run_started" {
		t.Fatalf("the stream of the resumed run starts with %+v", head)
	}
	if code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/review", `{"approved": false, "by": "bob", "comment": "not now"}`, &d); code != 200 {
		t.Fatalf("decide after restart: %d %v", code, d)
	}
	run = p.waitStatus(r.RunID, "failed")
	if !strings.Contains(run.Error.Message, "rejected by bob: not now") {
		t.Errorf("error: %s", run.Error)
	}
	evs = []sseEvent{head}
	for ev, ok := st.next(); ok; ev, ok = st.next() {
		evs = append(evs, ev)
	}
	for i, ev := range evs {
		if ev.id != fmt.Sprint(i+1) {
			t.Errorf("event %d of the resumed run's stream has id %s: %+v", i+1, ev.id, evs)
			break
		}
	}
	if evs[len(evs)-1].event != "run_finished" || strings.Count(eventTypes(evs), "run_started") != 2 {
		t.Errorf("the resumed run's stream: %s", eventTypes(evs))
	}
	if again := p.events(r.RunID, ""); len(again) != len(evs) || again[len(again)-1].event != "run_finished" {
		t.Errorf("events after the run: %d, the stream had %d", len(again), len(evs))
	}
}

// eventTypes are the types of events, space-separated.
func eventTypes(evs []sseEvent) string {
	var types []string
	for _, e := range evs {
		types = append(types, e.event)
	}
	return strings.Join(types, " ")
}

// TestServeResumesAfterKill: kill -9 of the server while 20 runs are
// running; after the restart each of them finishes from its recorded
// state: the http step that finished before the kill is not called again.
func TestServeResumesAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	var mu sync.Mutex
	calls := map[string]int{}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Query().Get("n")]++
		mu.Unlock()
		fmt.Fprint(w, "pong")
	}))
	defer target.Close()
	dir := t.TempDir()
	flow := fmt.Sprintf(`flow "slow" {}

input "n" {
  type = number
}

step "ping" {
  use   = "http"
  url   = "%s/?n=${input.n}"
}

step "wait" {
  use        = "sleep"
  duration   = "3s"
  depends_on = [step.ping]
}

step "done" {
  use        = "value"
  value      = "${step.ping.text} ${input.n}"
  depends_on = [step.wait]
}

output "done" {
  value = step.done.value
}
`, target.URL)
	os.WriteFile(filepath.Join(dir, "slow.flow.hcl"), []byte(flow), 0o644)
	p := startServe(t, dir, nil)
	ids := make([]string, 20)
	for i := range ids {
		var r runReply
		if code := p.do("POST", "/v1/flows/slow/runs", fmt.Sprintf(`{"inputs": {"n": %d}}`, i), &r); code != 202 {
			t.Fatalf("start %d: %d", i, code)
		}
		ids[i] = r.RunID
	}
	// Every run has called its http step (and sleeps): kill the server.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(calls)
		mu.Unlock()
		if n == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d runs called their http step", n, len(ids))
		}
	}
	for _, id := range ids {
		p.waitStepOK(id, "ping")
	}
	p.kill()
	p = startServe(t, dir, nil)
	for i, id := range ids {
		run := p.waitStatus(id, "ok")
		if want := fmt.Sprintf("pong %d", i); run.Outputs["done"] != want {
			t.Errorf("run %s: outputs %v, want %q", id, run.Outputs, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for n, c := range calls {
		if c != 1 {
			t.Errorf("run %s called its http step %d times", n, c)
		}
	}
}

// waitStepOK polls a run until a step of it is recorded ok.
func (p *serveProc) waitStepOK(id, step string) {
	p.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var run runRecord
		p.do("GET", "/v1/runs/"+id, "", &run)
		for _, s := range run.Steps {
			if s.Step == step && s.Status == "ok" {
				return
			}
		}
	}
	p.t.Fatalf("step %s of run %s is not recorded ok", step, id)
}

// TestServeApprovalDeadline: at an approval's deadline the server resumes
// the run, and the step fails.
func TestServeApprovalDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	flow := strings.Replace(approvalServeFlow, `message = "Send to ${input.to}?"`, `message = "Send to ${input.to}?"
  timeout = "300ms"`, 1)
	os.WriteFile(filepath.Join(dir, "mail.flow.hcl"), []byte(flow), 0o644)
	p := startServe(t, dir, nil)
	var r runReply
	if code := p.do("POST", "/v1/flows/mail/runs", `{"inputs": {"to": "Ada"}}`, &r); code != 202 {
		t.Fatalf("start: %d %+v", code, r)
	}
	run := p.waitStatus(r.RunID, "failed")
	if !strings.Contains(run.Error.Message, "nobody decided within its 300ms timeout") {
		t.Errorf("error: %s", run.Error)
	}
}

// TestServeStopInterrupts: on SIGTERM a run that does not finish within
// --shutdown-grace is recorded as interrupted (a queued one too), and the
// next server resumes both; the server does not wait for the event stream
// of a waiting run.
func TestServeStopInterrupts(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	os.WriteFile(filepath.Join(dir, "mail.flow.hcl"), []byte(approvalServeFlow), 0o644)
	p := startServe(t, dir, nil, "--shutdown-grace", "200ms", "--max-active", "1")
	var slow, queued, waiting runReply
	p.do("POST", "/v1/flows/mail/runs", `{"inputs": {"to": "Ada"}}`, &waiting)
	p.waitStatus(waiting.RunID, "waiting")
	// The stream is open (its reply begun) before the server stops: a
	// request the server had not answered yet when it stopped ends with
	// EOF, which says nothing of a stream.
	st := p.openEvents(waiting.RunID, "")
	streamDone := make(chan struct{})
	go func() {
		defer close(streamDone)
		defer st.close()
		for {
			if _, ok := st.next(); !ok {
				return
			}
		}
	}()
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Ada", "wait": "1s"}}`, &slow)
	p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "Bo"}}`, &queued)
	p.waitStatus(slow.RunID, "running")
	p.stop()
	select {
	case <-streamDone:
	case <-time.After(time.Minute):
		t.Fatal("the waiting run's event stream did not end")
	}
	p = startServe(t, dir, nil)
	for id, want := range map[string]string{slow.RunID: "Hello, Ada!", queued.RunID: "Hello, Bo!"} {
		if run := p.waitStatus(id, "ok"); run.Outputs["greeting"] != want {
			t.Errorf("run %s: %v", id, run.Outputs)
		}
	}
	p.waitStatus(waiting.RunID, "waiting")
}

// stop ends the server with SIGTERM and waits for it.
func (p *serveProc) stop() {
	p.t.Helper()
	p.killed = true
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		p.t.Errorf("serve after SIGTERM: %v", err)
	}
}
