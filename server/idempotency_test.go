package server

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestIdempotencyKey: a key answers with its run for the same request
// (inputs written in another order or spacing included), 422 for another
// request, and is scoped to its flow and namespace; an expired key starts
// a new run. The keys are in the state: a second server on it knows them.
func TestIdempotencyKey(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow, "other.flow.hcl": strings.Replace(greetFlow, `"greet"`, `"other"`, 1)}, nil)
	key := []string{"Idempotency-Key", "k-1"}
	first := ts.start("greet", `{"inputs": {"name": "ada", "wait": "0s"}}`, key...)
	var again runReply
	if code := ts.code("POST", "/v1/flows/greet/runs", `{"inputs":{"wait":"0s",  "name":"ada"}}`, &again, key...); code != http.StatusOK || again.RunID != first {
		t.Errorf("the same request again: %d %+v (first %s)", code, again, first)
	}
	var reused runReply
	if code := ts.code("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "bob"}}`, &reused, key...); code != http.StatusUnprocessableEntity ||
		reused.Error.Code != "idempotency_key_reused" || !strings.Contains(reused.Error.Message, first) {
		t.Errorf("another request with the key: %d %+v", code, reused)
	}
	other := ts.start("other", `{"inputs": {"name": "ada", "wait": "0s"}}`, key...)
	team := ts.start("greet", `{"inputs": {"name": "ada", "wait": "0s"}, "namespace": "team"}`, key...)
	if other == first || team == first || other == team {
		t.Errorf("scoped keys gave runs %s %s %s", first, other, team)
	}
	ts.wait(first, "ok")

	// A second server on the state knows the key; with keys that expire
	// at once, the same key starts a new run.
	ts2 := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) { o.Store = ts.store })
	if code := ts2.code("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "ada", "wait": "0s"}}`, &again, key...); code != http.StatusOK || again.RunID != first {
		t.Errorf("the key on another server: %d %+v (first %s)", code, again, first)
	}
	ts3 := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) { o.Store = ts.store; o.IdempotencyExpiry = time.Nanosecond })
	if fresh := ts3.start("greet", `{"inputs": {"name": "ada", "wait": "0s"}}`, key...); fresh == first {
		t.Errorf("an expired key gave its run again")
	}
}

// TestRunsRecordedBeforeAnswer: a run is in the state when the server
// answers 202, queued while it waits for a place (--max-active), with its
// Idempotency-Key; past --max-queue a start is refused with 503 queue_full
// and Retry-After, and records nothing (the key is free for the retry),
// but a key that started a run answers with it, full or not.
func TestRunsRecordedBeforeAnswer(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) { o.MaxActive, o.MaxQueue = 1, 2 })
	long := ts.start("greet", `{"inputs": {"name": "a", "wait": "1m"}}`)
	ts.wait(long, "running")
	key := []string{"Idempotency-Key", "queued-1"}
	queued := []string{
		ts.start("greet", `{"inputs": {"name": "b"}}`, key...),
		ts.start("greet", `{"inputs": {"name": "c"}}`),
	}
	for _, id := range queued {
		if r, err := ts.store.Run(id); err != nil || r.Status != "queued" {
			t.Errorf("run %s answered 202: %+v, %v; want it recorded queued", id, r, err)
		}
	}
	var again runReply
	if code := ts.code("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "b"}}`, &again, key...); code != http.StatusOK ||
		again.RunID != queued[0] || again.Status != "queued" {
		t.Errorf("the key again: %d %+v, want 200 with run %s queued", code, again, queued[0])
	}
	var full runReply
	resp := ts.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "d"}}`, &full, "Idempotency-Key", "full-1")
	if resp.StatusCode != http.StatusServiceUnavailable || full.Error.Code != "queue_full" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("past --max-queue: %d %+v, Retry-After %q", resp.StatusCode, full, resp.Header.Get("Retry-After"))
	}
	var list struct {
		Runs []struct {
			RunID, Status string
		}
	}
	ts.do("GET", "/v1/runs?status=queued", "", &list)
	if len(list.Runs) != 2 {
		t.Errorf("GET /v1/runs?status=queued: %+v, want the two queued runs", list.Runs)
	}
	var c runReply
	if code := ts.code("POST", "/v1/runs/"+long+"/cancel", "", &c, "Content-Type", "application/json"); code != http.StatusAccepted {
		t.Fatalf("cancel: %d %+v", code, c)
	}
	for _, id := range queued {
		ts.wait(id, "ok")
	}
	// The refused request's key was not taken: its retry starts a run.
	retried := ts.start("greet", `{"inputs": {"name": "d"}}`, "Idempotency-Key", "full-1")
	ts.wait(retried, "ok")
}
