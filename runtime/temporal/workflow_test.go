package temporal

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
)

// server answers /ok/NAME with {"name": NAME}, and /flaky/NAME with 503
// twice, then as /ok; it counts the requests by path.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	count map[string]int
}

func newServer(t *testing.T) *server {
	s := &server{count: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.count[r.URL.Path]++
		n := s.count[r.URL.Path]
		s.mu.Unlock()
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
		switch {
		case parts[0] == "fail", parts[0] == "flaky" && n <= 2:
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name": %q}`, parts[len(parts)-1])
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[path]
}

// compile compiles a flow from its source, with the test server's URL
// as var.base.
func compile(t *testing.T, src string) *compiler.Program {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := compiler.Compile(path, compiler.Options{Parser: lang.NewParser()})
	if diags.HasErrors() {
		t.Fatalf("compile: %s", diags.Error())
	}
	return prog
}

// newEnv is a test environment of the SDK's running e's workflow and
// activities, with the workers' options.
func newEnv(e *Engine) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger{})
	env := suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(WorkerOptions())
	// The environment's own deadline (3s by default) far above what a
	// test takes, on a busy machine and with -race.
	env.SetTestTimeout(2 * time.Minute)
	e.Register(env)
	return env
}

type result struct {
	out    *RunOutput
	err    error
	store  *state.Store
	runID  string
	events []Event
}

// execute runs the workflow in the SDK's test environment, with callbacks
// registered at delays.
func execute(t *testing.T, prog *compiler.Program, inputs map[string]cty.Value, delayed map[time.Duration]func(*testsuite.TestWorkflowEnvironment)) result {
	t.Helper()
	in, err := NewRunInput(prog, inputs, "run-1", "", false)
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, prog).run(in, delayed)
}

// stepStatus is the recorded status of each step instance, by label.
func stepStatus(t *testing.T, r result) map[string]string {
	t.Helper()
	steps, err := r.store.Steps(r.runID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range steps {
		label := s.Step
		if s.Instance != "" {
			label += "[" + s.Instance + "]"
		}
		out[label] = s.Status
	}
	return out
}

// outputs are the run's recorded outputs.
func outputs(t *testing.T, r result) map[string]any {
	t.Helper()
	run, err := r.store.Run(r.runID)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(run.Outputs, &out); err != nil {
		t.Fatalf("outputs %s: %v", run.Outputs, err)
	}
	return out
}

func TestFanOut(t *testing.T) {
	srv := newServer(t)
	prog := compile(t, `
flow "fan" {}
input "base" { type = string }
step "get" {
  use      = "http"
  for_each = ["a", "b", "c", "d", "e"]
  url      = "${input.base}/ok/${each.value}"
}
step "names" {
  use   = "value"
  value = join(",", [for r in step.get : r.body.name])
}
output "names" { value = step.names.value }
`)
	r := execute(t, prog, map[string]cty.Value{"base": cty.StringVal(srv.URL)}, nil)
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	if got := outputs(t, r)["names"]; got != "a,b,c,d,e" {
		t.Errorf("names = %v", got)
	}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		if got := srv.requests("/ok/" + n); got != 1 {
			t.Errorf("%d requests to /ok/%s, want 1", got, n)
		}
	}
	st := stepStatus(t, r)
	if st["get[0]"] != "ok" || st["get[4]"] != "ok" || st["names"] != "ok" {
		t.Errorf("step statuses: %v", st)
	}
	if last := r.events[len(r.events)-1]; last.Type != "run_finished" || last.Status != "ok" {
		t.Errorf("last event %+v", last)
	}
}

func TestFailureSkipsDependents(t *testing.T) {
	srv := newServer(t)
	prog := compile(t, `
flow "fails" {}
input "base" { type = string }
step "bad" {
  use = "http"
  url = "${input.base}/fail/x"
}
step "after" {
  use   = "value"
  value = step.bad.status
}
step "other" {
  use = "http"
  url = "${input.base}/ok/other"
}
output "other" { value = step.other.body.name }
output "after" { value = step.after.value }
`)
	r := execute(t, prog, map[string]cty.Value{"base": cty.StringVal(srv.URL)}, nil)
	if r.err != nil || r.out.Status != "failed" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	if !strings.Contains(r.out.Error, "503") {
		t.Errorf("error %q does not give the status", r.out.Error)
	}
	st := stepStatus(t, r)
	if st["bad"] != "failed" || st["after"] != "skipped" || st["other"] != "ok" {
		t.Errorf("step statuses: %v", st)
	}
	if got := outputs(t, r)["other"]; got != "other" {
		t.Errorf("output other = %v (a failed run keeps the outputs it could evaluate)", got)
	}
	if got := srv.requests("/fail/x"); got != 1 {
		t.Errorf("%d requests to a failing step without retries, want 1", got)
	}
}

func TestRetries(t *testing.T) {
	srv := newServer(t)
	prog := compile(t, `
flow "retries" {}
input "base" { type = string }
step "flaky" {
  use = "http"
  url = "${input.base}/flaky/f"
  retry {
    attempts = 3
    backoff  = "10ms"
  }
}
step "never" {
  use = "http"
  url = "${input.base}/fail/n"
  retry {
    attempts = 2
    backoff  = "10ms"
  }
}
output "name" { value = step.flaky.body.name }
`)
	r := execute(t, prog, map[string]cty.Value{"base": cty.StringVal(srv.URL)}, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := srv.requests("/flaky/f"); got != 3 {
		t.Errorf("%d requests to the flaky step, want 3 (two failures, then ok)", got)
	}
	if got := srv.requests("/fail/n"); got != 2 {
		t.Errorf("%d requests to the failing step, want its 2 attempts", got)
	}
	st := stepStatus(t, r)
	if st["flaky"] != "ok" || st["never"] != "failed" {
		t.Errorf("step statuses: %v", st)
	}
	if !strings.Contains(r.out.Error, "after 2 attempts") {
		t.Errorf("error %q does not count the attempts", r.out.Error)
	}
	for _, ev := range r.events {
		if ev.Type == "step_finished" && ev.Step == "flaky" && ev.Attempts != 3 {
			t.Errorf("flaky finished after %d attempts, want 3", ev.Attempts)
		}
	}
}

func TestApprovalSignal(t *testing.T) {
	prog := compile(t, `
flow "approve" {}
step "ask" {
  use     = "approval"
  message = "Ship it?"
}
step "after" {
  use   = "value"
  value = "shipped by ${step.ask.by}"
}
output "after" { value = step.after.value }
`)
	r := execute(t, prog, nil, map[time.Duration]func(*testsuite.TestWorkflowEnvironment){
		time.Hour: func(env *testsuite.TestWorkflowEnvironment) {
			env.SignalWorkflow(ApprovalSignal, ApprovalDecision{Step: "ask", Approved: true, By: "ana", Comment: "go"})
		},
	})
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	if got := outputs(t, r)["after"]; got != "shipped by ana" {
		t.Errorf("after = %v", got)
	}
	a, err := r.store.Approval(r.runID, "ask", "")
	if err != nil || a == nil || a.Message != "Ship it?" {
		t.Errorf("recorded approval request: %+v, %v", a, err)
	}
	waited := false
	for _, ev := range r.events {
		waited = waited || ev.Type == "step_waiting" && ev.Message == "Ship it?"
	}
	if !waited {
		t.Error("no step_waiting event")
	}
}

func TestApprovalRejected(t *testing.T) {
	prog := compile(t, `
flow "approve" {}
step "ask" {
  use     = "approval"
  message = "Ship it?"
}
output "by" { value = step.ask.by }
`)
	r := execute(t, prog, nil, map[time.Duration]func(*testsuite.TestWorkflowEnvironment){
		time.Minute: func(env *testsuite.TestWorkflowEnvironment) {
			env.SignalWorkflow(ApprovalSignal, ApprovalDecision{Step: "ask", Approved: false, By: "bo", Comment: "not today"})
		},
	})
	if r.err != nil || r.out.Status != "failed" || !strings.Contains(r.out.Error, "rejected by bo: not today") {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
}

func TestCancellation(t *testing.T) {
	prog := compile(t, `
flow "cancel" {}
step "wait" {
  use      = "sleep"
  duration = "2h"
}
step "after" {
  use   = "value"
  value = step.wait.slept_ms
}
step "quick" {
  use   = "value"
  value = 1
}
`)
	r := execute(t, prog, nil, map[time.Duration]func(*testsuite.TestWorkflowEnvironment){
		time.Hour: func(env *testsuite.TestWorkflowEnvironment) { env.CancelWorkflow() },
	})
	if r.err != nil || r.out.Status != "cancelled" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	st := stepStatus(t, r)
	if st["wait"] != "cancelled" || st["after"] != "cancelled" || st["quick"] != "ok" {
		t.Errorf("step statuses: %v", st)
	}
	run, err := r.store.Run(r.runID)
	if err != nil || run.Status != "cancelled" {
		t.Errorf("recorded run: %+v, %v", run, err)
	}
}

// TestRunTimeout: the flow's timeout, or the run's (RunInput.Timeout)
// instead, fails the run and cancels what still runs.
func TestRunTimeout(t *testing.T) {
	prog := compile(t, `
flow "slow" {
  timeout = "1h"
}
step "nap" {
  use      = "sleep"
  duration = "2h"
}
step "after" {
  use   = "value"
  value = step.nap.slept_ms
}
step "quick" {
  use   = "value"
  value = 1
}
`)
	r := execute(t, prog, nil, nil)
	if r.err != nil || r.out.Status != "failed" || !strings.Contains(r.out.Error, "did not finish within its 1h0m0s timeout") {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	st := stepStatus(t, r)
	if st["nap"] != "cancelled" || st["after"] != "cancelled" || st["quick"] != "ok" {
		t.Errorf("step statuses: %v", st)
	}
	// A run's own timeout wins over the flow's.
	in, err := NewRunInput(prog, nil, "run-t", "", false)
	if err != nil {
		t.Fatal(err)
	}
	in.Timeout = 30 * time.Minute
	e, _ := NewEngine([]*compiler.Program{prog}, Options{})
	env := newEnv(e)
	env.ExecuteWorkflow(WorkflowName, in)
	var out RunOutput
	if err := env.GetWorkflowResult(&out); err != nil || !strings.Contains(out.Error, "30m0s timeout") {
		t.Errorf("with a run timeout: %+v, %v", out, err)
	}
}

// TestMemory: a run that succeeds stores its memories, evaluated with the
// memories as stored when it ends; one that fails stores nothing.
func TestMemory(t *testing.T) {
	prog := compile(t, `
flow "counter" {}
input "fail" {
  type    = bool
  default = false
}
memory "runs" {
  type    = number
  default = 0
  value   = memory.runs + step.one.value
}
step "one" {
  use   = "value"
  value = input.fail ? tonumber("x") : 1
}
output "before" { value = memory.runs }
`)
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, fail := range []bool{false, true, false} {
		r := executeWith(t, prog, st, converter.GetDefaultDataConverter(), Options{}, map[string]cty.Value{"fail": cty.BoolVal(fail)}, fmt.Sprintf("run-%d", i))
		if r.err != nil || (r.out.Status == "ok") == fail {
			t.Fatalf("run %d: %+v %v", i, r.out, r.err)
		}
	}
	mem, err := st.Memory("counter", "")
	if err != nil || string(mem["runs"]) != `{"type":"number","value":2}` {
		t.Errorf("memory = %s, %v", mem["runs"], err)
	}

	// A memory that refers to no step is stored too.
	tally := compile(t, `
flow "tally" {}
memory "runs" {
  type    = number
  default = 0
  value   = memory.runs + 1
}
step "one" {
  use   = "value"
  value = 1
}
`)
	for i := range 2 {
		if r := executeWith(t, tally, st, converter.GetDefaultDataConverter(), Options{}, nil, fmt.Sprintf("tally-%d", i)); r.err != nil || r.out.Status != "ok" {
			t.Fatalf("tally %d: %+v %v", i, r.out, r.err)
		}
	}
	if mem, err := st.Memory("tally", ""); err != nil || string(mem["runs"]) != `{"type":"number","value":2}` {
		t.Errorf("tally memory = %s, %v", mem["runs"], err)
	}
}

func TestSleepIsATimer(t *testing.T) {
	prog := compile(t, `
flow "sleepy" {}
step "nap" {
  for_each = ["a", "b"]
  use      = "sleep"
  duration = "3h"
}
output "slept" { value = [for n in step.nap : n.slept_ms] }
`)
	r := execute(t, prog, nil, nil)
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	got := outputs(t, r)["slept"].([]any)
	if len(got) != 2 || got[0].(float64) != float64(3*time.Hour/time.Millisecond) {
		t.Errorf("slept = %v (the test environment skips timers' time)", got)
	}
}

func TestSecretApprovalMessage(t *testing.T) {
	prog := compile(t, `
flow "secret" {}
secret "token" { env = "TOKEN" }
step "ask" {
  use     = "approval"
  message = "token ${secret.token}"
}
`)
	r := execute(t, prog, nil, nil)
	if r.err != nil || r.out.Status != "failed" || !strings.Contains(r.out.Error, "may not use a secret") {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
}

func TestOtherSourceRefused(t *testing.T) {
	prog := compile(t, `
flow "f" {}
step "v" {
  use   = "value"
  value = 1
}
`)
	e, err := NewEngine([]*compiler.Program{prog}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(e)
	in, err := NewRunInput(prog, nil, "run-2", "", false)
	if err != nil {
		t.Fatal(err)
	}
	in.SourceHash = "0123456789abcdef"
	env.ExecuteWorkflow(WorkflowName, in)
	err = env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "is not the flow the run was started with") {
		t.Fatalf("error = %v", err)
	}
}
