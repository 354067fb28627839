package n8n

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// The older versions of the core nodes, each on a node of the corpus
// (importer/testdata/real, the file in the comment), trimmed of its id,
// position and notes; the values they compute are checked against n8n
// by the cases old_if_set, old_switch_merge and http_old (n8nlive).

const (
	// Zie619+n8n-workflows/workflows__Code__0273_Code_Webhook_Create_Webhook.json
	realIfV1 = `"name": "If Node", "type": "n8n-nodes-base.if", "parameters": {"conditions": {"string": [{"value1": "={{$node[\"Determine\"].json[\"Slack Thread ID\"]}}", "operation": "isNotEmpty"}]}}, "typeVersion": 1`
	// Zie619+n8n-workflows/workflows__Code__0273_Code_Webhook_Create_Webhook.json
	realSetV1 = `"name": "Configure", "type": "n8n-nodes-base.set", "parameters": {"values": {"string": [{"name": "Slack channel", "value": "#zendesk-updates"}]}, "options": {"dotNotation": false}}, "typeVersion": 1`
	// Zie619+n8n-workflows/workflows__Github__0264_GitHub_Stickynote_Create_Triggered.json
	realSwitchV1 = `"name": "Switch", "type": "n8n-nodes-base.switch", "parameters": {"rules": {"rules": [{"value2": "edited"}, {"output": 1, "value2": "deleted"}, {"output": 2, "value2": "closed"}, {"output": 3, "value2": "reopened"}]}, "value1": "={{$json[\"body\"][\"action\"]}}", "dataType": "string"}, "typeVersion": 1`
	// enescingoz+awesome-n8n-templates/PDF_and_Document_Processing__Extract_text_from_PDF_and_image_using_Vertex_AI_Gemini_into_CSV.json
	realSwitchV2 = `"name": "Route based on PDF or Image", "type": "n8n-nodes-base.switch", "parameters": {"rules": {"rules": [{"value2": "application/pdf", "outputKey": "pdf"}, {"value2": "image/", "operation": "contains", "outputKey": "image"}]}, "value1": "={{$json.mimeType}}", "dataType": "string"}, "typeVersion": 2`
	// Zie619+n8n-workflows/workflows__Readbinaryfiles__1583_Readbinaryfiles_Code_Automation_Webhook.json
	realCodeV1 = `"name": "Code-ex3.1", "type": "n8n-nodes-base.code", "parameters": {"jsCode": "var intext = $input.first().json;\n\nvar messages = [\n {\"role\": \"system\", \"content\": \"You are a helpful assistant. Write a Tl;dr of each user message\"},\n {\"role\": \"user\", \"content\": intext.text}\n];\n\nreturn {\"messages\":messages};"}, "typeVersion": 1`
	// Zie619+n8n-workflows/workflows__Http__0440_HTTP_Stickynote_Create_Webhook.json (the URL a literal)
	realHTTPV3 = `"name": "Hidden message", "type": "n8n-nodes-base.httpRequest", "parameters": {"url": "https://slack.example/api", "method": "POST", "options": {}, "sendBody": true, "bodyParameters": {"parameters": [{"name": "text", "value": "=Thanks for adding the idea {{$json[\"url\"]}}"}]}}, "typeVersion": 3`
	// Zie619+n8n-workflows/workflows__Http__0021_HTTP_Awssqs_Automation_Scheduled.json
	realHTTPV1 = `"name": "HTTP Request", "type": "n8n-nodes-base.httpRequest", "parameters": {"url": "https://api.example/status", "options": {}, "queryParametersUi": {"parameter": [{"name": "q", "value": "={{$json[\"q\"]}}"}]}}, "typeVersion": 1`
)

// TestIfV1: IF v1's conditions go to n8n's own comparisons (mode ifV1),
// with the operation and the value2 n8n defaults to.
func TestIfV1(t *testing.T) {
	flow := mustValidate(t, workflow("w", setData, strings.Replace(realIfV1, `$node[\"Determine\"].json`, `$node[\"Data\"].json`, 1)))
	for _, want := range []string{`mode = "ifV1"`, `combine = "all"`, `operation = "isNotEmpty"`, `value2    = ""`} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
	// A date condition: not converted, at its JSON path.
	_, diags := importWhole(t, workflow("w", setData, `"name": "D", "type": "n8n-nodes-base.if", "typeVersion": 1, "parameters": {"conditions": {"dateTime": [{"value1": "={{$json.q}}", "value2": "2024-01-01"}]}}`))
	wantDiag(t, diags, "Unsupported condition", "/nodes/2/parameters/conditions/dateTime/0")
}

// TestSetV1: Set v1's values in n8n's order (booleans, numbers, strings)
// over the item, dot notation as set; v2 reads a number written as text.
func TestSetV1(t *testing.T) {
	flow := mustValidate(t, workflow("w", setData, realSetV1))
	if want := "value = merge(each.value, {\n    \"Slack channel\" = \"#zendesk-updates\"\n  })"; !strings.Contains(flow, want) {
		t.Errorf("want %s in:\n%s", want, flow)
	}
	flow = mustValidate(t, workflow("w", setData, `"name": "S", "type": "n8n-nodes-base.set", "typeVersion": 2, "parameters": {"keepOnlySet": true, "values": {"string": [{"name": "a.b", "value": "x"}], "number": [{"name": "n", "value": "12"}, {"name": "m", "value": "={{ $json.q }}"}], "boolean": [{"name": "t", "value": "={{ $json.q }}"}]}, "options": {}}`))
	for _, want := range []string{"t = [for x in [try(each.value.q, null)] : !(x == null || x == false || x == 0 || x == \"\")][0]", "n = 12", "m = [for x in", "a = {\n      b = \"x\"\n    }"} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
	if strings.Contains(flow, "merge(each.value") {
		t.Errorf("Keep Only Set keeps the item's fields:\n%s", flow)
	}
	// A hexadecimal number: JavaScript's Number reads it, HCL does not.
	_, diags := importWhole(t, workflow("w", setData, `"name": "S", "type": "n8n-nodes-base.set", "typeVersion": 2, "parameters": {"values": {"number": [{"name": "n", "value": "0x10"}]}}`))
	wantDiag(t, diags, "Invalid value", "/nodes/2/parameters/values/number/0/value")
}

// TestSwitchV1: v1 routes to each rule's output of four, v2 to the
// rule's own (one output each).
func TestSwitchV1(t *testing.T) {
	for _, c := range []struct {
		node, want string
		outputs    int
	}{{realSwitchV1, "v2      = false", 4}, {realSwitchV2, "v2      = true", 2}} {
		res, diags := importWhole(t, workflow("w", c.node))
		if res == nil {
			t.Fatalf("import failed: %v", diags)
		}
		flow := flowText(t, res)
		if d := importer.Check(res.Files); d.HasErrors() {
			t.Fatalf("the flow does not validate: %v\n%s", d, flow)
		}
		for _, want := range []string{`mode = "switchV1"`, c.want, "outputs = " + string(rune('0'+c.outputs)), `operation = "equal"`} {
			if !strings.Contains(flow, want) {
				t.Errorf("no %s in:\n%s", want, flow)
			}
		}
	}
	_, diags := importWhole(t, workflow("w", `"name": "S", "type": "n8n-nodes-base.switch", "typeVersion": 1, "parameters": {"mode": "expression", "output": 1}`))
	wantDiag(t, diags, "Unsupported mode", "/nodes/1/parameters/mode")
}

// TestMergeV1: Merge v1's key modes run n8n's MergeV1 code; its mode by
// default is append.
func TestMergeV1(t *testing.T) {
	// Zie619+n8n-workflows/workflows__Functionitem__0266_Functionitem_Zendesk_Create_Webhook.json
	byKey := `{"name": "Add requester information to ticket data", "type": "n8n-nodes-base.merge", "parameters": {"mode": "mergeByKey", "propertyName1": "requester_id", "propertyName2": "requester_id"}, "typeVersion": 1}`
	// Zie619+n8n-workflows/workflows__Github__0135_GitHub_Cron_Create_Scheduled.json
	appendNode := `{"name": "Merge", "type": "n8n-nodes-base.merge", "parameters": {}, "typeVersion": 1}`
	for _, c := range []struct{ node, want string }{
		{byKey, "mode = \"mergeV1\"\n  params = {\n    mode          = \"mergeByKey\"\n    propertyName1 = \"requester_id\""},
		{appendNode, "value = concat(local.a, local.b)"},
	} {
		src := `{"name": "w", "nodes": [{"name": "T", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
			{"name": "A", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/a"}},
			{"name": "B", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/b"}}, ` + c.node + `],
			"connections": {"T": {"main": [[{"node": "A"}, {"node": "B"}]]}, "A": {"main": [[{"node": "` + strings.Split(strings.Split(c.node, `"name": "`)[1], `"`)[0] + `", "index": 0}]]},
			"B": {"main": [[{"node": "` + strings.Split(strings.Split(c.node, `"name": "`)[1], `"`)[0] + `", "index": 1}]]}}}`
		flow := mustValidate(t, src)
		if !strings.Contains(flow, c.want) {
			t.Errorf("no %s in:\n%s", c.want, flow)
		}
	}
}

// TestCodeV1: Code v1 is JavaScript, whatever its hidden language says.
func TestCodeV1(t *testing.T) {
	flow := mustValidate(t, workflow("w", setData, strings.Replace(realCodeV1, `"parameters": {`, `"parameters": {"language": "python", `, 1)))
	if !strings.Contains(flow, `"runOnceForAllItems"`) || !strings.Contains(flow, "intext.text") {
		t.Errorf("Code v1 is not the code run once for all items:\n%s", flow)
	}
}

// TestHTTPRequestOld: v1's parameters read as v4's, with its hour of
// timeout and its answer whole; v3 as v4, with a warning on redirects.
func TestHTTPRequestOld(t *testing.T) {
	flow := mustValidate(t, workflow("w", setData, realHTTPV1))
	for _, want := range []string{"query = {\n    q = each.value.q\n  }", `timeout = "1h"`, "http_request = [for r in step.http_request : concat("} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
	res, diags := importWhole(t, workflow("w", setData, realHTTPV3))
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	if want := "text = \"Thanks for adding the idea ${coalesce(try(each.value.url, null), \"\")}\""; !strings.Contains(flowText(t, res), want) {
		t.Errorf("no %s in:\n%s", want, flowText(t, res))
	}
	wantDiag(t, diags, "Redirects followed", "/nodes/2/parameters/options")
	// A file answer of a POST: not converted (httpold_file_test.go has
	// the GET's).
	_, diags = importWhole(t, workflow("w", setData, `"name": "F", "type": "n8n-nodes-base.httpRequest", "typeVersion": 1, "parameters": {"url": "https://x.example/f", "requestMethod": "POST", "responseFormat": "file"}`))
	wantDiag(t, diags, "Unsupported option", "/nodes/2/parameters/responseFormat")
}

// wantDiag checks that diags hold summary at the JSON path.
func wantDiag(t *testing.T, diags hcl.Diagnostics, summary, path string) {
	t.Helper()
	for _, d := range diags {
		o, _ := d.Extra.(importer.Origin)
		if d.Summary == summary && o.Path == path {
			return
		}
	}
	t.Errorf("no %s at %s in %v", summary, path, diags)
}

// TestSetJSONMode: Edit Fields' JSON mode, on JSON Outputs of the corpus:
// literal JSON, and one expression's value, set over what the item
// keeps; a value that may not be an object fails the step, never passes.
func TestSetJSONMode(t *testing.T) {
	// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0530_Splitout_GoogleCalendar_Create_Webhook.json
	flow := mustValidate(t, workflow("w", setData, `"name": "Fixed", "type": "n8n-nodes-base.set", "typeVersion": 3.3, "parameters": {"mode": "raw", "options": {}, "jsonOutput": "{\n  \"response\": {\n    \"ok\": false,\n    \"error\": \"The requested tool was not found or the service may be unavailable. Do not retry.\"\n  }\n}\n"}`))
	if want := "value = {\n    response = {\n      ok    = false\n"; !strings.Contains(flow, want) {
		t.Errorf("no %s in:\n%s", want, flow)
	}
	// oxbshw+ultimate-n8n-ai-workflows/workflows__data-integration__2550-waitlist-form-stored-in-googlesheet-with-email-verification-step__workflow.json
	flow = mustValidate(t, workflow("w", setData, `"name": "Code", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"mode": "raw", "options": {}, "jsonOutput": "={{ $(\"Data\").item.json }}", "includeOtherFields": true}`))
	for _, want := range []string{"value    = merge(each.value, [for x in [", "can(keys(y))", "tonumber(\"n8n node \\\"Code\\\": the JSON Output is not a JSON object"} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
	_, diags := importWhole(t, workflow("w", setData, `"name": "Dots", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"mode": "raw", "jsonOutput": "{\"a.b\": 1}"}`))
	wantDiag(t, diags, "Unsupported field name", "/nodes/2/parameters/jsonOutput")
	_, diags = importWhole(t, workflow("w", setData, `"name": "List", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"mode": "raw", "jsonOutput": "[1, 2]"}`))
	wantDiag(t, diags, "Invalid JSON", "/nodes/2/parameters/jsonOutput")
}

// TestMergeByFields: Merge v3 combining by matching fields runs n8n's
// code; v2's merge by fields and fuzzy compare stay refused.
func TestMergeByFields(t *testing.T) {
	merge := func(node string) string {
		return `{"name": "w", "nodes": [{"name": "T", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
			{"name": "A", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/a"}},
			{"name": "B", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/b"}}, {"name": "M", ` + node + `}],
			"connections": {"T": {"main": [[{"node": "A"}, {"node": "B"}]]}, "A": {"main": [[{"node": "M", "index": 0}]]}, "B": {"main": [[{"node": "M", "index": 1}]]}}}`
	}
	// oxbshw+ultimate-n8n-ai-workflows/automation__1889_Splitout_Comparedatasets_Sync_Webhook.json
	flow := mustValidate(t, merge(`"type": "n8n-nodes-base.merge", "parameters": {"mode": "combine", "options": {}, "fieldsToMatchString": "email"}, "typeVersion": 3`))
	for _, want := range []string{`mode = "combineByFields"`, "field1 = \"email\"", `joinMode       = "keepMatches"`, `outputDataFrom = "both"`} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
	// Zie619+n8n-workflows/workflows__Redis__0387_Redis_Code_Create_Scheduled.json
	_, diags := importWhole(t, merge(`"type": "n8n-nodes-base.merge", "parameters": {"mode": "combine", "options": {}, "joinMode": "enrichInput1", "mergeByFields": {"values": [{"field1": "NetworkID", "field2": "networkId"}]}}, "typeVersion": 2.1`))
	wantDiag(t, diags, "Unsupported merge", "/nodes/3/parameters/mode")
	_, diags = importWhole(t, merge(`"type": "n8n-nodes-base.merge", "parameters": {"mode": "combine", "fieldsToMatchString": "id", "options": {"fuzzyCompare": true}}, "typeVersion": 3`))
	wantDiag(t, diags, "Unsupported merge", "/nodes/3/parameters/options/fuzzyCompare")
}
