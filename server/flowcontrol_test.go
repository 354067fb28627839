package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
)

const payFlow = `flow "pay" {}

step "check" {
  use     = "approval"
  message = "Pay?"
  input "amount" {
    type        = number
    description = "How much to pay"
  }
  input "note" {
    type    = string
    default = "none"
  }
}

step "double" {
  use   = "value"
  value = step.check.amount * 2
}

output "double" {
  value = step.double.value
}

output "note" {
  value = step.check.note
}
`

// TestApprovalInputsServed: an approval step's input fields are in the
// run's waiting_for; a decision whose value has the wrong type is 400
// and the approval stays pending; one that fits ends the step with the
// values as its outputs, a field left out its default.
func TestApprovalInputsServed(t *testing.T) {
	ts := newTestServer(t, files{"pay.flow.hcl": payFlow}, nil)
	id := ts.start("pay", `{}`)
	ts.wait(id, "waiting")
	var run struct {
		WaitingFor []struct {
			Fields []runtime.ApprovalField `json:"fields"`
		} `json:"waiting_for"`
	}
	ts.code("GET", "/v1/runs/"+id, "", &run)
	if len(run.WaitingFor) != 1 || len(run.WaitingFor[0].Fields) != 2 || run.WaitingFor[0].Fields[0].Type != "number" ||
		run.WaitingFor[0].Fields[0].Description != "How much to pay" || string(run.WaitingFor[0].Fields[1].Default) != `"none"` {
		t.Fatalf("waiting_for: %+v", run.WaitingFor)
	}
	var rr runReply
	if code := ts.code("POST", "/v1/runs/"+id+"/approvals/check", `{"approved": true, "inputs": {"amount": "a lot"}}`, &rr); code != 400 ||
		rr.Error.Code != "invalid_inputs" || !strings.Contains(rr.Error.Message, `"amount" is number`) {
		t.Fatalf("a string for a number: %d %+v", code, rr)
	}
	if code := ts.code("POST", "/v1/runs/"+id+"/approvals/check", `{"approved": true}`, &rr); code != 400 || !strings.Contains(rr.Error.Message, "required") {
		t.Fatalf("a required field left out: %d %+v", code, rr)
	}
	if a, err := ts.store.Approval(id, "check", ""); err != nil || a.Decided() {
		t.Fatalf("the approval after the refused decisions: %+v, %v", a, err)
	}
	if code := ts.code("POST", "/v1/runs/"+id+"/approvals/check", `{"approved": true, "inputs": {"amount": 60}}`, &rr); code != 200 {
		t.Fatalf("deciding: %d %+v", code, rr)
	}
	done := ts.wait(id, "ok", "failed")
	if done.Status != "ok" || done.Outputs["double"] != float64(120) || done.Outputs["note"] != "none" {
		t.Fatalf("run %s: %+v", done.Status, done.Outputs)
	}
}

// TestApprovalOnTimeoutServed: an approval nobody decided takes its
// on_timeout path when its deadline comes: approve ends it ok (its
// dependent runs), reject fails it as a rejection, fail (the default)
// as a timeout.
func TestApprovalOnTimeoutServed(t *testing.T) {
	fs := files{}
	for _, on := range []string{"approve", "reject", "fail"} {
		fs["late_"+on+".flow.hcl"] = `flow "late_` + on + `" {}

step "check" {
  use        = "approval"
  message    = "Go?"
  timeout    = "300ms"
  on_timeout = "` + on + `"
}

step "after" {
  use   = "value"
  value = step.check.by
}
`
	}
	ts := newTestServer(t, fs, nil)
	for _, c := range []struct {
		on, status, check, after, err string
	}{
		{"approve", "ok", "ok", "ok", ""},
		{"reject", "failed", "failed", "skipped", "rejected on timeout: nobody decided within its 300ms timeout"},
		{"fail", "failed", "failed", "skipped", "nobody decided within its 300ms timeout"},
	} {
		id := ts.start("late_"+c.on, `{}`)
		if run := ts.wait(id, "ok", "failed"); run.Status != c.status {
			t.Errorf("on_timeout = %q: the run is %s", c.on, run.Status)
		}
		steps, err := ts.store.Steps(id)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*state.StepResult{}
		for _, s := range steps {
			got[s.Step] = s
		}
		if s := got["check"]; s == nil || s.Status != c.check || s.Error != c.err {
			t.Errorf("on_timeout = %q: check is %+v", c.on, s)
		}
		if s := got["after"]; s == nil || s.Status != c.after {
			t.Errorf("on_timeout = %q: after is %+v", c.on, s)
		} else if c.on == "approve" && !strings.Contains(string(s.Outputs), `"value":{"value":"on_timeout"}`) {
			t.Errorf("after's outputs: %s", s.Outputs)
		}
	}
}

// TestPauseServed: a paused run finishes the step it runs and starts no
// other until resumed; then it finishes. A finished run cannot be
// paused. The pause and the resumption are sent to another server of
// the state (on PostgreSQL in CI): the flag is in the state.
func TestPauseServed(t *testing.T) {
	defer func(p time.Duration) { runtime.PausePoll = p }(runtime.PausePoll)
	runtime.PausePoll = 20 * time.Millisecond
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, nil)
	other := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) { o.Store, o.NoTakeUp = ts.store, true })
	id := ts.start("greet", `{"inputs": {"name": "Ada", "wait": "400ms"}}`)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if e, _ := ts.store.LastEvent(id, "step_started"); e != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run's first step did not start")
		}
	}
	var pr struct {
		Paused bool `json:"paused"`
	}
	if code := other.code("POST", "/v1/runs/"+id+"/pause", `{}`, &pr); code != 200 || !pr.Paused {
		t.Fatalf("pause: %d %+v", code, pr)
	}
	stepsOf := func() map[string]string {
		steps, _ := ts.store.Steps(id)
		out := map[string]string{}
		for _, s := range steps {
			out[s.Step] = s.Status
		}
		return out
	}
	for deadline := time.Now().Add(time.Minute); stepsOf()["pause"] != "ok"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the running step did not finish while paused: %v", stepsOf())
		}
	}
	time.Sleep(10 * runtime.PausePoll)
	var run struct {
		Status string `json:"status"`
		Paused *struct {
			By string `json:"by"`
		} `json:"paused"`
	}
	ts.code("GET", "/v1/runs/"+id, "", &run)
	if s := stepsOf(); s["hello"] != "" || run.Status != "running" || run.Paused == nil {
		t.Fatalf("paused, the run is %s (%+v) with steps %v", run.Status, run.Paused, s)
	}
	if code := other.code("POST", "/v1/runs/"+id+"/resume", `{}`, &pr); code != 200 || pr.Paused {
		t.Fatalf("resume: %d %+v", code, pr)
	}
	done := ts.wait(id, "ok", "failed")
	if done.Status != "ok" || done.Outputs["greeting"] != "Hello, Ada!" {
		t.Fatalf("resumed, the run ended %s: %+v", done.Status, done.Outputs)
	}
	var rr runReply
	if code := ts.code("POST", "/v1/runs/"+id+"/pause", `{}`, &rr); code != 409 || rr.Error.Code != "finished" {
		t.Errorf("pausing a finished run: %d %+v", code, rr)
	}
}

// TestPinnedVersionServed: a waiting run taken up by a server after its
// flow file changed resumes on the version it started with, and the new
// runs use the new file; the run names its version.
func TestPinnedVersionServed(t *testing.T) {
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, nil)
	id := ts.start("review", `{}`)
	ts.wait(id, "waiting")
	var run struct {
		Version *struct {
			Hash string `json:"hash"`
		} `json:"version"`
	}
	ts.code("GET", "/v1/runs/"+id, "", &run)
	if run.Version == nil || len(run.Version.Hash) != 64 {
		t.Fatalf("the run's version: %+v", run.Version)
	}
	ts.http.Close()
	ts.srv.Close()
	edited := strings.Replace(reviewFlow, "upper(step.draft.value)", `"new: ${step.draft.value}"`, 1)
	if err := os.WriteFile(filepath.Join(ts.dir, "review.flow.hcl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ts2 := newTestServer(t, nil, func(o *Options) { o.Dir, o.Store = ts.dir, ts.store })
	var rr runReply
	if code := ts2.code("POST", "/v1/runs/"+id+"/approvals/check", `{"approved": true}`, &rr); code != 200 {
		t.Fatalf("deciding: %d %+v", code, rr)
	}
	if done := ts2.wait(id, "ok", "failed"); done.Status != "ok" || done.Outputs["published"] != "TEXT" {
		t.Fatalf("the run resumed on its version ended %s: %+v", done.Status, done.Outputs)
	}
	id2 := ts2.start("review", `{}`)
	ts2.wait(id2, "waiting")
	ts2.code("POST", "/v1/runs/"+id2+"/approvals/check", `{"approved": true}`, nil)
	if done := ts2.wait(id2, "ok", "failed"); done.Outputs["published"] != "new: text" {
		t.Fatalf("a new run: %s %+v", done.Status, done.Outputs)
	}
	v1, _ := ts.store.RunVersion(id)
	v2, _ := ts.store.RunVersion(id2)
	if v1 == nil || v2 == nil || v1.Hash != run.Version.Hash || v2.Hash == v1.Hash {
		t.Errorf("versions: %+v, %+v", v1, v2)
	}
}
