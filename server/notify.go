package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/flowctl/flowctl/runtime"
)

// Notification tries, per URL: the first try at once, the others after
// these waits.
var notifyBackoff = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}

// notifier POSTs the summary of each finished run to URLs, signed with
// HMAC-SHA256 of the body when there is a secret, retried with backoff,
// on goroutines of its own so that runs never wait for it.
type notifier struct {
	urls   []string
	secret []byte
	base   string // the server's URL, for links
	client *http.Client
	wg     sync.WaitGroup
	ctx    context.Context
}

// runHeadJSON is what every notification says first of its run (its
// fields come first in the JSON, as the embedding struct's first field).
type runHeadJSON struct {
	Type    string         `json:"type"` // run_finished, run_waiting
	Time    string         `json:"time"`
	RunID   string         `json:"run_id"`
	Flow    string         `json:"flow"`
	Status  string         `json:"status"`
	Outputs map[string]any `json:"outputs"`
}

// runSummaryJSON is what a notification says of a run.
type runSummaryJSON struct {
	runHeadJSON
	FailedSteps []string        `json:"failed_steps"`
	Error       json.RawMessage `json:"error,omitempty"` // as run_finished has it
	Link        string          `json:"link"`
}

// waitingJSON is what a notification says of a run that waits for
// approvals.
type waitingJSON struct {
	runHeadJSON
	Waiting []waitJSON `json:"waiting"`
	Link    string     `json:"link"`
}

type waitJSON struct {
	Step     string  `json:"step"`
	Instance any     `json:"instance"`
	Message  string  `json:"message"`
	Deadline *string `json:"deadline"`
	Decide   string  `json:"decide"` // the URL to POST the decision to
}

// waiting sends the summary of a run that waits for approvals.
func (n *notifier) waiting(flow string, e runtime.RunWaiting) {
	if n == nil || len(n.urls) == 0 {
		return
	}
	ws := []waitJSON{}
	for _, w := range e.Waiting {
		wj := waitJSON{Step: w.Step, Instance: w.Instance.JSON(), Message: w.Message, Decide: n.base + "/v1/runs/" + e.RunID + "/approvals/" + w.Step}
		if !w.Deadline.IsZero() {
			d := runtime.JSONTime(w.Deadline)
			wj.Deadline = &d
		}
		ws = append(ws, wj)
	}
	body, err := json.Marshal(waitingJSON{
		runHeadJSON: runHeadJSON{Type: "run_waiting", Time: runtime.JSONTime(e.Time), RunID: e.RunID, Flow: flow,
			Status: string(runtime.StatusWaiting), Outputs: runtime.PlainOutputs(e.Outputs)},
		Waiting: ws, Link: n.base + "/v1/runs/" + e.RunID,
	})
	if err != nil {
		return
	}
	n.send(body)
}

// finished sends the summary of a finished run.
func (n *notifier) finished(flow string, e runtime.RunFinished, failed []string) {
	if n == nil || len(n.urls) == 0 {
		return
	}
	if failed == nil {
		failed = []string{}
	}
	body, err := json.Marshal(runSummaryJSON{
		runHeadJSON: runHeadJSON{Type: "run_finished", Time: runtime.JSONTime(e.Time), RunID: e.RunID, Flow: flow,
			Status: string(e.Status), Outputs: runtime.PlainOutputs(e.Outputs)},
		FailedSteps: failed, Error: runErrorJSON(e), Link: n.base + "/v1/runs/" + e.RunID,
	})
	if err != nil {
		return
	}
	n.send(body)
}

// runErrorJSON is a finished run's error as its run_finished event has
// it; nil without one.
func runErrorJSON(e runtime.RunFinished) json.RawMessage {
	_, doc := runtime.EventJSON(e)
	b, err := json.Marshal(doc)
	if err != nil {
		return nil
	}
	var ev struct {
		Error json.RawMessage `json:"error"`
	}
	json.Unmarshal(b, &ev)
	return ev.Error
}

// send posts a notification to every URL.
func (n *notifier) send(body []byte) {
	for _, u := range n.urls {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.post(u, body)
		}()
	}
}

// post delivers one notification, trying again after each wait of
// notifyBackoff while the server runs.
func (n *notifier) post(url string, body []byte) {
	for i := 0; ; i++ {
		req, err := http.NewRequestWithContext(n.ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if len(n.secret) > 0 {
			mac := hmac.New(sha256.New, n.secret)
			mac.Write(body)
			req.Header.Set("X-Flowctl-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		}
		resp, err := n.client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 300 {
				return
			}
		}
		if i >= len(notifyBackoff) {
			return
		}
		select {
		case <-time.After(notifyBackoff[i]):
		case <-n.ctx.Done():
			return
		}
	}
}

// wait waits for the notifications under way, at most until ctx ends.
func (n *notifier) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
