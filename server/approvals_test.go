package server

import (
	"sync"
	"testing"
)

// TestApproveCancelRace: a decision and a cancellation sent at once to a
// waiting run: exactly one wins. A decision that answered 200 was taken
// (the approval step ended ok); a cancellation that answered 200 said the
// run is cancelled, and it is, and the decision got 409. (Issue 34: both
// answered success while the run ended cancelled.)
func TestApproveCancelRace(t *testing.T) {
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, nil)
	const runs = 12
	ids := make([]string, runs)
	for i := range ids {
		ids[i] = ts.start("review", `{}`)
	}
	for _, id := range ids {
		ts.wait(id, "waiting")
	}
	type outcome struct {
		approve, cancel int
		cancelled       string
	}
	out := make([]outcome, runs)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			out[i].approve = ts.code("POST", "/v1/runs/"+id+"/approvals/check", `{"approved": true}`, nil)
		}()
		go func() {
			defer wg.Done()
			var rr runReply
			out[i].cancel = ts.code("POST", "/v1/runs/"+id+"/cancel", "", &rr, "Content-Type", "application/json")
			out[i].cancelled = rr.Status
		}()
	}
	wg.Wait()
	wins := map[string]int{}
	for i, id := range ids {
		o := out[i]
		run := ts.wait(id, "ok", "cancelled", "failed")
		check := ""
		for _, st := range run.Steps {
			if st.Step == "check" {
				check = st.Status
			}
		}
		switch {
		case o.approve == 200 && (o.cancel == 409 || o.cancel == 202):
			wins["decision"]++
			if check != "ok" {
				t.Errorf("run %s: the decision answered 200, the cancellation %d, but the approval step is %q (run %s)", id, o.cancel, check, run.Status)
			}
		case o.cancel == 200 && o.approve == 409:
			wins["cancellation"]++
			if run.Status != "cancelled" || o.cancelled != "cancelled" || check == "ok" {
				t.Errorf("run %s: the cancellation won (%q) but the run is %s, its approval step %q", id, o.cancelled, run.Status, check)
			}
		default:
			t.Errorf("run %s: the decision answered %d, the cancellation %d (%q); the run is %s", id, o.approve, o.cancel, o.cancelled, run.Status)
		}
	}
	t.Logf("wins: %v", wins)
}

// TestCancelStatus: a cancellation answers the status the run moves to:
// a waiting run is cancelled (200), a running one cancelling (202), and a
// finished one is a conflict.
func TestCancelStatus(t *testing.T) {
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow, "greet.flow.hcl": greetFlow}, nil)
	json := []string{"Content-Type", "application/json"}
	waiting := ts.start("review", `{}`)
	ts.wait(waiting, "waiting")
	var rr runReply
	if code := ts.code("POST", "/v1/runs/"+waiting+"/cancel", "", &rr, json...); code != 200 || rr.Status != "cancelled" {
		t.Errorf("a waiting run: %d %+v", code, rr)
	}
	if run := ts.wait(waiting, "cancelled"); run.Status != "cancelled" {
		t.Errorf("the waiting run after: %s", run.Status)
	}
	running := ts.start("greet", `{"inputs": {"name": "x", "wait": "1h"}}`)
	ts.wait(running, "running")
	if code := ts.code("POST", "/v1/runs/"+running+"/cancel", "", &rr, json...); code != 202 || rr.Status != "cancelling" {
		t.Errorf("a running run: %d %+v", code, rr)
	}
	ts.wait(running, "cancelled")
	if code := ts.code("POST", "/v1/runs/"+running+"/cancel", "", &rr, json...); code != 409 || rr.Error.Code != "finished" {
		t.Errorf("a finished run: %d %+v", code, rr)
	}
}

// TestDecisionOnAnotherServer: of two servers on one state, a decision
// taken on the one that did not start the run, and that started before
// the run began to wait, resumes the run there: it had recorded the
// decision and left the run waiting, since only the server that ran it
// (or one started later) followed it. The run runs once: the other
// server's copy finds it taken.
func TestDecisionOnAnotherServer(t *testing.T) {
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, nil)
	other := newTestServer(t, files{"review.flow.hcl": reviewFlow}, func(o *Options) { o.Store = ts.store })
	id := ts.start("review", `{}`)
	ts.wait(id, "waiting")
	if code := other.code("POST", "/v1/runs/"+id+"/approvals/check", `{"approved": true, "by": "ana"}`, nil); code != 200 {
		t.Fatalf("the decision on the other server: %d", code)
	}
	run := other.wait(id, "ok", "failed", "cancelled")
	if run.Status != "ok" {
		t.Fatalf("the run: %+v", run)
	}
	steps, err := ts.store.Steps(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if s.Step == "publish" && s.Attempts != 1 {
			t.Errorf("publish ran %d times", s.Attempts)
		}
	}
	// The server that started it reads it from the state as it is.
	if got := ts.wait(id, "ok"); got.Status != "ok" {
		t.Errorf("on the first server: %+v", got)
	}
}
