package n8n

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// n8n's paired items through the nodes whose pairs n8n's node code sets:
// Split Out (each element with its item) and the Code node run once for
// all items (the pairs n8n gives its items after it ran).

// From AI_Research_RAG_and_Data_Analysis__Build_Your_Own_Image_Search_Using_AI_Object_Detection_CDN_and_ElasticSearch.json
// (enescingoz+awesome-n8n-templates): "Fetch Source Image Again" reads
// $('Set Variables').item through "Split Out Results Only".
func TestPairedThroughSplitOut(t *testing.T) {
	flow := mustValidate(t, workflow("w",
		`"name": "Set Variables", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "source_image", "value": "http://127.0.0.1:1/a.png", "type": "string"}, {"id": "2", "name": "result", "value": "={{ [1, 2] }}", "type": "array"}]}}`,
		`"name": "Split Out Results Only", "type": "n8n-nodes-base.splitOut", "typeVersion": 1, "parameters": {"options": {}, "fieldToSplitOut": "result"}`,
		`"name": "Fetch Source Image Again", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "={{ $('Set Variables').item.json.source_image }}", "options": {}}`))
	// Split Out runs for each item; each element pairs with its item.
	for _, want := range []string{
		`for_each = step.set_variables[*].value`,
		`items    = [each.value]`,
		`url      = (step.set_variables[*].value)[flatten([for k, r in step.split_out_results_only : [for e in r.items : k]])[each.key]].source_image`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
}

// From automation__1518_Code_Manual_Process_Webhook.json
// (oxbshw+ultimate-n8n-ai-workflows): "PNG to WEBP" reads
// $('Set API KEY').item through "Get extension", a Code node run once for
// all items that returns its input items.
func TestPairedThroughCodeAllItems(t *testing.T) {
	flow := mustValidate(t, workflow("w",
		`"name": "Set API KEY", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "apikey", "value": "k", "type": "string"}, {"id": "2", "name": "FROM", "value": "http://127.0.0.1:1/x.png", "type": "string"}]}}`,
		`"name": "Get extension", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "for (const item of $input.all()) {\n  const url = item.json.FROM;\n  item.json.EXTENSION = url.split('.').pop();\n}\n\nreturn $input.all();\n"}`,
		`"name": "PNG to WEBP", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "=http://127.0.0.1:1/webp", "method": "POST", "options": {}, "sendHeaders": true, "headerParameters": {"parameters": [{"name": "apy-token", "value": "={{ $('Set API KEY').item.json.apikey }}"}]}}`))
	for _, want := range []string{
		`(step.set_api_key[*].value)[step.get_extension.pairs[each.key]].apikey`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
}

// A node that is not converted loses the pairs: the error names it.
func TestPairedLostAtNodeNotConverted(t *testing.T) {
	_, diags := importWhole(t, workflow("w", setData,
		`"name": "Ask", "type": "n8n-nodes-base.slack", "typeVersion": 2, "parameters": {}`,
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $('Data').item.json.q }}", "type": "string"}]}}`))
	found := false
	for _, d := range diags {
		if d.Summary == "Paired item not followed" {
			found = true
			if !strings.Contains(d.Detail, `node "Ask" (slack) on the way is not converted`) {
				t.Errorf("the error does not name the node not converted: %s", d.Detail)
			}
		}
	}
	if !found {
		t.Errorf("no Paired item not followed error: %v", diags)
	}
}

// From OpenAI_and_LLMs__Claude_AI_LINE_Chatbot.json
// (enescingoz+awesome-n8n-templates): $env in an HTTP Request's headers is
// the environment variable, a secret read from it; elsewhere (where the
// value could reach an output) it stays an error.
func TestEnvInHTTPRequest(t *testing.T) {
	flow := mustValidate(t, workflow("w",
		`"name": "Claude", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/v1/messages", "method": "POST", "sendHeaders": true, "headerParameters": {"parameters": [{"name": "x-api-key", "value": "={{ $env.ANTHROPIC_API_KEY }}"}, {"name": "anthropic-version", "value": "2023-06-01"}]}, "options": {}}`,
		`"name": "Reply", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/reply", "method": "POST", "sendHeaders": true, "headerParameters": {"parameters": [{"name": "Authorization", "value": "=Bearer {{ $env[\"ANTHROPIC_API_KEY\"] }}"}]}, "options": {}}`))
	for _, want := range []string{
		"secret \"anthropic_api_key\" {\n  env         = \"ANTHROPIC_API_KEY\"",
		`x-api-key         = secret.anthropic_api_key`,
		`authorization = "Bearer ${secret.anthropic_api_key}"`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
	if n := strings.Count(flow, "secret \""); n != 1 {
		t.Errorf("%d secrets, want one for the one variable:\n%s", n, flow)
	}

	_, diags := importWhole(t, workflow("w",
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $env.HOME }}", "type": "string"}]}}`))
	if len(diags) == 0 || diags[0].Summary != "Unsupported expression" || diags[0].Severity != hcl.DiagError {
		t.Errorf("$env in Edit Fields: %v, want Unsupported expression", diags)
	}
}

// From AI_Research_RAG_and_Data_Analysis__Learn_Anything_from_HN_-_Get_Top_Resource_Recommendations_from_Hacker_News.json
// (enescingoz+awesome-n8n-templates): "Basic LLM Chain" reads
// $('GetTopicFromToLearn').item through "CombineIntoSingleText", an
// Aggregate whose one item pairs with all the items it aggregates: n8n
// follows each, and takes the one item they all lead to.
func TestPairedThroughAggregate(t *testing.T) {
	agg := `"name": "CombineIntoSingleText", "type": "n8n-nodes-base.aggregate", "typeVersion": 1, "parameters": {"options": {}, "fieldsToAggregate": {"fieldToAggregate": [{"fieldToAggregate": "text"}]}}`
	out := `"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $('Data').item.json.q }}", "type": "string"}]}}`
	flow := mustValidate(t, workflow("w", setData, getList, agg, out))
	want := `(step.data[*].value)[[for d in [distinct([for all1 in range(length(local.list)) : flatten([for k, r in step.list :`
	if !strings.Contains(flow, want) {
		t.Errorf("no %s in:\n%s", want, flow)
	}
	// Two Aggregates on the way: each for of its own.
	flow = mustValidate(t, workflow("w", setData, getList, agg,
		strings.Replace(agg, "CombineIntoSingleText", "Again", 1), out))
	if !strings.Contains(flow, "for all1 in") || !strings.Contains(flow, "for all2 in") {
		t.Errorf("the Aggregates' fors are not named apart:\n%s", flow)
	}
}

// From workflows__ai-agents__0594_HTTP_Telegram_Create_Webhook.json
// (oxbshw+ultimate-n8n-ai-workflows): "OPENAI - Send message" reads
// $('Get New Message').item through "Merge", which appends the items of
// an IF's true output ("If User exists") and of the node on its false
// output ("Create User"): each item pairs with its item of the input it
// comes from.
func TestPairedThroughMerge(t *testing.T) {
	src := `{"name": "w", "nodes": [
	{"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
	{"name": "Get New Message", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "text", "value": "hi", "type": "string"}]}}},
	{"name": "If User exists", "type": "n8n-nodes-base.if", "typeVersion": 2.2, "parameters": {"conditions": {"options": {"caseSensitive": true, "leftValue": "", "typeValidation": "strict", "version": 2}, "conditions": [{"id": "c", "leftValue": "={{ $json.text }}", "rightValue": "hi", "operator": {"type": "string", "operation": "equals"}}], "combinator": "and"}, "options": {}}},
	{"name": "Create User", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "new", "value": "yes", "type": "string"}]}}},
	{"name": "Merge", "type": "n8n-nodes-base.merge", "typeVersion": 3, "parameters": {}},
	{"name": "OPENAI - Send message", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "text", "value": "={{ $('Get New Message').item.json.text }}", "type": "string"}]}}}
	], "connections": {
	"Start": {"main": [[{"node": "Get New Message", "type": "main", "index": 0}]]},
	"Get New Message": {"main": [[{"node": "If User exists", "type": "main", "index": 0}]]},
	"If User exists": {"main": [[{"node": "Merge", "type": "main", "index": 0}], [{"node": "Create User", "type": "main", "index": 0}]]},
	"Create User": {"main": [[{"node": "Merge", "type": "main", "index": 1}]]},
	"Merge": {"main": [[{"node": "OPENAI - Send message", "type": "main", "index": 0}]]}
	}}`
	flow := mustValidate(t, src)
	for _, want := range []string{
		// An item of the first input, then one of the second, else none.
		`(each.key) >= 0 && (each.key) < 0 + length(step.if_user_exists.value.when_true) ?`,
		`[(each.key) - (0 + length(step.if_user_exists.value.when_true))]`,
		`[for d in [each.key] : d if d < 0][0]`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("no %s in:\n%s", want, flow)
		}
	}
}
