package server

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
)

// TestRunsPages: GET /v1/runs pages through the queued runs, then the
// state's, newest first, each run once, for every filter and page size; a
// waiting run says what it waits for.
func TestRunsPages(t *testing.T) {
	ts := newTestServer(t, files{"greet.flow.hcl": greetFlow}, func(o *Options) { o.MaxActive = 1 })
	base := time.Now().Add(-time.Hour)
	var stateRuns []*state.Run // oldest first
	for i := range 24 {
		r := &state.Run{
			ID: fmt.Sprintf("r%02d", i), Flow: []string{"a", "b"}[i%2], Namespace: []string{"", "team"}[i/2%2],
			Status: []string{"ok", "failed", "waiting"}[i%3], StartedAt: base.Add(time.Duration(i/3) * time.Minute),
		}
		if err := ts.store.CreateRun(r); err != nil {
			t.Fatal(err)
		}
		if r.Status == "waiting" {
			ts.store.RequestApproval(&state.Approval{RunID: r.ID, Step: "check", Message: "ok " + r.ID + "?", RequestedAt: r.StartedAt})
		}
		stateRuns = append(stateRuns, r)
	}
	// One run holds the only place; three wait in the queue.
	blocker := ts.start("greet", `{"inputs": {"name": "x", "wait": "1h"}}`)
	ts.wait(blocker, "running")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		// In the state: a run that starts while the pages are read may be
		// listed on two of them (docs/serve.md).
		if run, err := ts.store.Run(blocker); err == nil && run.Status == "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the running run is not in the state")
		}
	}
	var queued []string
	for range 3 {
		queued = append(queued, ts.start("greet", `{"inputs": {"name": "y"}}`))
	}
	type row struct {
		id, flow, ns, status string
	}
	var all []row // the whole list, as it should be
	for _, id := range slices.Backward(queued) {
		all = append(all, row{id, "greet", "default", "queued"})
	}
	all = append(all, row{blocker, "greet", "default", "running"})
	for _, r := range slices.Backward(stateRuns) {
		all = append(all, row{r.ID, r.Flow, map[string]string{"": "default", "team": "team"}[r.Namespace], r.Status})
	}
	for _, f := range []map[string]string{
		{}, {"flow": "a"}, {"flow": "greet"}, {"status": "queued"}, {"status": "waiting"}, {"namespace": "team"},
		{"flow": "b", "status": "ok", "namespace": "team"}, {"flow": "greet", "status": "running"},
	} {
		var want []string
		for _, r := range all {
			if (f["flow"] == "" || f["flow"] == r.flow) && (f["status"] == "" || f["status"] == r.status) && (f["namespace"] == "" || f["namespace"] == r.ns) {
				want = append(want, r.id)
			}
		}
		for _, limit := range []int{1, 2, 5, 1000} {
			q := url.Values{"limit": {fmt.Sprint(limit)}}
			for k, v := range f {
				q.Set(k, v)
			}
			var got []string
			for pages := 0; ; pages++ {
				if pages > len(all) {
					t.Fatalf("%v: no end", q)
				}
				var page struct {
					Runs []struct {
						RunID      string           `json:"run_id"`
						Status     string           `json:"status"`
						WaitingFor []waitingForJSON `json:"waiting_for"`
					}
					NextCursor string `json:"next_cursor"`
				}
				if code := ts.code("GET", "/v1/runs?"+q.Encode(), "", &page); code != 200 {
					t.Fatalf("%v: %d", q, code)
				}
				if len(page.Runs) > limit || page.NextCursor != "" && len(page.Runs) != limit {
					t.Fatalf("%v: %d runs, next %q", q, len(page.Runs), page.NextCursor)
				}
				for _, r := range page.Runs {
					got = append(got, r.RunID)
					if r.Status == "waiting" && (len(r.WaitingFor) != 1 || r.WaitingFor[0].Step != "check" || r.WaitingFor[0].Message != "ok "+r.RunID+"?") {
						t.Errorf("%s waits for %+v", r.RunID, r.WaitingFor)
					}
				}
				if page.NextCursor == "" {
					break
				}
				q.Set("cursor", page.NextCursor)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%v:\n got %v\nwant %v", f, got, want)
			}
		}
	}
	for _, bad := range []string{"limit=0", "limit=1001", "limit=x", "cursor=nope", "cursor=" + url.QueryEscape("x:y")} {
		if code := ts.code("GET", "/v1/runs?"+bad, "", nil); code != 400 {
			t.Errorf("%s: %d", bad, code)
		}
	}
}
