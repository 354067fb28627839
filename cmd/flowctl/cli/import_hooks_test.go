package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// n8n workflows started by the GitHub and Stripe Triggers of the corpus
// (Zie619+n8n-workflows/workflows__Github__0264_GitHub_Stickynote_Create_Triggered.json,
// …/workflows__Http__1773_HTTP_Stripe_Sync_Webhook.json), each followed
// by an Edit Fields node reading the event.
const (
	hookGitHubWorkflow = `{"name": "Issues", "nodes": [
{"id": "62e1a9d3", "name": "Trigger on issues", "type": "n8n-nodes-base.githubTrigger", "position": [860, 500], "webhookId": "bc0a0a44-00db-473b-8746-b60b3b36039c", "parameters": {"owner": "John-n8n", "events": ["issues"], "repository": "DemoRepo"}, "credentials": {"githubApi": {"id": "1", "name": "[UPDATE ME]"}}, "typeVersion": 1},
{"name": "Title", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [1080, 500], "parameters": {"assignments": {"assignments": [{"id": "1", "name": "title", "value": "={{ $json.body.issue.title }} ({{ $json.headers['x-github-event'] }})", "type": "string"}]}, "options": {}}}],
"connections": {"Trigger on issues": {"main": [[{"node": "Title", "type": "main", "index": 0}]]}}}`
	hookStripeWorkflow = `{"name": "Payments", "nodes": [
{"id": "90322fe5", "name": "Stripe Trigger on Payment Event", "type": "n8n-nodes-base.stripeTrigger", "position": [0, 0], "webhookId": "e85ac894-bb67-436c-ad39-308a00c8e922", "parameters": {"events": ["checkout.session.completed"]}, "credentials": {"stripeApi": {"id": "ClCB0WooGxls3WGM", "name": "Stripe Test"}}, "typeVersion": 1},
{"name": "Session", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [220, 0], "parameters": {"assignments": {"assignments": [{"id": "1", "name": "session", "value": "={{ $json.data.object.id }}", "type": "string"}]}, "options": {}}}],
"connections": {"Stripe Trigger on Payment Event": {"main": [[{"node": "Session", "type": "main", "index": 0}]]}}}`
)

// TestServeImportedAppTriggers: the flows import writes for the GitHub
// and Stripe Triggers, served by flowctl serve, start a run for a
// delivery signed with the secret, whose item is the event as n8n gives
// it; a wrong signature is 401, and an event n8n drops (GitHub's ping,
// another event, another Stripe type) 204: neither starts a run.
func TestServeImportedAppTriggers(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	src, out := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(src, "issues.json"), []byte(hookGitHubWorkflow), 0o644)
	os.WriteFile(filepath.Join(src, "payments.json"), []byte(hookStripeWorkflow), 0o644)
	if b, err := flowctl(t, src, "import", "--out", out, "issues.json", "payments.json").CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, b)
	}
	const ghSecret, stripeSecret = "gh-hook-s3cret", "whsec_import_s3cret"
	p := startServe(t, out, []string{"FLOWCTL_SECRET_TRIGGER_ON_ISSUES_SECRET=" + ghSecret,
		"FLOWCTL_SECRET_STRIPE_TRIGGER_ON_PAYMENT_EVENT_SECRET=" + stripeSecret})

	ghPath := "/webhook/bc0a0a44-00db-473b-8746-b60b3b36039c/webhook"
	gh := func(event, body, secret, delivery string) (int, string) {
		code, reply, _ := p.post(ghPath, body, "X-Hub-Signature-256", "sha256="+hexHMAC(secret, body), "X-GitHub-Event", event, "X-GitHub-Delivery", delivery)
		return code, reply
	}
	issue := `{"action": "opened", "issue": {"title": "Crash on start"}, "repository": {"full_name": "John-n8n/DemoRepo"}}`
	code, reply := gh("issues", issue, ghSecret, "d-1")
	if code != http.StatusAccepted {
		t.Fatalf("a signed issues event: %d %s", code, reply)
	}
	if got := importedOutput(t, p, runID(reply), "title"); got != `[{"title":"Crash on start (issues)"}]` {
		t.Errorf("the run's items: %s", got)
	}
	if code, reply := gh("issues", issue, "wrong", "d-2"); code != http.StatusUnauthorized {
		t.Errorf("a wrong signature: %d %s", code, reply)
	}
	ping := `{"zen": "Keep it simple.", "hook_id": 1, "hook": {"events": ["issues"]}}`
	if code, reply := gh("ping", ping, ghSecret, "d-3"); code != http.StatusNoContent {
		t.Errorf("GitHub's ping: %d %s, want 204", code, reply)
	}
	if code, reply := gh("push", `{"ref": "refs/heads/main"}`, ghSecret, "d-4"); code != http.StatusNoContent {
		t.Errorf("an event the trigger does not take: %d %s, want 204", code, reply)
	}
	if n := p.runsOf("issues"); n != 1 {
		t.Errorf("%d runs of issues, want 1", n)
	}

	stripePath := "/webhook/e85ac894-bb67-436c-ad39-308a00c8e922/webhook"
	stripe := func(body, secret string) (int, string) {
		ts := fmt.Sprint(time.Now().Unix())
		code, reply, _ := p.post(stripePath, body, "Stripe-Signature", "t="+ts+",v1="+hexHMAC(secret, ts+"."+body))
		return code, reply
	}
	session := `{"id": "evt_1", "type": "checkout.session.completed", "data": {"object": {"id": "cs_test_1"}}}`
	code, reply = stripe(session, stripeSecret)
	if code != http.StatusAccepted {
		t.Fatalf("a signed Stripe event: %d %s", code, reply)
	}
	if got := importedOutput(t, p, runID(reply), "session"); got != `[{"session":"cs_test_1"}]` {
		t.Errorf("the run's items: %s", got)
	}
	if code, reply := stripe(strings.Replace(session, "evt_1", "evt_2", 1), "whsec_wrong"); code != http.StatusUnauthorized {
		t.Errorf("a wrong Stripe signature: %d %s", code, reply)
	}
	if code, reply := stripe(`{"id": "evt_3", "type": "invoice.paid"}`, stripeSecret); code != http.StatusNoContent {
		t.Errorf("a type the trigger does not take: %d %s, want 204", code, reply)
	}
	if n := p.runsOf("payments"); n != 1 {
		t.Errorf("%d runs of payments, want 1", n)
	}
}

// importedOutput waits for a run to succeed and gives an output's JSON.
func importedOutput(t *testing.T, p *serveProc, id, output string) string {
	t.Helper()
	var run struct {
		Status  string                     `json:"status"`
		Outputs map[string]json.RawMessage `json:"outputs"`
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if p.do("GET", "/v1/runs/"+id, "", &run) == 200 && run.Status != "queued" && run.Status != "running" {
			break
		}
	}
	if run.Status != "ok" {
		t.Fatalf("run %s is %s", id, run.Status)
	}
	var b bytes.Buffer
	json.Compact(&b, run.Outputs[output])
	return b.String()
}
