package n8n

import (
	"strings"
	"testing"
)

// TestLegacyRefusals: what the n8n_code block cannot do as n8n does is an
// error at the node's JSON path: a Function Item reading the workflow's
// static data (oxbshw+ultimate-n8n-ai-workflows/New_Workflow__837-track-
// changes-of-product-prices__workflow.json), and Remove Duplicates of the
// items seen in earlier runs (Zie619+n8n-workflows/workflows__Schedule__
// 0907_Schedule_Removeduplicates_Create_Scheduled.json), and Compare
// Datasets' Mix taking fields from the other version, which n8n sets on
// its input items in place.
func TestLegacyRefusals(t *testing.T) {
	for _, c := range []struct{ node, want string }{
		{`"name": "Set iteration", "type": "n8n-nodes-base.functionItem", "typeVersion": 1, "parameters": {"functionCode": "const globalData = getWorkflowStaticData('global');\n\nglobalData.iteration = 0;\n\nreturn item;"}`,
			"Unsupported code; " + `Node "Set iteration" (n8n-nodes-base.functionItem), at /nodes/1/parameters/functionCode in w.json: the code uses getWorkflowStaticData`},
		{`"name": "Remove Duplicates", "type": "n8n-nodes-base.removeDuplicates", "typeVersion": 2, "parameters": {"options": {}, "operation": "removeItemsSeenInPreviousExecutions", "dedupeValue": "={{ $json.key }}"}`,
			"Unsupported operation; " + `Node "Remove Duplicates" (n8n-nodes-base.removeDuplicates), at /nodes/1/parameters/operation in w.json: Remove Duplicates' "removeItemsSeenInPreviousExecutions"`},
		{`"name": "Compare", "type": "n8n-nodes-base.compareDatasets", "typeVersion": 2.3, "parameters": {"options": {}, "resolve": "mix", "exceptWhenMix": "score", "mergeByFields": {"values": [{"field1": "id", "field2": "id"}]}}`,
			"Unsupported option; " + `Node "Compare" (n8n-nodes-base.compareDatasets), at /nodes/1/parameters/exceptWhenMix in w.json: a Mix that takes fields from the other version`},
	} {
		res, diags := importWhole(t, workflow("w", c.node))
		if res != nil && len(res.Files) > 0 {
			t.Errorf("import wrote %v", res.Files)
		}
		if !strings.Contains(diags.Error(), c.want) {
			t.Errorf("diagnostics %v\nwant %s", diags, c.want)
		}
	}
}

// TestFileNodesRefused: the nodes of n8n's binary data and of the n8n
// host's files are refused with why, at the node's type: Extract from File
// of items whose files the flow does not carry
// as in enescingoz+awesome-n8n-templates/HR_and_Recruitment__CV_Screening_
// with_OpenAI.json, Read/Write Files as in oxbshw+ultimate-n8n-ai-workflows/
// automation__1929_Odoo_Schedule_Automate_Scheduled.json.
func TestFileNodesRefused(t *testing.T) {
	for _, c := range []struct{ node, want string }{
		{`"name": "Extract from File", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {}, "operation": "pdf"}`,
			"Binary data; " + `Node "Extract from File" (n8n-nodes-base.extractFromFile), at /nodes/1/type in w.json: the node reads the file (binary data) of the items of "Start" (n8n-nodes-base.manualTrigger), which the flow does not carry`},
		{`"name": "Write cache", "type": "n8n-nodes-base.readWriteFile", "typeVersion": 1, "parameters": {"options": {"append": false}, "fileName": "cache.txt", "operation": "write"}`,
			"Files on the n8n host; " + `Node "Write cache" (n8n-nodes-base.readWriteFile), at /nodes/1/type in w.json: Read/Write Files from Disk reads or writes files on the disk of the n8n host`},
	} {
		_, diags := importWhole(t, workflow("w", c.node))
		if !strings.Contains(diags.Error(), c.want) {
			t.Errorf("diagnostics %v\nwant %s", diags, c.want)
		}
	}
}
