package n8n

import (
	"strings"
	"testing"
)

// From workflows__ai-agents__0685_Limit_Webhook_Send_Webhook.json
// (oxbshw+ultimate-n8n-ai-workflows): "Format Slack Message" reads
// $('Parse Webhook').item through "Concatenate Incident Details", a
// Summarize without fields to split by: its one item pairs with all the
// items it summarizes (n8n's Summarize execute), which n8n follows to
// the one item they lead to.
func TestPairedThroughSummarize(t *testing.T) {
	sum := `"name": "Concatenate Incident Details", "type": "n8n-nodes-base.summarize", "typeVersion": 1, "parameters": {"options": {}, "fieldsToSummarize": {"values": [{"field": "incident_details", "aggregation": "concatenate"}]}}`
	out := `"name": "Format Slack Message", "type": "n8n-nodes-base.set", "typeVersion": 3.3, "parameters": {"options": {}, "assignments": {"assignments": [{"id": "1", "name": "slack_output", "type": "string", "value": "={{ $('Data').item.json.q }}"}]}}`
	flow := mustValidate(t, workflow("w", setData, getList, sum, out))
	want := `(step.data[*].value)[[for d in [distinct([for all1 in range(length(local.list)) : flatten([for k, r in step.list :`
	if !strings.Contains(flow, want) {
		t.Errorf("no %s in:\n%s", want, flow)
	}
	// One item of all the groups (Single Item) pairs with all items too.
	single := strings.Replace(sum, `"options": {}`, `"options": {"outputFormat": "singleItem"}, "fieldsToSplitBy": "kind"`, 1)
	flow = mustValidate(t, workflow("w", setData, getList, single, out))
	if !strings.Contains(flow, want) {
		t.Errorf("Single Item: no %s in:\n%s", want, flow)
	}
	// An item for each group pairs with its group's items: not followed.
	groups := strings.Replace(sum, `"options": {}`, `"options": {}, "fieldsToSplitBy": "kind"`, 1)
	_, diags := importWhole(t, workflow("w", setData, getList, groups, out))
	if !strings.Contains(diags.Error(), `node "Concatenate Incident Details" (summarize) on the way makes its items in a way the flow does not pair`) {
		t.Errorf("groups: %v, want Paired item not followed at the Summarize", diags)
	}
}

// From OpenAI_and_LLMs__AI__Summarize_podcast_episode_and_enhance_using_Wikipedia.json
// (enescingoz+awesome-n8n-templates): "Research & Explain Topics" reads
// $('Summarize Transcript').item through "Topics", an Item Lists v3 that
// splits out each element of a field, paired with its item ({item: i}).
func TestPairedThroughItemListsSplitOut(t *testing.T) {
	topics := `"name": "Topics", "type": "n8n-nodes-base.itemLists", "typeVersion": 3, "parameters": {"options": {}, "fieldToSplitOut": "topics"}`
	out := `"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $('Data').item.json.q }}", "type": "string"}]}}`
	flow := mustValidate(t, workflow("w", setData, topics, out))
	for _, want := range []string{
		`for_each = step.data[*].value`,
		`items    = [each.value]`,
		`__version       = 3`,
		`(step.data[*].value)[flatten([for k, r in step.topics : [for e in r.items : k]])[each.key]]`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
}
