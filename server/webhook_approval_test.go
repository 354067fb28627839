package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime"
)

// invoiceFlow: a webhook starts it, a concurrency key of 1 per customer
// holds its runs, and an approval collects the amount to pay.
const invoiceFlow = `flow "invoice" {}

input "customer" { type = string }

concurrency {
  key   = input.customer
  limit = 1
}

step "check" {
  use     = "approval"
  message = "Pay?"
  input "amount" {
    type = number
  }
}

step "total" {
  use   = "value"
  value = step.check.amount * 2
}

output "total" { value = step.total.value }

trigger "invoice" {
  webhook {
    path   = "/hooks/invoice"
    verify = "none"
  }
  inputs = { customer = request.query.customer }
}
`

// TestWebhookApprovalPinned: a run a webhook started, through its flow's
// concurrency key, records its version as any run; its approval's input
// fields are in its waiting_for; taken up by a server of the edited flow,
// paused, then decided with a value, it waits for its resumption and ends
// on the version it started with.
func TestWebhookApprovalPinned(t *testing.T) {
	defer func(p time.Duration) { runtime.PausePoll = p }(runtime.PausePoll)
	runtime.PausePoll = 20 * time.Millisecond
	ts := newTestServer(t, files{"invoice.flow.hcl": invoiceFlow}, nil)
	var rr runReply
	if code := ts.code("POST", "/hooks/invoice?customer=c-1", "", &rr); code != http.StatusAccepted || rr.RunID == "" {
		t.Fatalf("the webhook: %d %+v", code, rr)
	}
	id := rr.RunID
	ts.wait(id, "waiting")
	var run struct {
		WaitingFor []struct {
			Fields []runtime.ApprovalField `json:"fields"`
		} `json:"waiting_for"`
		Version *struct {
			Hash string `json:"hash"`
		} `json:"version"`
	}
	ts.code("GET", "/v1/runs/"+id, "", &run)
	if run.Version == nil || len(run.Version.Hash) != 64 {
		t.Fatalf("the webhook's run recorded no version: %+v", run.Version)
	}
	if len(run.WaitingFor) != 1 || len(run.WaitingFor[0].Fields) != 1 || run.WaitingFor[0].Fields[0].Name != "amount" {
		t.Fatalf("waiting_for: %+v", run.WaitingFor)
	}
	ts.http.Close()
	ts.srv.Close()
	edited := strings.Replace(invoiceFlow, "step.check.amount * 2", "step.check.amount * 3", 1)
	if err := os.WriteFile(filepath.Join(ts.dir, "invoice.flow.hcl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ts2 := newTestServer(t, nil, func(o *Options) { o.Dir, o.Store = ts.dir, ts.store })
	if code := ts2.code("POST", "/v1/runs/"+id+"/pause", `{}`, nil); code != 200 {
		t.Fatalf("pause: %d", code)
	}
	if code := ts2.code("POST", "/v1/runs/"+id+"/approvals/check", `{"approved": true, "inputs": {"amount": 5}}`, &rr); code != 200 {
		t.Fatalf("deciding: %d %+v", code, rr)
	}
	time.Sleep(10 * runtime.PausePoll)
	if steps, _ := ts.store.Steps(id); len(steps) != 1 {
		t.Fatalf("steps of the paused run: %d, want the approval alone", len(steps))
	}
	if code := ts2.code("POST", "/v1/runs/"+id+"/resume", `{}`, nil); code != 200 {
		t.Fatalf("resume: %d", code)
	}
	if done := ts2.wait(id, "ok", "failed"); done.Status != "ok" || done.Outputs["total"] != float64(10) {
		t.Fatalf("the run resumed on its version ended %s: %+v", done.Status, done.Outputs)
	}
	if v, _ := ts.store.RunVersion(id); v == nil || v.Hash != run.Version.Hash {
		t.Errorf("the run's version after it ended: %+v, want %s", v, run.Version.Hash)
	}
}
