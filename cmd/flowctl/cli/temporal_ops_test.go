package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/flowctl/flowctl/runtime/temporal/devserver"
	"go.temporal.io/sdk/client"
)

// The scenarios of an operator of the temporal engine, against a real
// dev server (devServer's): a run that waits, a server that forgets its
// runs when it restarts, a workflow terminated by hand, a worker whose
// flows are edited under it.

// proc is a flowctl process of a test, its output collected.
type proc struct {
	cmd      *exec.Cmd
	out, err syncBuffer
	done     chan error
}

// start starts flowctl in dir; it is killed when the test ends.
func start(t *testing.T, dir string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: flowctl(t, dir, args...), done: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		if t.Failed() {
			t.Logf("flowctl %s:\n%s%s", strings.Join(args, " "), p.out.String(), p.err.String())
		}
	})
	return p
}

// exit waits for the process's end and returns its exit code.
func (p *proc) exit(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(3 * time.Minute):
		t.Fatalf("flowctl did not end:\n%s%s", p.out.String(), p.err.String())
	}
	return -1
}

// runID is the run of apply --json's first event.
func (p *proc) runID(t *testing.T) string {
	t.Helper()
	var id string
	waitUntil(t, "the run to start", func() bool {
		line, _, ok := strings.Cut(p.out.String(), "\n")
		var ev struct {
			RunID string `json:"run_id"`
		}
		if ok && json.Unmarshal([]byte(line), &ev) == nil {
			id = ev.RunID
		}
		return id != ""
	})
	return id
}

// events are apply --json's events.
func (p *proc) events(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(p.out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not an event: %s", line)
		}
		out = append(out, m)
	}
	return out
}

// logs are the JSON lines of a worker's log (other lines skipped).
func (p *proc) logs() []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(p.err.String()))
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// logged is the first log line with msg whose attributes include want's.
func (p *proc) logged(msg string, want map[string]any) map[string]any {
	for _, m := range p.logs() {
		if m["msg"] != msg {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && fmt.Sprint(m[k]) == fmt.Sprint(v)
		}
		if ok {
			return m
		}
	}
	return nil
}

// waitUntil waits for cond, far longer than it takes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// recordedRun is runs show --json of a run in the state of dir.
func recordedRun(t *testing.T, dir, id string) views.JSONRunSteps {
	t.Helper()
	code, out, errOut := runCLI(t, "runs", "show", id, "--json", "--state", filepath.Join(dir, ".flowctl"))
	var r views.JSONRunSteps
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("runs show %s exited %d: %s%s", id, code, out, errOut)
	}
	return r
}

// recordedEvents are the types of a run's events in the state of dir.
func recordedEvents(t *testing.T, dir, id string) []string {
	t.Helper()
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func waitStatus(t *testing.T, dir, id, status string) views.JSONRunSteps {
	t.Helper()
	var r views.JSONRunSteps
	waitUntil(t, "run "+id+" to be "+status, func() bool {
		r = recordedRun(t, dir, id)
		return r.Status == status
	})
	return r
}

const waitFlow = `flow "ship" {}
step "build" {
  use   = "value"
  value = "b1"
}
step "ask" {
  use     = "approval"
  message = "Ship ${step.build.value}?"
}
output "by" { value = step.ask.by }
`

// TestTemporalWaiting: a run on Temporal that waits for an approval is
// "waiting" in the state, with what it waits for, and its events there
// end with run_waiting; apply prints how to decide and goes on with the
// decision. The worker runs in a Temporal namespace of its own, named
// with the old --namespace (which warns), and logs in JSON.
func TestTemporalWaiting(t *testing.T) {
	srv := devServerWith(t, devserver.Options{Namespaces: []string{"team"}})
	dir := t.TempDir()
	writeFlow(t, dir, "ship.flow.hcl", waitFlow)
	w := start(t, dir, "worker", "--engine", "temporal", "--address", srv.Addr, "--namespace", "team", "--task-queue", "wait", "--log-format", "json", ".")
	apply := start(t, dir, "apply", "--engine", "temporal", "--address", srv.Addr, "--temporal-namespace", "team", "--task-queue", "wait", "--auto-approve", "--json", "ship.flow.hcl")
	id := apply.runID(t)
	r := waitStatus(t, dir, id, "waiting")
	if len(r.WaitingFor) != 1 || r.WaitingFor[0].Step != "ask" || r.WaitingFor[0].Message != "Ship b1?" {
		t.Errorf("waiting for %+v", r.WaitingFor)
	}
	if evs := recordedEvents(t, dir, id); len(evs) == 0 || evs[len(evs)-1] != "run_waiting" {
		t.Errorf("the state's events: %v", evs)
	}
	if code, out, errOut := runCLI(t, "runs", "list", "--state", filepath.Join(dir, ".flowctl")); code != 0 || !strings.Contains(out, "waiting") {
		t.Errorf("runs list exited %d: %s%s", code, out, errOut)
	}
	// A run that waits on Temporal is not resumed elsewhere.
	code, _, errOut := runCLI(t, "apply", "--resume", id, "--address", srv.Addr, "--temporal-namespace", "team", "--state", filepath.Join(dir, ".flowctl"))
	if code != 1 || !strings.Contains(errOut, "waits on Temporal") {
		t.Errorf("apply --resume of a waiting run on Temporal exited %d:\n%s", code, errOut)
	}

	approve := flowctl(t, dir, "approve", "--address", srv.Addr, "--temporal-namespace", "team", "--by", "ana", id, "ask")
	if b, err := approve.CombinedOutput(); err != nil {
		t.Fatalf("approve: %v\n%s", err, b)
	}
	if code := apply.exit(t); code != 0 {
		t.Fatalf("apply exited %d", code)
	}
	if got := finalOutputs(t, []byte(apply.out.String()))["by"]; got != "ana" {
		t.Errorf("by = %v", got)
	}
	var seq []string
	for _, e := range apply.events(t) {
		typ := e["type"].(string)
		if typ == "run_started" && e["resumed"] == true {
			typ = "run_started(resumed)"
		}
		seq = append(seq, typ)
	}
	if got := strings.Join(seq, " "); !strings.Contains(got, "run_waiting run_started(resumed) step_finished run_finished") {
		t.Errorf("apply's events: %s", got)
	}
	if r := recordedRun(t, dir, id); r.Status != "ok" || len(r.WaitingFor) != 0 {
		t.Errorf("recorded at the end: %+v", r)
	}
	if !strings.Contains(w.err.String(), "Warning: worker --namespace is deprecated") {
		t.Errorf("no deprecation warning:\n%s", w.err.String())
	}
	for _, want := range []struct {
		msg   string
		attrs map[string]any
	}{
		{"worker started", map[string]any{"namespace": "team", "task_queue": "wait", "flows": "[ship]"}},
		{"run started", map[string]any{"run": id, "flow": "ship"}},
		{"run waiting", map[string]any{"run": id, "waiting_for": "[ask]"}},
		{"run goes on", map[string]any{"run": id}},
		{"run finished", map[string]any{"run": id, "status": "ok"}},
	} {
		if w.logged(want.msg, want.attrs) == nil {
			t.Errorf("the worker did not log %q %v:\n%s", want.msg, want.attrs, w.err.String())
		}
	}
}

// TestTemporalServeWaiting: serve --engine temporal shows a waiting run
// as waiting, with what it waits for, and its event stream has
// run_waiting.
func TestTemporalServeWaiting(t *testing.T) {
	addr := devServer(t)
	dir := t.TempDir()
	writeFlow(t, dir, "mail.flow.hcl", approvalServeFlow)
	startWorker(t, addr, "servewait", dir)
	p := startServe(t, dir, nil, "--engine", "temporal", "--address", addr, "--task-queue", "servewait")
	var r runReply
	if code := p.do("POST", "/v1/flows/mail/runs", `{"inputs": {"to": "Ada"}}`, &r); code != 202 {
		t.Fatalf("start: %d %+v", code, r)
	}
	p.waitStatus(r.RunID, "waiting")
	var list struct {
		Runs []struct {
			RunID      string                  `json:"run_id"`
			Status     string                  `json:"status"`
			WaitingFor []struct{ Step string } `json:"waiting_for"`
		} `json:"runs"`
	}
	if code := p.do("GET", "/v1/runs?status=waiting", "", &list); code != 200 || len(list.Runs) != 1 || len(list.Runs[0].WaitingFor) != 1 || list.Runs[0].WaitingFor[0].Step != "review" {
		t.Errorf("GET /v1/runs?status=waiting: %d %+v", code, list)
	}
	st := p.openEvents(r.RunID, "")
	for {
		e, ok := st.next()
		if !ok {
			t.Fatal("the event stream ended before run_waiting")
		}
		if e.event == "run_waiting" {
			break
		}
	}
	st.close()
	if code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/review", `{"approved": true, "by": "bo"}`, nil); code != 200 {
		t.Fatalf("approval: %d", code)
	}
	p.waitStatus(r.RunID, "ok")
	var types []string
	for _, e := range p.events(r.RunID, "") {
		types = append(types, e.event)
	}
	if got := strings.Join(types, " "); !strings.Contains(got, "run_waiting run_started") || !strings.HasSuffix(got, "run_finished") {
		t.Errorf("events: %s", got)
	}
}

// counter counts the requests by path; /hold/… answers once release is
// closed.
type counter struct {
	*httptest.Server
	mu      sync.Mutex
	count   map[string]int
	cancel  map[string]int // held requests whose client went away
	release chan struct{}
	once    sync.Once
}

// free lets the held requests answer.
func (c *counter) free() { c.once.Do(func() { close(c.release) }) }

func newCounter(t *testing.T) *counter {
	c := &counter{count: map[string]int{}, cancel: map[string]int{}, release: make(chan struct{})}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.count[r.URL.Path]++
		c.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/hold/") {
			select {
			case <-c.release:
			case <-r.Context().Done():
				c.mu.Lock()
				c.cancel[r.URL.Path]++
				c.mu.Unlock()
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path": %q, "by": %q}`, r.URL.Path, r.URL.Query().Get("by"))
	}))
	t.Cleanup(c.Close)
	t.Cleanup(c.free) // first
	return c
}

func (c *counter) n(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count[path]
}

func (c *counter) cancels(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancel[path]
}

const lostFlow = `flow "lost" {}
input "base" { type = string }
step "first" {
  use = "http"
  url = "${input.base}/first/${input.tag}"
}
input "tag" { type = string }
step "hold" {
  use     = "http"
  url     = "${input.base}/${input.tag == "held" ? "hold" : "pass"}/${input.tag}?after=${step.first.body.path}"
  timeout = "10m"
}
step "ask" {
  use     = "approval"
  message = "Go on after ${step.hold.body.path}?"
}
step "last" {
  use = "http"
  url = "${input.base}/last/${input.tag}?by=${step.ask.by}"
}
output "by" { value = step.last.body.by }
`

// TestTemporalLostRun restarts a dev server that keeps its data in
// memory, so that it forgets the runs it had:
//
//   - a run that waits, which apply follows: apply says it was lost, and it
//     is recorded interrupted with the cause; approve records the
//     decision and says so; apply --resume goes on with it locally;
//   - a run with a step in flight that nobody follows: the step is
//     cancelled at its next heartbeat; apply --engine temporal --resume
//     finds the run lost, and starts it again on Temporal;
//   - a run whose workflow is terminated by hand: apply --resume finds its
//     workflow ended, and resumes it.
//
// No step that finished runs again (the cancelled one does).
func TestTemporalLostRun(t *testing.T) {
	srv := devServerWith(t, devserver.Options{})
	base := newCounter(t)
	dir := t.TempDir()
	writeFlow(t, dir, "lost.flow.hcl", lostFlow)
	stateDir := filepath.Join(dir, ".flowctl")
	start(t, dir, "worker", "--engine", "temporal", "--address", srv.Addr, "--task-queue", "lost", ".")
	applyArgs := func(tag string) []string {
		return []string{"apply", "--engine", "temporal", "--address", srv.Addr, "--task-queue", "lost", "--auto-approve", "--json",
			"--input", "base=" + base.URL, "--input", "tag=" + tag, "lost.flow.hcl"}
	}

	// 1. Lost while it waits, with apply following it.
	apply := start(t, dir, applyArgs("waits")...)
	waiting := apply.runID(t)
	waitStatus(t, dir, waiting, "waiting")
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if code := apply.exit(t); code != 1 {
		t.Errorf("apply of the lost run exited %d", code)
	}
	evs := apply.events(t)
	last := evs[len(evs)-1]
	if errText := fmt.Sprint(last["error"]); last["type"] != "run_finished" || last["status"] != "interrupted" ||
		!strings.Contains(errText, temporal.LostCause) || !strings.Contains(errText, "Run interrupted") || !strings.Contains(errText, "flowctl apply --resume "+waiting) {
		t.Errorf("apply's last event: %v", last)
	}
	if r := recordedRun(t, dir, waiting); r.Status != "interrupted" || r.Error != temporal.LostCause {
		t.Errorf("recorded: %s %q", r.Status, r.Error)
	}
	code, _, errOut := runCLI(t, "approve", "--address", srv.Addr, "--by", "ana", "--state", stateDir, waiting, "ask")
	if errOut = strings.Join(strings.Fields(errOut), " "); code != 1 || !strings.Contains(errOut, "The decision is recorded") {
		t.Errorf("approve of the lost run exited %d:\n%s", code, errOut)
	}
	resume := start(t, dir, "apply", "--resume", waiting, "--json", "--address", srv.Addr)
	if code := resume.exit(t); code != 0 {
		t.Fatalf("apply --resume exited %d", code)
	}
	if got := finalOutputs(t, []byte(resume.out.String()))["by"]; got != "ana" {
		t.Errorf("by = %v", got)
	}
	if r := recordedRun(t, dir, waiting); r.Status != "ok" || r.Origin != "" {
		t.Errorf("resumed locally: %s, origin %q", r.Status, r.Origin)
	}

	// 2. Lost with a step in flight, nobody following.
	apply = start(t, dir, applyArgs("held")...)
	held := apply.runID(t)
	waitUntil(t, "the held step to start", func() bool { return base.n("/hold/held") == 1 })
	apply.cmd.Process.Kill()
	apply.exit(t)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	// The step's next heartbeat finds the workflow gone: the worker
	// cancels it. The step never finished, so it runs again.
	waitUntil(t, "the held step to be cancelled", func() bool { return base.cancels("/hold/held") == 1 })
	base.free()
	if r := recordedRun(t, dir, held); r.Status != "running" {
		t.Fatalf("before the resumption: %s", r.Status)
	}
	again := start(t, dir, "apply", "--engine", "temporal", "--address", srv.Addr, "--task-queue", "lost", "--resume", held, "--json")
	againID := again.runID(t)
	r := waitStatus(t, dir, held, "waiting")
	if againID != held || r.Origin != temporal.Origin {
		t.Errorf("started again as run %s, origin %q", againID, r.Origin)
	}
	if !strings.Contains(again.err.String(), "will not finish on Temporal: "+temporal.LostCause) {
		t.Errorf("apply --resume did not say why the run was interrupted:\n%s", again.err.String())
	}
	if b, err := flowctl(t, dir, "approve", "--address", srv.Addr, "--by", "bo", held, "ask").CombinedOutput(); err != nil {
		t.Fatalf("approve: %v\n%s", err, b)
	}
	if code := again.exit(t); code != 0 {
		t.Fatalf("apply --engine temporal --resume exited %d", code)
	}
	resumed := map[string]bool{}
	for _, e := range again.events(t) {
		if e["type"] == "step_finished" && e["resumed"] == true {
			resumed[e["step"].(string)] = true
		}
	}
	if !resumed["first"] || resumed["hold"] || resumed["last"] {
		t.Errorf("steps that kept their results: %v", resumed)
	}

	// 3. A workflow terminated by hand.
	apply = start(t, dir, applyArgs("ended")...)
	ended := apply.runID(t)
	waitStatus(t, dir, ended, "waiting")
	apply.cmd.Process.Kill()
	apply.exit(t)
	c, err := client.Dial(client.Options{HostPort: srv.Addr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.TerminateWorkflow(context.Background(), ended, "", "by hand"); err != nil {
		t.Fatal(err)
	}
	resume = start(t, dir, "apply", "--resume", ended, "--json", "--address", srv.Addr)
	if code := resume.exit(t); code != exitWaiting || !strings.Contains(resume.err.String(), "its workflow on Temporal ended (terminated) without recording the run's end") {
		t.Errorf("apply --resume of a terminated run exited %d:\n%s", code, resume.err.String())
	}

	for _, path := range []string{"/first/waits", "/pass/waits", "/last/waits", "/first/held", "/last/held", "/first/ended", "/pass/ended"} {
		if n := base.n(path); n != 1 {
			t.Errorf("%s requested %d times, want 1", path, n)
		}
	}
	if n := base.n("/hold/held"); n != 2 {
		t.Errorf("the held step, cancelled once, was requested %d times, want 2", n)
	}
}

const versionFlow = `flow "ver" {}
step "ask" {
  use     = "approval"
  message = "Go?"
}
step "out" {
  use   = "value"
  value = "VERSION-${step.ask.by}"
}
output "out" { value = step.out.value }
`

// TestTemporalWorkerReload: an edited flow's next run runs on the worker
// that had the old version, and a run of the old version still waiting
// finishes with it; a run of a version the worker cannot have is refused,
// and the worker logs why.
func TestTemporalWorkerReload(t *testing.T) {
	addr := devServer(t)
	dir := t.TempDir()
	write := func(dir, version string) {
		writeFlow(t, dir, "ver.flow.hcl", strings.Replace(versionFlow, "VERSION", version, 1))
	}
	write(dir, "one")
	w := start(t, dir, "worker", "--engine", "temporal", "--address", addr, "--task-queue", "reload", "--log-format", "json", ".")
	applyIn := func(dir string) *proc {
		return start(t, dir, "apply", "--engine", "temporal", "--address", addr, "--task-queue", "reload", "--auto-approve", "--json", "ver.flow.hcl")
	}
	first := applyIn(dir)
	firstID := first.runID(t)
	waitStatus(t, dir, firstID, "waiting")

	write(dir, "two")
	second := applyIn(dir)
	secondID := second.runID(t)
	waitStatus(t, dir, secondID, "waiting")
	for id, by := range map[string]string{firstID: "ana", secondID: "bo"} {
		if b, err := flowctl(t, dir, "approve", "--address", addr, "--by", by, id, "ask").CombinedOutput(); err != nil {
			t.Fatalf("approve: %v\n%s", err, b)
		}
	}
	for p, want := range map[*proc]string{first: "one-ana", second: "two-bo"} {
		if code := p.exit(t); code != 0 {
			t.Fatalf("apply exited %d", code)
		}
		if got := finalOutputs(t, []byte(p.out.String()))["out"]; got != want {
			t.Errorf("out = %v, want %s", got, want)
		}
	}
	if w.logged("flow reloaded", map[string]any{"flow": "ver"}) == nil {
		t.Errorf("the reload is not logged:\n%s", w.err.String())
	}

	// A client whose flow the worker has not got.
	other := t.TempDir()
	write(other, "three")
	refused := applyIn(other)
	if code := refused.exit(t); code != 1 || !strings.Contains(refused.out.String(), `"summary":"Cannot run on Temporal"`) ||
		!strings.Contains(refused.out.String(), "deploy the flow's files to the workers") {
		t.Errorf("a run of another version exited %d:\n%s", code, refused.out.String())
	}
	refusals := 0
	for _, m := range w.logs() {
		if m["msg"] == "run refused: other version of its flow" && m["flow"] == "ver" {
			refusals++
		}
	}
	if refusals != 1 {
		t.Errorf("the refusal is logged %d times:\n%s", refusals, w.err.String())
	}
}
