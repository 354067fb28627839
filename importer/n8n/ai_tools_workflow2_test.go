package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// The Workflow tool v2: the model's arguments are the $fromAI() calls of
// its Workflow Inputs, and the workflow runs on n8n's one item, {query:
// the arguments} with the mapped inputs over it; v2 gives the model the
// first item returned, v2.1 all of them. A mapped value whose type is not
// the schema's (n8n checks it, Attempt to Convert Types off) is refused.
// From oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0769_Telegram_Webhook_Send_Webhook.json
// ("getChart", here calling the workflow's own trigger part).
func TestWorkflowToolV2(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	tool := `{"parameters": {"name": "getChart", "workflowId": {"__rl": true, "mode": "id", "value": "={{ $workflow.id }}"}, "description": "Call this tool to get an analysis of a requested stock.", "workflowInputs": {"value": {"ticker": "={{ $fromAI(\"ticker\") }}", "chart_style": "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('chart_style', ` + "`the style`" + `, 'string', 'candle') }}", "days": 30, "source": "tradingview"}, "schema": [{"id": "ticker", "type": "string", "display": true, "removed": false, "required": false, "displayName": "ticker", "defaultMatch": false, "canBeUsedToMatch": true}, {"id": "chart_style", "type": "string", "display": true, "removed": false, "required": false, "displayName": "chart_style", "defaultMatch": false, "canBeUsedToMatch": true}, {"id": "days", "type": "number", "display": true, "removed": false, "required": false, "displayName": "days", "defaultMatch": false, "canBeUsedToMatch": true}, {"id": "source", "type": "string", "display": true, "removed": true, "required": false, "displayName": "source", "defaultMatch": false, "canBeUsedToMatch": true}], "mappingMode": "defineBelow", "matchingColumns": [], "attemptToConvertTypes": false, "convertFieldsToString": false}}, "name": "getChart", "type": "@n8n/n8n-nodes-langchain.toolWorkflow", "typeVersion": VERSION}`
	trigger := `{"parameters": {"inputSource": "passthrough"}, "name": "Called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1.1}`
	answer := `{"parameters": {"assignments": {"assignments": [{"id": "1", "name": "response", "value": "={{ $json.ticker }}", "type": "string"}]}, "options": {}}, "name": "Answer", "type": "n8n-nodes-base.set", "typeVersion": 3.4}`
	for _, c := range []struct {
		version, edit, want string
	}{
		{"2", "", `output "response" { value = step.run.items[0]`},
		{"2.1", "", `output "response" { value = step.run.items description`},
		{"2", `"days": 30`, `Unsupported parameter`},
		{"2", `"schema": [`, `items = [{ query = input.input }]`},
	} {
		tl := strings.Replace(tool, "VERSION", c.version, 1)
		switch c.edit {
		case `"days": 30`:
			tl = strings.Replace(tl, c.edit, `"days": "={{ $fromAI('days', '', 'string') }}"`, 1)
		case `"schema": [`:
			// Without a schema n8n's tool is of the model's text, and
			// the item {query}: the values are not read.
			tl = tl[:strings.Index(tl, c.edit)] + `"schema": [], "mappingMode": "defineBelow"}}, "name": "getChart", "type": "@n8n/n8n-nodes-langchain.toolWorkflow", "typeVersion": 2}`
		}
		src := aiWorkflow(t, `{question: "?"}`, []string{"AI Agent"}, []string{agent, model, tl, trigger, answer},
			map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "getChart": "ai_tool>AI Agent", "Called": "main>Answer"})
		res, diags := importer.Import([]importer.File{{Name: "chart.json", Bytes: src}}, importer.Options{})
		if c.want == "Unsupported parameter" {
			if res != nil || !strings.Contains(diags.Error(), `Unsupported parameter; Node "getChart" (@n8n/n8n-nodes-langchain.toolWorkflow), at /nodes/4/parameters/workflowInputs/value/days`) {
				t.Errorf("v%s: want the days input refused, got %s", c.version, diags.Error())
			}
			continue
		}
		if res == nil || diags.HasErrors() {
			t.Fatalf("v%s: %s", c.version, diags.Error())
		}
		if d := importer.Check(res.Files); d.HasErrors() {
			t.Fatal(d)
		}
		var toolFlow string
		for _, f := range res.Files {
			if strings.HasSuffix(f.Name, "_get_chart.flow.hcl") {
				toolFlow = string(f.Bytes)
			}
		}
		if c.edit != "" {
			wantIn(t, toolFlow, `input "input" { type = string`, c.want)
			continue
		}
		wantIn(t, toolFlow,
			`description = "Call this tool to get an analysis of a requested stock."`,
			`input "ticker" { type = string }`,
			`input "chart_style" { type = string description = "the style" default = "candle" }`,
			`step "run" { use = "flow.`,
			`_subworkflow" items = [{ query = { ticker = input.ticker chart_style = input.chart_style } ticker = input.ticker chart_style = input.chart_style days = 30 }] }`,
			c.want)
	}
}
