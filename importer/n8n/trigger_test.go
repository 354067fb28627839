package n8n

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// hasDiag reports whether diags hold one of severity sev and summary.
func hasDiag(diags hcl.Diagnostics, sev hcl.DiagnosticSeverity, summary string) bool {
	for _, d := range diags {
		if d.Severity == sev && d.Summary == summary {
			return true
		}
	}
	return false
}

// squash is text with each run of spaces one space.
func squash(s string) string { return spaces.ReplaceAllString(s, " ") }

var spaces = regexp.MustCompile(` {2,}`)

// A Webhook answered by a Respond to Webhook node (the corpus's
// oxbshw+ultimate-n8n-ai-workflows/New_Workflow__webhook-ai-response.json):
// a webhook trigger whose request is the Webhook's item and whose answer
// is the Respond node's body, an output of the flow.
func TestWebhookRespondNode(t *testing.T) {
	src, err := os.ReadFile("../testdata/real/oxbshw+ultimate-n8n-ai-workflows/New_Workflow__webhook-ai-response.json")
	if err != nil {
		t.Fatal(err)
	}
	res, diags := importWhole(t, string(src))
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flow does not validate: %v", d)
	}
	flow := squash(flowText(t, res))
	for _, want := range []string{
		`path = "/webhook/web-hook"`,
		`method = "POST"`,
		`verify = "none"`,
		`inputs = { webhook_request = { headers = request.headers, params = {}, query = request.query, body = request.body } }`,
		`respond = output.respond_to_webhook_body`,
		`content_type = "text/html; charset=utf-8"`,
		`for_each = (input.webhook_request == null ? [] : [input.webhook_request])`,
		`prompt = try(each.value.body.prompt, null)`,
		`value = length([for r in step.ai_agent : { output = r.text }]) > 0 ? [for r in step.ai_agent : { output = r.text }][0].output : null`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
	if !hasDiag(diags, hcl.DiagWarning, "Webhook without verification") {
		t.Errorf("no warning that the webhook verifies nothing: %v", diags)
	}
}

const webhookNode = `"name": "Hook Trigger", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "webhookId": "abc", "parameters": {%s}`

// The Webhook's Respond modes and methods: Immediately is "accepted"
// (and n8n's default method GET), When Last Node Finishes the last
// node's first item, an output; a
// JSON body's expressions are translated; authentication n8n checks by
// a fixed credential is an error that says what differs.
func TestWebhookModes(t *testing.T) {
	flow := squash(mustValidate(t, workflow("w", strings.Replace(webhookNode, "%s", `"path": "in"`, 1), setData)))
	for _, want := range []string{`method = "GET"`, `respond = "accepted"`, `path = "/webhook/in"`} {
		if !strings.Contains(flow, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
	flow = squash(mustValidate(t, workflow("w", strings.Replace(webhookNode, "%s", `"path": "in", "httpMethod": "POST", "responseMode": "lastNode"`, 1), setData)))
	if !strings.Contains(flow, `respond = output.data_reply`) || !strings.Contains(flow, `value = (step.data[*].value)[0]`) {
		t.Errorf("lastNode is not the last node's first item:\n%s", flow)
	}
	flow = squash(mustValidate(t, workflow("w", strings.Replace(webhookNode, "%s", `"path": "in", "httpMethod": "POST", "responseMode": "responseNode"`, 1), setData,
		`"name": "Answer", "type": "n8n-nodes-base.respondToWebhook", "typeVersion": 1.1, "parameters": {"respondWith": "json", "responseBody": "={\"q\": \"{{ $json.q }}\", \"n\": 1}", "options": {"responseKey": "data"}}`)))
	for _, want := range []string{`respond = output.answer_body`, `n = 1`, `q = `} {
		if !strings.Contains(flow, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
	if strings.Contains(flow, "content_type") {
		t.Errorf("a JSON answer has the default type:\n%s", flow)
	}
	_, diags := importWhole(t, workflow("w", strings.Replace(webhookNode, "%s", `"path": "in", "authentication": "jwtAuth"`, 1), setData))
	if !hasDiag(diags, hcl.DiagError, "Unsupported webhook authentication") {
		t.Errorf("JWT auth is not an error: %v", diags)
	}
}

// The Cron node (n8n's schedule before the Schedule Trigger): a schedule
// for each trigger time as n8n's toCronExpression makes it, and one empty
// item. The trigger times are the corpus's (Zie619+n8n-workflows
// workflows__Functionitem__0266, __Github__0135, __Http__0021, __Http__1043;
// oxbshw+ultimate-n8n-ai-workflows automation__823,
// workflows__ai-agents__0066), and a custom one with a cron n8n reads
// every second, which does not convert.
func TestCronNode(t *testing.T) {
	cron := `"name": "Cron Trigger", "type": "n8n-nodes-base.cron", "typeVersion": 1, "parameters": {"triggerTimes": {"item": [` +
		`{"mode": "everyX", "unit": "minutes", "value": 5}, {"mode": "everyWeek"}, {"mode": "everyMinute"}, {"hour": 20},` +
		`{"mode": "everyHour", "minute": 15}, {"mode": "custom", "cronExpression": "0 0 6-12 * * 1-5"}, {"mode": "everyX", "value": 3}]}}`
	flow := squash(mustValidate(t, workflow("w", cron, setData)))
	for i, want := range []string{"*/5 * * * *", "0 14 * * 1", "* * * * *", "0 20 * * *", "15 * * * *", "0 6-12 * * 1-5", "0 */3 * * *"} {
		if w := fmt.Sprintf("schedule \"cron_trigger_%d\" {\n cron = %q", i+1, want); !strings.Contains(flow, w) {
			t.Errorf("want %s in:\n%s", w, flow)
		}
	}
	if !strings.Contains(flow, `for_each = [{}]`) {
		t.Errorf("the Cron node's item is not one empty item:\n%s", flow)
	}
	_, diags := importWhole(t, workflow("w", strings.Replace(cron, `"0 0 6-12 * * 1-5"`, `"* * * * * *"`, 1), setData))
	if !hasDiag(diags, hcl.DiagError, "Unsupported cron expression") {
		t.Errorf("a cron of every second is not an error: %v", diags)
	}
}

// The Form Trigger (Zie619+n8n-workflows
// workflows__Hunter__0436_Hunter_Pipedrive_Create_Triggered.json): a
// webhook trigger at n8n's form URL whose posted fields are the item,
// with formMode; a file field is an error.
func TestFormTrigger(t *testing.T) {
	form := `"name": "n8n Form Trigger", "type": "n8n-nodes-base.formTrigger", "typeVersion": 2, "webhookId": "09f63412-7c4a-4752-93cd-ff1c87774226", "parameters": {"path": "0bf8840f-1cc4-46a9-86af-a3fa8da80608", "options": {}, "formTitle": "Contact us", "formFields": {"values": [{"fieldLabel": "What's your business email?"}]}, "formDescription": "We'll get back to you soon"}`
	flow := squash(mustValidate(t, workflow("w", form, setData)))
	for _, want := range []string{
		`path = "/form/0bf8840f-1cc4-46a9-86af-a3fa8da80608"`,
		`method = "POST"`,
		`inputs = { n8n_form_trigger_form = request.body }`,
		`respond = "accepted"`,
		`for_each = (input.n8n_form_trigger_form == null ? [] : [merge(input.n8n_form_trigger_form, { formMode = "production" })])`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
	_, diags := importWhole(t, workflow("w", strings.Replace(form, `{"fieldLabel": "What's your business email?"}`, `{"fieldLabel": "CV", "fieldType": "file"}`, 1), setData))
	if !hasDiag(diags, hcl.DiagError, "Unsupported form field") {
		t.Errorf("a file field is not an error: %v", diags)
	}
}

// When Last Node Finishes with a Property Name answers with that property
// of the last node's first item, as n8n's lodash get reads it, and with
// the Response Content-Type; the Webhook node is the corpus's
// (oxbshw+ultimate-n8n-ai-workflows
// workflows__ai-agents__1065_Telegram_Webhook_Automation_Webhook.json, its
// Edit Fields node's value without the Telegram node it reads). A Property
// Name that is an expression, or reads brackets, is an error.
func TestWebhookLastNodeProperty(t *testing.T) {
	hook := `"name": "Webhook Trigger", "type": "n8n-nodes-base.webhook", "typeVersion": 1, "webhookId": "abc", "parameters": {"path": "telegram", "options": {%s}, "responseMode": "lastNode"}`
	set := `"name": "Set", "type": "n8n-nodes-base.set", "typeVersion": 1, "parameters": {"values": {"string": [{"name": "response", "value": "=Sent message to {{$json[\"query\"][\"parameter\"]}}"}]}, "options": {}}`
	flow := squash(mustValidate(t, workflow("w", strings.Replace(hook, "%s", `"responsePropertyName": "response"`, 1), set)))
	if !strings.Contains(flow, `respond = output.set_reply`) || !regexp.MustCompile(`output "set_reply" \{\s+value = \S+\[0\]\.response\s`).MatchString(flow) || strings.Contains(flow, "content_type") {
		t.Errorf("the answer is not the property response of the last node's first item:\n%s", flow)
	}
	flow = squash(mustValidate(t, workflow("w", strings.Replace(hook, "%s", `"responsePropertyName": "a.b", "responseContentType": "text/plain"`, 1), set)))
	if !regexp.MustCompile(`value = \S+\[0\]\.a\.b\s`).MatchString(flow) || !strings.Contains(flow, `content_type = "text/plain"`) {
		t.Errorf("the answer is not the property a.b, as text/plain:\n%s", flow)
	}
	for _, bad := range []string{`"responsePropertyName": "={{ $json.x }}"`, `"responsePropertyName": "items[0]"`} {
		_, diags := importWhole(t, workflow("w", strings.Replace(hook, "%s", bad, 1), set))
		if !hasDiag(diags, hcl.DiagError, "Unsupported webhook option") {
			t.Errorf("%s is not an error: %v", bad, diags)
		}
	}
}

// In a text, another node's field that its item lacks is "", as n8n joins
// a text's parts, as the current item's is: the corpus's
// oxbshw+ultimate-n8n-ai-workflows
// workflows__ai-agents__communication__2471-create-single-new-masked-email-address-with-fastmail__workflow.json
// reads $('Session').item.json.primaryAccounts['https://www.fastmail.com/dev/maskedemail']
// in a JSON body's string, which n8n makes "" when the session lacks it.
func TestTextPartOfAnotherNode(t *testing.T) {
	for _, ref := range []string{
		`$('Data').item.json.primaryAccounts['https://www.fastmail.com/dev/maskedemail']`,
		`$('Data').first().json.a.b`,
		`$node["Data"].json["a"]`,
	} {
		flow := squash(mustValidate(t, workflow("w", setData,
			`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "=id {{ `+strings.ReplaceAll(ref, `"`, `\"`)+` }}", "type": "string"}]}}`)))
		if !strings.Contains(flow, `"id ${[for it in [`) || !strings.Contains(flow, `: coalesce(try(it.`) {
			t.Errorf("%s: a missing field is not \"\":\n%s", ref, flow)
		}
	}
}

// The same in a JSON body's string, as the Fastmail workflow has it.
func TestJSONBodyTextOfAnotherNode(t *testing.T) {
	flow := squash(mustValidate(t, workflow("w", setData,
		`"name": "Create", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/jmap/api/", "method": "POST", "sendBody": true, "specifyBody": "json", "jsonBody": "={\"accountId\": \"{{ $('Data').item.json.primaryAccounts['https://www.fastmail.com/dev/maskedemail'] }}\"}"}`)))
	if !strings.Contains(flow, `accountId = "${[for it in [`) || !strings.Contains(flow, `: coalesce(try(it.primaryAccounts["https://www.fastmail.com/dev/maskedemail"], null), "")][0]}"`) {
		t.Errorf("a missing field is not \"\":\n%s", flow)
	}
}
