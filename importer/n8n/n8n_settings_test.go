package n8n_test

import (
	"strings"
	"testing"
)

// Always Output Data on any node: the first output gets one empty item
// when it has none and an item came to the node. "Get monthly playlist"
// of Zie619+n8n-workflows/workflows__Code__0034_Code_Filter_Create_Scheduled.json
// (its right value a literal here). That it is n8n's answer the case
// importer/testdata/n8n/http_settings.txtar checks against n8n itself.
func TestAlwaysOutputData(t *testing.T) {
	data := `"name": "Playlists", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "name", "value": "March", "type": "string"}]}}`
	filter := `"name": "Get monthly playlist", "type": "n8n-nodes-base.filter", "typeVersion": 2, "alwaysOutputData": true, "parameters": {"options": {}, "conditions": {"options": {"leftValue": "", "caseSensitive": true, "typeValidation": "strict"}, "combinator": "and", "conditions": [{"id": "56173299-d774-4cb4-b26f-4dca294dda1d", "operator": {"name": "filter.operator.equals", "type": "string", "operation": "equals"}, "leftValue": "={{ $json.name }}", "rightValue": "April"}]}}`
	flow, diags := importLines(t, chain(data, filter))
	wantDiags(t, diags)
	wantIn(t, flow, `value = concat(step.get_monthly_playlist.value, [for e in [{}] : e if length(step.get_monthly_playlist.value) == 0 && length(step.playlists[*].value) > 0])`)
}

// On Error. An HTTP Request's Continue (using error output) whose error
// output goes nowhere is on_error = "continue", the failed requests left
// out ("Create Notion Page" of Zie619+n8n-workflows/workflows__Code__1921_Code_Filter_Automation_Webhook.json,
// run against n8n in importer/testdata/n8n/http_settings.txtar). The
// others give items holding n8n's error object: refused at the setting
// ("HTTP Request" of Zie619+n8n-workflows/workflows__Http__1267_HTTP_Markdown_Automation_Webhook.json).
// A No Operation cannot fail.
func TestOnError(t *testing.T) {
	create := `"name": "Create Notion Page", "type": "n8n-nodes-base.httpRequest", "onError": "continueErrorOutput", "typeVersion": 4.2, "parameters": {"url": "https://api.notion.com/v1/pages", "method": "POST", "options": {}, "jsonBody": "={{ $json.toJsonString() }}", "sendBody": true, "specifyBody": "json", "sendHeaders": true, "headerParameters": {"parameters": [{"name": "Notion-Version", "value": "2022-06-28"}]}}`
	flow, diags := importLines(t, chain(create))
	wantDiags(t, diags)
	wantIn(t, flow, `on_error = "continue"`, `if r != null])`)

	// The error output leads to a node.
	src := strings.Replace(chain(create, `"name": "Log", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}`),
		`"Create Notion Page": {"main": [[`, `"Create Notion Page": {"main": [[], [`, 1)
	_, diags = importLines(t, src)
	wantDiags(t, diags, "error /nodes/1/onError Unsupported setting")

	regular := `"name": "HTTP Request", "type": "n8n-nodes-base.httpRequest", "onError": "continueRegularOutput", "typeVersion": 4.1, "parameters": {"url": "https://example.com", "options": {}}, "alwaysOutputData": false`
	_, diags = importLines(t, chain(regular))
	wantDiags(t, diags, "error /nodes/1/onError Unsupported setting")
	legacy := `"name": "HTTP Request", "type": "n8n-nodes-base.httpRequest", "continueOnFail": true, "typeVersion": 4.1, "parameters": {"url": "https://example.com", "options": {}}`
	_, diags = importLines(t, chain(legacy))
	wantDiags(t, diags, "error /nodes/1/continueOnFail Unsupported setting")

	flow, diags = importLines(t, chain(`"name": "Done", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "onError": "continueErrorOutput", "parameters": {}`))
	wantDiags(t, diags)
	wantIn(t, flow, `step "done" { use = "value"`)
}
