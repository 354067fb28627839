package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// serialFlow runs one run of a key at once; its step calls a sink that
// holds it until released. Its webhooks start runs with the priority of
// their trigger.
const serialFlow = `flow "serial" {}

input "sink" {
  type = string
}

input "key" {
  type = string
}

input "tag" {
  type = string
}

concurrency {
  key   = input.key
  limit = 1
}

step "call" {
  use = "http"
  url = "${input.sink}/hit?key=${input.key}&tag=${input.tag}"
}

trigger "low" {
  webhook {
    path   = "/hooks/low"
    verify = "none"
  }
  inputs = { sink = request.query.sink, key = request.query.key, tag = request.query.tag }
}

trigger "high" {
  webhook {
    path   = "/hooks/high"
    verify = "none"
  }
  inputs   = { sink = request.query.sink, key = request.query.key, tag = request.query.tag }
  priority = 5
}
`

// TestWebhookWaitsItsTurn: a webhook's start of a flow with a concurrency
// limit of 1 goes through the limit as an API start does: while a run of
// its key runs, the webhook's run is answered 202 queued and waits for
// its turn (waiting_for says why), and of the runs that wait, the one of
// the trigger with the higher priority starts first.
func TestWebhookWaitsItsTurn(t *testing.T) {
	var mu sync.Mutex
	now, most, order := 0, 0, []string{}
	release := make(chan struct{})
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		now++
		most = max(most, now)
		order = append(order, r.URL.Query().Get("tag"))
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		now--
		mu.Unlock()
	}))
	defer sink.Close()
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	defer open()
	ts := newTestServer(t, files{"serial.flow.hcl": serialFlow}, nil)
	hook := func(trigger, tag string) string {
		t.Helper()
		var rr runReply
		if code := ts.code("POST", "/hooks/"+trigger+"?sink="+sink.URL+"&key=a&tag="+tag, "", &rr); code != http.StatusAccepted || rr.RunID == "" {
			t.Fatalf("webhook %s: %d %+v", trigger, code, rr)
		}
		return rr.RunID
	}
	underWay := func(tags ...string) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			got := strings.Join(order, ",")
			mu.Unlock()
			if got == strings.Join(tags, ",") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the sink was called for %q, not %q", got, tags)
			}
		}
	}
	first := hook("low", "first")
	underWay("first")
	low, high := hook("low", "low"), hook("high", "high")
	for _, id := range []string{low, high} {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
			var run struct {
				Status     string `json:"status"`
				WaitingFor []struct {
					Limit string `json:"limit"`
				} `json:"waiting_for"`
			}
			ts.code("GET", "/v1/runs/"+id, "", &run)
			if run.Status == "queued" && len(run.WaitingFor) == 1 && run.WaitingFor[0].Limit == `concurrency key "a"` {
				break
			}
			if run.Status != "queued" || time.Now().After(deadline) {
				t.Fatalf("run %s of a webhook while its key's run runs: %+v", id, run)
			}
		}
	}
	open()
	for _, id := range []string{first, low, high} {
		if run := ts.wait(id, "ok", "failed", "cancelled"); run.Status != "ok" {
			t.Fatalf("run %s: %s %s", id, run.Status, run.Error)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 1 || strings.Join(order, ",") != "first,high,low" {
		t.Errorf("at most %d runs of the key at once, in the order %v; want 1, first,high,low", most, order)
	}
}
