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
