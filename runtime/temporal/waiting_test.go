package temporal

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
	"go.temporal.io/sdk/testsuite"
)

// harness runs workflows of one engine on one state, so that a test can
// look at the state while a run waits, and start a run again.
type harness struct {
	t  *testing.T
	st *state.Store
	e  *Engine
}

func newHarness(t *testing.T, prog *compiler.Program) *harness {
	t.Helper()
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e, err := NewEngine([]*compiler.Program{prog}, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, st: st, e: e}
}

func (h *harness) run(in RunInput, delayed map[time.Duration]func(*testsuite.TestWorkflowEnvironment)) result {
	h.t.Helper()
	env := newEnv(h.e)
	for d, f := range delayed {
		env.RegisterDelayedCallback(func() { f(env) }, d)
	}
	env.ExecuteWorkflow(WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		h.t.Fatal("the workflow did not complete")
	}
	res := result{store: h.st, runID: in.RunID, err: env.GetWorkflowError()}
	if res.err == nil {
		if err := env.GetWorkflowResult(&res.out); err != nil {
			h.t.Fatal(err)
		}
	}
	q, err := env.QueryWorkflow(EventsQuery, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := q.Get(&res.events); err != nil {
		h.t.Fatal(err)
	}
	return res
}

// recorded is what the state has of a run: its status and its events'
// types, in order, checked to be numbered 1, 2, … without a gap.
func (h *harness) recorded(runID string) (string, []string) {
	h.t.Helper()
	run, err := h.st.Run(runID)
	if err != nil {
		h.t.Fatal(err)
	}
	evs, err := h.st.Events(runID, 0, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	var types []string
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			h.t.Errorf("event %d of run %s is numbered %d", i+1, runID, e.Seq)
		}
		types = append(types, e.Type)
	}
	return run.Status, types
}

func types(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

const shipFlow = `
flow "ship" {}
input "base" { type = string }
step "build" {
  use = "http"
  url = "${input.base}/ok/build"
}
step "ask" {
  use     = "approval"
  message = "Ship ${step.build.body.name}?"
}
step "check" {
  use     = "approval"
  message = "Checked?"
}
step "label" {
  use   = "value"
  value = "v-${step.ask.by}"
}
step "ship" {
  use = "http"
  url = "${input.base}/ok/${step.label.value}-${step.check.by}"
}
output "shipped" { value = step.ship.body.name }
`

// TestWaiting: a run whose only steps out are approvals waits, as a local
// run does: "waiting" in the state, its events there up to run_waiting
// with what it waits for, and the step results so far. Each decision lets
// it go on (run_started, resumed), and it waits again for the approval
// left.
func TestWaiting(t *testing.T) {
	srv := newServer(t)
	prog := compile(t, shipFlow)
	h := newHarness(t, prog)
	in, err := NewRunInput(prog, map[string]cty.Value{"base": cty.StringVal(srv.URL)}, "run-w", "", false)
	if err != nil {
		t.Fatal(err)
	}
	var waiting1, waiting2 string
	var events1, events2 []string
	var waitingFor []string
	r := h.run(in, map[time.Duration]func(*testsuite.TestWorkflowEnvironment){
		time.Hour: func(env *testsuite.TestWorkflowEnvironment) {
			waiting1, events1 = h.recorded("run-w")
			evs, _ := h.st.Events("run-w", 0, 0)
			var last struct {
				Waiting []struct{ Step, Message string }
			}
			json.Unmarshal(evs[len(evs)-1].Data, &last)
			for _, w := range last.Waiting {
				waitingFor = append(waitingFor, w.Step+": "+w.Message)
			}
			if steps, _ := h.st.Steps("run-w"); len(steps) != 1 || steps[0].Step != "build" || steps[0].Status != "ok" {
				t.Errorf("steps recorded while waiting: %+v", steps)
			}
			env.SignalWorkflow(ApprovalSignal, ApprovalDecision{Step: "ask", Approved: true, By: "ana"})
		},
		2 * time.Hour: func(env *testsuite.TestWorkflowEnvironment) {
			waiting2, events2 = h.recorded("run-w")
			env.SignalWorkflow(ApprovalSignal, ApprovalDecision{Step: "check", Approved: true, By: "bo"})
		},
	})
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	if got := outputs(t, r)["shipped"]; got != "v-ana-bo" {
		t.Errorf("shipped = %v", got)
	}
	if waiting1 != "waiting" || strings.Join(waitingFor, "; ") != "ask: Ship build?; check: Checked?" {
		t.Errorf("first wait: %s, waiting for %q", waiting1, waitingFor)
	}
	want1 := "run_started step_started step_started step_waiting step_finished step_started step_waiting run_waiting"
	if got := strings.Join(events1, " "); got != want1 {
		t.Errorf("events recorded at the first wait:\n%s\nwant\n%s", got, want1)
	}
	if waiting2 != "waiting" || events2[len(events2)-1] != "run_waiting" || len(events2) <= len(events1) {
		t.Errorf("second wait: %s, events %v", waiting2, events2)
	}
	final, all := h.recorded("run-w")
	if final != "ok" {
		t.Errorf("final status %s", final)
	}
	if got, want := strings.Join(all, " "), strings.Join(types(r.events), " "); got != want {
		t.Errorf("events recorded:\n%s\nthe workflow's:\n%s", got, want)
	}
	var waits, goesOn int
	for i, e := range r.events {
		switch {
		case e.Type == "run_waiting":
			waits++
		case e.Type == "run_started" && e.Resumed:
			goesOn++
			if prev := r.events[i-1]; prev.Type != "run_waiting" {
				t.Errorf("a run_started (resumed) follows %s", prev.Type)
			}
		}
	}
	if waits != 2 || goesOn != 2 {
		t.Errorf("%d run_waiting and %d resumed run_started, want 2 and 2: %v", waits, goesOn, types(r.events))
	}
	if n := srv.requests("/ok/build"); n != 1 {
		t.Errorf("build ran %d times", n)
	}
}

// TestWaitingCancelled: a waiting run that is cancelled ends cancelled,
// without going on first.
func TestWaitingCancelled(t *testing.T) {
	srv := newServer(t)
	prog := compile(t, shipFlow)
	h := newHarness(t, prog)
	in, err := NewRunInput(prog, map[string]cty.Value{"base": cty.StringVal(srv.URL)}, "run-c", "", false)
	if err != nil {
		t.Fatal(err)
	}
	r := h.run(in, map[time.Duration]func(*testsuite.TestWorkflowEnvironment){
		time.Hour: func(env *testsuite.TestWorkflowEnvironment) { env.CancelWorkflow() },
	})
	if r.err != nil || r.out.Status != "cancelled" {
		t.Fatalf("run: %+v %v", r.out, r.err)
	}
	status, all := h.recorded("run-c")
	if status != "cancelled" || all[len(all)-1] != "run_finished" {
		t.Errorf("recorded %s, events %v", status, all)
	}
	for _, e := range r.events {
		if e.Type == "run_started" && e.Resumed {
			t.Errorf("a cancelled run went on: %v", types(r.events))
		}
	}
}

// TestResume: a run started again on Temporal keeps the results of the
// instances that finished ok, takes a decision recorded while it could
// not, runs the rest, and numbers its events after the recorded ones.
func TestResume(t *testing.T) {
	srv := newServer(t)
	prog := compile(t, shipFlow)
	h := newHarness(t, prog)
	in, err := NewRunInput(prog, map[string]cty.Value{"base": cty.StringVal(srv.URL)}, "run-r", "", false)
	if err != nil {
		t.Fatal(err)
	}
	// The first run waits; its Temporal server loses it (it never hears
	// of it again: the test environment's workflow is cancelled, and the
	// run is recorded interrupted as a client would); a decision is
	// recorded meanwhile.
	h.run(in, map[time.Duration]func(*testsuite.TestWorkflowEnvironment){
		time.Hour: func(env *testsuite.TestWorkflowEnvironment) {
			if _, err := h.st.DecideApproval("run-r", "ask", "", true, "", "ana"); err != nil {
				t.Error(err)
			}
			if _, err := h.st.InterruptTemporal("run-r", LostCause); err != nil {
				t.Error(err)
			}
			env.CancelWorkflow()
		},
	})
	// (The cancelled workflow recorded its end: as the lost one would not
	// have, the run is made interrupted again, with its events so far.)
	if err := h.st.FinishRun(&state.Run{ID: "run-r", Status: "interrupted", Error: LostCause}); err != nil {
		t.Fatal(err)
	}
	_, before := h.recorded("run-r")
	if err := h.st.ContinueOnTemporal("run-r", nil); err != nil {
		t.Fatal(err)
	}
	in.Resume = true
	r := h.run(in, map[time.Duration]func(*testsuite.TestWorkflowEnvironment){
		time.Hour: func(env *testsuite.TestWorkflowEnvironment) {
			env.SignalWorkflow(ApprovalSignal, ApprovalDecision{Step: "check", Approved: true, By: "bo"})
		},
	})
	if r.err != nil || r.out.Status != "ok" {
		t.Fatalf("run started again: %+v %v", r.out, r.err)
	}
	if got := outputs(t, r)["shipped"]; got != "v-ana-bo" {
		t.Errorf("shipped = %v", got)
	}
	if n := srv.requests("/ok/build"); n != 1 {
		t.Errorf("build, which had finished, ran %d times", n)
	}
	status, all := h.recorded("run-r")
	if status != "ok" || len(all) != len(before)+len(r.events) {
		t.Errorf("recorded %s, %d events after %d of the first run and %d of this one", status, len(all), len(before), len(r.events))
	}
	var kept bool
	for _, e := range r.events {
		switch {
		case e.Step == "build" && e.Type == "step_started":
			t.Errorf("build started again")
		case e.Step == "build" && e.Type == "step_finished":
			kept = e.Resumed && e.Status == "ok"
		case e.Step == "ask" && e.Type == "step_waiting":
			t.Errorf("ask waits again though it was decided")
		}
	}
	if !kept {
		t.Errorf("build's result is not kept: %v", r.events)
	}
}
