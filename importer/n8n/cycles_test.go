package n8n

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// A loop of connections that is not a Loop Over Items — here the polling
// loop of oxbshw+ultimate-n8n-ai-workflows/workflows__1238_Manual_Code_Automation_Webhook.json:
// ask for the task, and while it is not done wait and ask again — is an
// error at each of its nodes that says what kind of loop it is; with
// --partial its nodes are stand-ins that keep the items coming from
// outside the loop, and the nodes after it convert.
func TestLoopStandIns(t *testing.T) {
	src := `{"name": "Poll", "nodes": [
	  {"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1},
	  {"parameters": {"url": "http://127.0.0.1:1/api/v1/task", "method": "POST", "options": {}}, "name": "Midjourney Generator", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2},
	  {"parameters": {"url": "=http://127.0.0.1:1/api/v1/task/{{ $json.data.task_id }}", "options": {}}, "name": "Get Midjourney URL", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2},
	  {"parameters": {"options": {}, "conditions": {"options": {"version": 2, "leftValue": "", "caseSensitive": true, "typeValidation": "strict"}, "combinator": "and", "conditions": [{"id": "a0f8758e", "operator": {"name": "filter.operator.equals", "type": "string", "operation": "equals"}, "leftValue": "={{ $json.data.status }}", "rightValue": "completed"}]}}, "name": "Verify URL Acquisition", "type": "n8n-nodes-base.if", "typeVersion": 2.2},
	  {"parameters": {}, "name": "Wait for Generation", "type": "n8n-nodes-base.wait", "typeVersion": 1.1},
	  {"parameters": {}, "name": "Done", "type": "n8n-nodes-base.noOp", "typeVersion": 1}],
	  "connections": {"Start": {"main": [[{"node": "Midjourney Generator", "type": "main", "index": 0}]]},
	    "Midjourney Generator": {"main": [[{"node": "Get Midjourney URL", "type": "main", "index": 0}]]},
	    "Get Midjourney URL": {"main": [[{"node": "Verify URL Acquisition", "type": "main", "index": 0}]]},
	    "Verify URL Acquisition": {"main": [[{"node": "Done", "type": "main", "index": 0}], [{"node": "Wait for Generation", "type": "main", "index": 0}]]},
	    "Wait for Generation": {"main": [[{"node": "Get Midjourney URL", "type": "main", "index": 0}]]}}}`
	files := []importer.File{{Name: "poll.json", Bytes: []byte(src)}}
	res, diags := importer.Import(files, importer.Options{})
	if res != nil {
		t.Fatal("without --partial a flow was written")
	}
	var on []string
	for _, d := range diags {
		if d.Summary == "Loop in the workflow" && d.Severity == hcl.DiagError {
			on = append(on, d.Extra.(importer.Origin).Node)
			if !strings.Contains(d.Detail, `the node is on a loop that waits and goes back until a condition holds (polling, or retrying) ("Get Midjourney URL", "Verify URL Acquisition", "Wait for Generation")`) {
				t.Errorf("the error does not say what loop: %s", d.Detail)
			}
		}
	}
	if strings.Join(on, ", ") != "Get Midjourney URL, Verify URL Acquisition, Wait for Generation" {
		t.Errorf("errors on %v, want the loop's three nodes", on)
	}
	res, diags = importer.Import(files, importer.Options{Partial: true})
	if res == nil {
		t.Fatalf("--partial wrote nothing: %v", diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
	flow := strings.Join(strings.Fields(flowText(t, res)), " ")
	for _, want := range []string{
		`step "get_midjourney_url" { use = "not_converted" message = "Loop in the workflow: `,
		`inputs = local.midjourney_generator }`,
		`step "verify_url_acquisition" { use = "not_converted"`, `inputs = step.get_midjourney_url.value }`,
		`step "wait_for_generation" { use = "not_converted"`, `inputs = step.verify_url_acquisition.value }`,
		`step "done" { use = "value" value = step.verify_url_acquisition.value }`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("want %s in:\n%s", want, flowText(t, res))
		}
	}
}

// An Error Trigger (Zie619+n8n-workflows/workflows__Error__0945_Error_Code_Send_Triggered.json)
// is not converted, and the error says what n8n gives and what a flow's
// on_run trigger can say instead.
func TestErrorTriggerSaysWhy(t *testing.T) {
	_, diags := importWhole(t, workflow("alerts", `"name": "Error Trigger", "type": "n8n-nodes-base.errorTrigger", "typeVersion": 1, "parameters": {}`, setData))
	for _, d := range diags {
		if d.Summary == "Unsupported node" && strings.Contains(d.Detail, "n8n-nodes-base.errorTrigger") {
			if !strings.Contains(d.Detail, `gives it the failed execution's error message, stack and last node; a flow's on_run trigger (on_run { flow = "NAME", status = ["failed"] })`) {
				t.Errorf("the error does not say why: %s", d.Detail)
			}
			return
		}
	}
	t.Errorf("no Unsupported node error: %v", diags)
}

// Split Out splits each item on its own, so a Loop Over Items whose loop
// holds one is one pass (the loop and node of
// enescingoz+awesome-n8n-templates/Other_Integrations_and_Use_Cases__Optimize_Update_Printify_Title_and_Description_Workflow.json).
func TestLoopWithSplitOutOnePass(t *testing.T) {
	src := `{"name": "w", "nodes": [
	  {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
	  {"name": "Loop Over Items", "type": "n8n-nodes-base.splitInBatches", "typeVersion": 3, "parameters": {"options": {}}},
	  {"name": "Split - id, title, desc", "type": "n8n-nodes-base.splitOut", "typeVersion": 1, "parameters": {"include": "selectedOtherFields", "options": {}, "fieldToSplitOut": "id", "fieldsToInclude": "title, description"}}],
	  "connections": {"Start": {"main": [[{"node": "Loop Over Items"}]]}, "Loop Over Items": {"main": [[], [{"node": "Split - id, title, desc"}]]}, "Split - id, title, desc": {"main": [[{"node": "Loop Over Items"}]]}}}`
	res, diags := importWhole(t, src)
	if res == nil {
		t.Fatal(diags)
	}
	for _, d := range diags {
		if d.Summary == "Unsupported loop" {
			t.Errorf("got %v", d)
		}
	}
}
