package n8n

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// A Webhook that answers with a Respond to Webhook node that no
// connection reaches, as the corpus's
// Zie619+n8n-workflows/workflows__Respondtowebhook__0163_Respondtowebhook_Spreadsheetfile_Automate_Webhook.json
// has it (its connections are empty). n8n decides by the Webhook's
// version: v1 runs the workflow and answers 200 with no body when it
// ends (the trigger answers an empty output as application/json); v2
// answers every call 500 "No Respond to Webhook node found in the
// workflow", which import refuses, saying so. A Respond node that comes
// after the Webhook and is not converted is the error it was.
func TestWebhookWithoutRespondNode(t *testing.T) {
	webhook := `"name": "Webhook", "type": "n8n-nodes-base.webhook", "position": [340, 0], "webhookId": "c1616754-4dec-4b00-a8b5-d1cb5f75bf11", "parameters": {"path": "c1616754-4dec-4b00-a8b5-d1cb5f75bf11", "options": {}, "httpMethod": "POST", "responseMode": "responseNode"}, "typeVersion": 1, "id": "node-18331163"`
	respond := `{"name": "Respond to Webhook", "type": "n8n-nodes-base.respondToWebhook", "position": [1020, 0], "parameters": {"options": {}, "respondWith": "text", "responseBody": "={{ $json.html }}"}, "typeVersion": 1, "id": "node-4fd771ed"}`
	unconnected := func(webhook string) string {
		return `{"name": "w", "nodes": [{` + webhook + `}, ` + respond + `], "connections": {}}`
	}
	res, diags := importWhole(t, unconnected(webhook))
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	flow := squash(mustValidate(t, unconnected(webhook)))
	wantText(t, flow,
		`output "webhook_answer" { value = ""`,
		`respond = output.webhook_answer`,
		`content_type = "application/json; charset=utf-8"`,
	)
	if !hasDiag(diags, hcl.DiagWarning, "Webhook answers with no body") {
		t.Errorf("no warning of the answer without body: %v", diags)
	}

	v2 := strings.Replace(webhook, `"typeVersion": 1,`, `"typeVersion": 2,`, 1)
	_, diags = importWhole(t, unconnected(v2))
	d := findDiag(diags, "Webhook answers every call with an error")
	if d == nil || !strings.Contains(d.Detail, `500 "No Respond to Webhook node found in the workflow"`) || !strings.Contains(d.Detail, "/nodes/0/parameters/responseMode") {
		t.Errorf("v2 without a Respond node: %v", diags)
	}

	// Connected after it but not converted (binary): that node's error,
	// and the webhook's as before.
	binary := strings.Replace(respond, `"respondWith": "text"`, `"respondWith": "binary"`, 1)
	src := `{"name": "w", "nodes": [{` + webhook + `}, ` + binary + `], "connections": {"Webhook": {"main": [[{"node": "Respond to Webhook", "type": "main", "index": 0}]]}}}`
	_, diags = importWhole(t, src)
	if !hasDiag(diags, hcl.DiagError, "Unsupported response") || !hasDiag(diags, hcl.DiagError, "No Respond to Webhook node") {
		t.Errorf("a Respond node not converted: %v", diags)
	}
}

// findDiag is the first error of diags with summary.
func findDiag(diags hcl.Diagnostics, summary string) *hcl.Diagnostic {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Summary == summary {
			return d
		}
	}
	return nil
}
