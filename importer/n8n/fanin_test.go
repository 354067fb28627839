package n8n

import (
	"strconv"
	"strings"
	"testing"
)

// Several connections into one input: n8n runs the node once for each
// (n8n-core's WorkflowExecute), which one step on the items of every
// connection, in the order of n8n's runs, does where the node and the
// nodes after it take items one by one.

// fanInWorkflow is workflows__ai-agents__0127_Manual_Noop_Monitor_Triggered.json
// (oxbshw+ultimate-n8n-ai-workflows), trimmed: an If's branches, each an
// Edit Fields node, meet again at "NoOp". last is the node after NoOp
// ("" for none), yOriginal the place of "Set Close Date To Original" in
// the editor, settings the workflow's settings.
func fanInWorkflow(last string, yOriginal int, settings string) string {
	nodes := `{"name": "On clicking 'execute'", "type": "n8n-nodes-base.manualTrigger", "position": [250, 300], "parameters": {}, "typeVersion": 1},
    {"name": "Check for Close Date", "type": "n8n-nodes-base.if", "position": [660, 300], "parameters": {"conditions": {"string": [{"value1": "={{$json[\"Close Date\"]}}", "value2": "/\\d\\d\\d\\d-\\d\\d-\\d\\d/i", "operation": "regex"}]}, "combineOperation": "any"}, "typeVersion": 1},
    {"name": "Set Close Date 3 Weeks Later", "type": "n8n-nodes-base.set", "position": [910, 370], "parameters": {"values": {"string": [{"name": "Close Date", "value": "later"}]}, "options": {}, "keepOnlySet": true}, "typeVersion": 1},
    {"name": "NoOp", "type": "n8n-nodes-base.noOp", "position": [1140, 280], "parameters": {}, "typeVersion": 1},
    {"name": "Set Close Date", "type": "n8n-nodes-base.set", "position": [450, 300], "parameters": {"values": {"string": [{"name": "Close Date", "value": "2021-11-29T00:00:00.000Z"}]}, "options": {}}, "typeVersion": 1},
    {"name": "Set Close Date To Original", "type": "n8n-nodes-base.set", "position": [910, Y], "parameters": {"values": {"string": [{"name": "Close Date", "value": "={{$json[\"Close Date\"]}}"}]}, "options": {}, "keepOnlySet": true}, "typeVersion": 1}`
	nodes = strings.Replace(nodes, "Y", strconv.Itoa(yOriginal), 1)
	after := ""
	if last != "" {
		nodes += ",\n    {" + last + `, "position": [1400, 280]}`
		name := strings.SplitN(strings.SplitN(last, `"name": "`, 2)[1], `"`, 2)[0]
		after = `, "NoOp": {"main": [[{"node": "` + name + `", "type": "main", "index": 0}]]}`
	}
	return `{"name": "w", "nodes": [` + nodes + `], "connections": {"Set Close Date": {"main": [[{"node": "Check for Close Date", "type": "main", "index": 0}]]}, "Check for Close Date": {"main": [[{"node": "Set Close Date To Original", "type": "main", "index": 0}], [{"node": "Set Close Date 3 Weeks Later", "type": "main", "index": 0}]]}, "On clicking 'execute'": {"main": [[{"node": "Set Close Date", "type": "main", "index": 0}]]}, "Set Close Date To Original": {"main": [[{"node": "NoOp", "type": "main", "index": 0}]]}, "Set Close Date 3 Weeks Later": {"main": [[{"node": "NoOp", "type": "main", "index": 0}]]}` + after + `}` + settings + `}`
}

func TestFanInBranchesMeet(t *testing.T) {
	for _, c := range []struct {
		name, settings string
		y              int
		want           string
	}{
		// The legacy order: each node's next nodes go to the back of the
		// stack, in the order of its outputs (true, then false).
		{"legacy", "", 210, `value = concat(step.set_close_date_to_original[*].value, step.set_close_date_3_weeks_later[*].value)`},
		{"legacy, placed lower", "", 500, `value = concat(step.set_close_date_to_original[*].value, step.set_close_date_3_weeks_later[*].value)`},
		// v1: to the front, the highest in the editor first.
		{"v1", `, "settings": {"executionOrder": "v1"}`, 210, `value = concat(step.set_close_date_to_original[*].value, step.set_close_date_3_weeks_later[*].value)`},
		{"v1, placed lower", `, "settings": {"executionOrder": "v1"}`, 500, `value = concat(step.set_close_date_3_weeks_later[*].value, step.set_close_date_to_original[*].value)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			flow := mustValidate(t, fanInWorkflow("", c.y, c.settings))
			if !strings.Contains(flow, c.want) {
				t.Errorf("no %s in:\n%s", c.want, flow)
			}
		})
	}
}

// The node after the meeting runs once for each of NoOp's runs; an item
// it makes pairs through the branch it came down.
func TestFanInPairedItemsAfter(t *testing.T) {
	flow := mustValidate(t, fanInWorkflow(`"name": "Mark", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "was", "value": "={{ $('Set Close Date').item.json['Close Date'] }}", "type": "string"}]}}`, 210, ""))
	for _, want := range []string{
		`for_each = step.no_op.value`,
		// The first items came down the true branch, the others the false.
		`(each.key) < 0 + length(step.set_close_date_to_original[*].value) ? [for i, item in step.set_close_date[*].value : i if step.check_for_close_date.items[i]][(each.key) - (0)]`,
		`[for i, item in step.set_close_date[*].value : i if !step.check_for_close_date.items[i]][(each.key) - (0 + length(step.set_close_date_to_original[*].value))]`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
}

// What gives other items when run once for each connection is refused,
// with why.
func TestFanInRefused(t *testing.T) {
	for _, c := range []struct{ last, why string }{
		{`"name": "All", "type": "n8n-nodes-base.aggregate", "typeVersion": 1, "parameters": {"aggregate": "aggregateAllItemData"}`, `"All" (n8n-nodes-base.aggregate) is not one of those`},
		{`"name": "Index", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "i", "value": "={{ $itemIndex }}", "type": "number"}]}}`, `"Index" reads $itemIndex`},
		{`"name": "First", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "i", "value": "={{ $input.first().json.x }}", "type": "string"}]}}`, `"First" reads .first(`},
		{`"name": "Once", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "executeOnce": true, "parameters": {}`, `"Once" runs once (Execute Once)`},
		{`"name": "All code", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return items"}`, `"All code" (n8n-nodes-base.code) is not one of those`},
	} {
		_, diags := importWhole(t, fanInWorkflow(c.last, 210, ""))
		found := false
		for _, d := range diags {
			if d.Summary == "Several connections into one input" && strings.Contains(d.Detail, c.why) {
				found = true
			}
		}
		if !found {
			t.Errorf("no refusal with %s: %v", c.why, diags)
		}
	}
}

// An If whose two outputs both go to one node: n8n v1 puts both runs at
// the front of its stack in the order of the outputs, so the false one
// runs first.
func TestFanInOneNodeBothOutputs(t *testing.T) {
	src := `{"name": "w", "settings": {"executionOrder": "v1"}, "nodes": [
    {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "position": [0, 0], "parameters": {}, "typeVersion": 1},
    {"name": "Check", "type": "n8n-nodes-base.if", "position": [200, 0], "parameters": {"conditions": {"boolean": [{"value1": true}]}}, "typeVersion": 1},
    {"name": "Both", "type": "n8n-nodes-base.noOp", "position": [400, 0], "parameters": {}, "typeVersion": 1}],
  "connections": {"Start": {"main": [[{"node": "Check", "type": "main", "index": 0}]]},
    "Check": {"main": [[{"node": "Both", "type": "main", "index": 0}], [{"node": "Both", "type": "main", "index": 0}]]}}}`
	flow := mustValidate(t, src)
	want := `value = concat([for i, item in [{}] : item if !step.check.items[i]], [for i, item in [{}] : item if step.check.items[i]])`
	if !strings.Contains(flow, want) {
		t.Errorf("no %s in:\n%s", want, flow)
	}
}

// jsSort sorts as V8 does with n8n's comparison of positions, which says
// nothing where the second node is further left.
func TestJSSort(t *testing.T) {
	cmp := func(a, b [2]int) int {
		switch {
		case a[1] < b[1]:
			return 1
		case a[1] > b[1]:
			return -1
		case a[0] > b[0]:
			return -1
		}
		return 0
	}
	for _, c := range []struct{ in, want [][2]int }{
		{[][2]int{{0, 0}, {10, 0}}, [][2]int{{10, 0}, {0, 0}}},
		{[][2]int{{10, 0}, {0, 0}}, [][2]int{{10, 0}, {0, 0}}},
		{[][2]int{{0, 0}, {0, 5}, {0, 9}}, [][2]int{{0, 9}, {0, 5}, {0, 0}}},
		{[][2]int{{0, 9}, {5, 0}, {0, 5}}, [][2]int{{0, 9}, {0, 5}, {5, 0}}},
	} {
		got := append([][2]int(nil), c.in...)
		jsSort(got, cmp)
		if !equalPairs(got, c.want) {
			t.Errorf("jsSort(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func equalPairs(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
