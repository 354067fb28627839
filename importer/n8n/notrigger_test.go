package n8n

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// Two nodes of importer/testdata/real/oxbshw+ultimate-n8n-ai-workflows/
// workflows__ai-agents__data-integration__1737-import-json-data-into-google-sheets-and-csv-file__workflow.json,
// which has no trigger.
const noTriggerHTTP = `"name": "HTTP Request", "type": "n8n-nodes-base.httpRequest", "position": [560, 840], "parameters": {"url": "https://randomuser.me/api/", "options": {}}, "typeVersion": 2`
const noTriggerSet = `"name": "Set", "type": "n8n-nodes-base.set", "position": [760, 840], "parameters": {"values": {"string": [{"name": "name", "value": "={{$json[\"results\"][0][\"name\"][\"first\"]}} {{$json[\"results\"][0][\"name\"][\"last\"]}}"}, {"name": "country", "value": "={{$json[\"results\"][0][\"location\"][\"country\"]}}"}]}, "options": {}, "keepOnlySet": true}, "typeVersion": 1`

// A workflow without a trigger is the workflow with a Manual Trigger
// before its one node without an input (where n8n's editor starts it,
// with one empty item), with a warning.
func TestNoTriggerRunByHand(t *testing.T) {
	manual := `"name": "When clicking ‘Execute workflow’", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}`
	want := flowBody(t, mustValidate(t, workflow("randomuser", manual, noTriggerHTTP, noTriggerSet)))
	src := strings.Replace(workflow("randomuser", manual, noTriggerHTTP, noTriggerSet), `{`+manual+`}, `, "", 1)
	src = strings.Replace(src, `"When clicking ‘Execute workflow’": {"main": [[{"node": "HTTP Request", "type": "main", "index": 0}]]}, `, "", 1)
	if strings.Contains(src, "manualTrigger") || strings.Contains(src, "Execute workflow") {
		t.Fatalf("the trigger is still in %s", src)
	}
	res, diags := importWhole(t, src)
	if res == nil || diags.HasErrors() {
		t.Fatalf("not imported: %v", diags)
	}
	if got := flowBody(t, flowText(t, res)); got != want {
		t.Errorf("flow without a trigger:\n%s\nwant (with a Manual Trigger):\n%s", got, want)
	}
	var warned bool
	for _, d := range diags {
		warned = warned || d.Severity == hcl.DiagWarning && d.Summary == "Workflow without a trigger" && strings.Contains(d.Detail, `"HTTP Request"`)
	}
	if !warned {
		t.Errorf("no warning naming the start: %v", diags)
	}
}

// flowBody is a flow's text from its first block on (its header comments
// name the trigger).
func flowBody(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, "\nflow ")
	if i < 0 {
		t.Fatalf("no flow block in %s", text)
	}
	return text[i:]
}

// With two nodes without an input, where n8n starts depends on the node
// run: refused, naming them.
func TestNoTriggerSeveralStarts(t *testing.T) {
	src := `{"name": "two", "nodes": [{` + noTriggerHTTP + `}, {` + noTriggerSet + `}], "connections": {}}`
	res, diags := importWhole(t, src)
	if res != nil || !diags.HasErrors() {
		t.Fatalf("imported: %v", diags)
	}
	if d := diags[0]; d.Summary != "No trigger" || !strings.Contains(d.Detail, `2 nodes without an input ("HTTP Request", "Set")`) {
		t.Errorf("got %s: %s", d.Summary, d.Detail)
	}
}

// n8n's Interval node (a trigger not named so) from
// importer/testdata/real/oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0197_Youtube_Telegram_Send_Scheduled.json:
// a schedule every 30 minutes and one empty item.
func TestIntervalTrigger(t *testing.T) {
	interval := `"name": "CheckTime", "type": "n8n-nodes-base.interval", "position": [210, 510], "parameters": {"unit": "minutes", "interval": 30}, "typeVersion": 1`
	wf := func(interval string) string {
		return `{"name": "interval", "nodes": [{` + interval + `}, {` + noTriggerHTTP + `}], "connections": {"CheckTime": {"main": [[{"node": "HTTP Request", "type": "main", "index": 0}]]}}}`
	}
	text := mustValidate(t, wf(interval))
	for _, want := range []string{`cron = "@every 1800s"`, `for_each = [{}]`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in\n%s", want, text)
		}
	}
	if strings.Contains(text, "manualTrigger") {
		t.Errorf("a Manual Trigger in\n%s", text)
	}
	bad := strings.Replace(interval, `"unit": "minutes", "interval": 30`, `"unit": "seconds", "interval": 0.5`, 1)
	if _, diags := importWhole(t, wf(bad)); !diags.HasErrors() || !strings.Contains(diags.Error(), "Unsupported interval") {
		t.Errorf("half a minute: %v", diags)
	}
}
