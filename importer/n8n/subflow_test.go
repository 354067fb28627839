package n8n

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// flowFile is the text of the written file name, its spaces squeezed.
func flowFile(t *testing.T, res *importer.Result, name string) string {
	t.Helper()
	for _, f := range res.Files {
		if f.Name == name {
			return strings.Join(strings.Fields(string(f.Bytes)), " ")
		}
	}
	var names []string
	for _, f := range res.Files {
		names = append(names, f.Name)
	}
	t.Fatalf("no %s in %v", name, names)
	return ""
}

// A workflow that runs itself by $workflow.id, once for each item and
// without waiting (Zie619+n8n-workflows/workflows__Code__1429_Code_Schedule_Send_Scheduled.json:
// Execute Workflow v1.1, an Execute Workflow Trigger v1): the trigger's
// part is a flow of its own beside the workflow's, which the step runs
// once for each item; the items after it are the node's own.
func TestExecuteWorkflowItself(t *testing.T) {
	src := `{"name": "Fan out", "nodes": [
	  {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
	  {` + setData + `},
	  {"parameters": {"mode": "each", "options": {"waitForSubWorkflow": false}, "workflowId": {"__rl": true, "mode": "id", "value": "={{ $workflow.id }}"}}, "name": "Execute Workflow", "type": "n8n-nodes-base.executeWorkflow", "typeVersion": 1.1},
	  {"parameters": {}, "name": "Execute Workflow Trigger", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1},
	  {"parameters": {"assignments": {"assignments": [{"id": "1", "name": "seen", "value": "={{ $json.q }}", "type": "string"}]}, "options": {}}, "name": "Seen", "type": "n8n-nodes-base.set", "typeVersion": 3.4}],
	  "connections": {"Start": {"main": [[{"node": "Data"}]]}, "Data": {"main": [[{"node": "Execute Workflow"}]]},
	    "Execute Workflow Trigger": {"main": [[{"node": "Seen"}]]}}}`
	res, diags := importWhole(t, src)
	if res == nil {
		t.Fatal(diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
	main := flowFile(t, res, "fan_out.flow.hcl")
	for _, want := range []string{
		`step "execute_workflow" { use = "flow.fan_out_subworkflow" for_each = step.data[*].value items = [each.value] }`,
		`output "execute_workflow" { value = step.data[*].value`,
	} {
		if !strings.Contains(main, want) {
			t.Errorf("want %s in:\n%s", want, main)
		}
	}
	if strings.Contains(main, "seen") || strings.Contains(main, `input "items"`) {
		t.Errorf("the main flow holds the sub-workflow's part:\n%s", main)
	}
	sub := flowFile(t, res, "fan_out_subworkflow.flow.hcl")
	for _, want := range []string{`input "items" { type = list(any) default = [{}]`, `output "items" { value = step.seen[*].value`} {
		if !strings.Contains(sub, want) {
			t.Errorf("want %s in:\n%s", want, sub)
		}
	}
	warned := false
	for _, d := range diags {
		warned = warned || d.Summary == "Sub-workflow waited for"
		if d.Summary == "Node never runs" {
			t.Errorf("every node runs in one of the two flows: %s", d.Detail)
		}
	}
	if !warned {
		t.Errorf("no warning that the run waits: %v", diags)
	}
}

// Run Once with All Items, waiting (the default): the items are the
// called flow's output items; Run Once for Each Item: each call's
// items in turn, paired with the item it ran for.
func TestExecuteWorkflowItems(t *testing.T) {
	call := func(mode string) string {
		return `"parameters": {"mode": "` + mode + `", "options": {}, "workflowId": "={{ $workflow.id }}"}, "name": "Call", "type": "n8n-nodes-base.executeWorkflow", "typeVersion": 1`
	}
	wf := func(mode string) string {
		return `{"name": "w", "nodes": [{"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}}, {` + setData + `}, {` + call(mode) + `},
		  {"parameters": {}, "name": "Called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1}],
		  "connections": {"Start": {"main": [[{"node": "Data"}]]}, "Data": {"main": [[{"node": "Call"}]]}}}`
	}
	flow := mustValidate(t, wf("once"))
	flat := strings.Join(strings.Fields(flow), " ")
	for _, want := range []string{`use = "flow.w_subworkflow" items = step.data[*].value }`, `value = step.call.items`} {
		if !strings.Contains(flat, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
	flow = mustValidate(t, wf("each"))
	if flat := strings.Join(strings.Fields(flow), " "); !strings.Contains(flat, `value = flatten(step.call[*].items)`) {
		t.Errorf("want the calls' items in:\n%s", flow)
	}
}

// The errors: a workflow id no file of the batch holds (with the name
// n8n cached), an id computed by an expression, a node of the trigger's
// part that runs that part again, a called workflow that ends in two
// nodes, Workflow Inputs mapped on the node (v1.2,
// Zie619+n8n-workflows/workflows__Stopanderror__0719_Stopanderror_Wait_Automation_Webhook.json).
func TestExecuteWorkflowErrors(t *testing.T) {
	node := func(params string) string {
		return `"parameters": ` + params + `, "name": "Call", "type": "n8n-nodes-base.executeWorkflow", "typeVersion": 1.2`
	}
	for _, c := range []struct{ src, summary, detail string }{
		{workflow("w", node(`{"workflowId": {"__rl": true, "mode": "list", "value": "6mL5jWOJfuzkpjzx", "cachedResultName": "Gong Call Preprocessor Demo"}}`)),
			"Sub-workflow not imported", `the node runs the n8n workflow with id "6mL5jWOJfuzkpjzx" ("Gong Call Preprocessor Demo"), which none of the files imported holds`},
		{workflow("w", node(`{"workflowId": {"__rl": true, "mode": "id", "value": "={{ $json.id }}"}}`)),
			"Unsupported expression", "the workflow to run is converted when its id is written out"},
		{workflow("w", node(`{"workflowId": {"__rl": true, "mode": "id", "value": "={{ $workflow.id }}"}}`)),
			"Sub-workflow cannot be run", "it has no Execute Workflow Trigger"},
		{workflow("w", `"name": "Called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1, "parameters": {}`, node(`{"workflowId": {"__rl": true, "mode": "id", "value": "={{ $workflow.id }}"}}`)),
			"Sub-workflow runs itself", "a flow cannot run itself"},
		{workflow("w", node(`{"workflowId": {"__rl": true, "mode": "id", "value": "={{ $workflow.id }}"}, "workflowInputs": {"value": {"jobType": "deepresearch_report"}, "schema": []}}`)),
			"Unsupported parameter", "Workflow Inputs"},
		{workflow("w", node(`{"source": "url", "workflowUrl": "https://example.com/w.json"}`)),
			"Unsupported sub-workflow", "a URL, read when the node runs"},
	} {
		_, diags := importWhole(t, c.src)
		found := false
		for _, d := range diags {
			found = found || d.Summary == c.summary && strings.Contains(d.Detail, c.detail)
		}
		if !found {
			t.Errorf("want %s: …%s…, got %v", c.summary, c.detail, diags)
		}
	}
}

// A called workflow that ends in two nodes (the branches of an IF, as in
// enescingoz+awesome-n8n-templates/HR_and_Recruitment__BambooHR_AI-Powered_Company_Policies_and_Benefits_Chatbot.json):
// its items are those of the one end node that has items, and the flow
// fails when both have (n8n returns the items of the one that ran last).
func TestExecuteWorkflowSeveralEnds(t *testing.T) {
	node := `"parameters": {"workflowId": {"__rl": true, "mode": "list", "value": "C1"}}, "name": "Call", "type": "n8n-nodes-base.executeWorkflow", "typeVersion": 1.2`
	called := `{"name": "Called", "id": "C1", "nodes": [
	  {"name": "In", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1, "parameters": {}},
	  {"name": "A", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}},
	  {"name": "B", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}}],
	  "connections": {"In": {"main": [[{"node": "A"}, {"node": "B"}]]}}}`
	res, diags := importer.Import([]importer.File{{Name: "w.json", Bytes: []byte(workflow("w", node))},
		{Name: "called.json", Bytes: []byte(called)}}, importer.Options{})
	if res == nil {
		t.Fatal(diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
	flow := flowFile(t, res, "called.flow.hcl")
	for _, want := range []string{
		`step "last_node" { use = "n8n_code" when = length([for l in [step.a.value, step.b.value] : l if length(l) > 0]) > 1 mode = "stopAndError"`,
		`message = "Several of the nodes the workflow ends in (\"A\", \"B\") gave items: n8n returns the items of the one that ran last, which the flow cannot tell."`,
		`output "items" { value = concat(step.a.value, step.b.value)`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
}
