package n8n

import (
	"regexp"
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

// The Webhook's Raw Body as the corpus's
// Zie619+n8n-workflows/workflows__Stickynote__2039_Stickynote_Webhook_Automation_Webhook.json
// has it: the raw body is a file beside the item's json, which is the
// request's as without it; when no node reads binary data the option is
// left out with a warning, else it is the error it was. v2's Field Name
// for Binary Data names that file alone; v1's Binary Data leaves the
// body unparsed, an error.
func TestWebhookBodyFile(t *testing.T) {
	hook := `"id": "e4c2c92d-6291-42c8-9d03-5abfe1a85a83", "name": "Webhook", "type": "n8n-nodes-base.webhook", "position": [420, 760], "webhookId": "a48d5121-b453-4b5e-aa30-88ba3e16b931", "parameters": {"path": "ingestData", "options": {"rawBody": true}, "httpMethod": "POST"}, "typeVersion": 2`
	res, diags := importWhole(t, startedBy(hook, setData))
	if res == nil || !hasDiag(diags, hcl.DiagWarning, "Webhook option left out") {
		t.Fatalf("raw body, read by no node: %v", diags)
	}
	mustValidate(t, startedBy(hook, setData))
	code := `"name": "Code", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return [{json: {raw: $input.first().binary.data.data}}]"}`
	_, diags = importWhole(t, startedBy(hook, code))
	if d := findDiag(diags, "Unsupported webhook option"); d == nil || !strings.Contains(d.Detail, "/nodes/0/parameters/options/rawBody") {
		t.Errorf("raw body read by a Code node: %v", diags)
	}
	named := strings.Replace(hook, `"rawBody": true`, `"binaryPropertyName": "file"`, 1)
	if res, diags := importWhole(t, startedBy(named, setData)); res == nil {
		t.Errorf("v2's field name for binary data: %v", diags)
	}
	if _, diags := importWhole(t, startedBy(strings.Replace(named, `"typeVersion": 2`, `"typeVersion": 1`, 1), setData)); !hasDiag(diags, hcl.DiagError, "Unsupported webhook option") {
		t.Errorf("v1's field name for binary data: %v", diags)
	}
	if _, diags := importWhole(t, startedBy(strings.Replace(hook, `"rawBody": true`, `"binaryData": true`, 1), setData)); !hasDiag(diags, hcl.DiagError, "Unsupported webhook option") {
		t.Errorf("v1's binary data: %v", diags)
	}
}

// startedBy is a workflow of nodes in a chain whose first node starts it.
func startedBy(nodes ...string) string {
	w := strings.Replace(workflow("w", nodes...), `{"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}}, `, "", 1)
	return regexp.MustCompile(`"Start": \{[^}]*\}\]\]\}, `).ReplaceAllString(w, "")
}
