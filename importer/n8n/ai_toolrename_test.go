package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// A Workflow tool (v1.3) whose JSON example has a property that is not an
// input name of a flow ("Report", from the "Registrar" tool of
// oxbshw+ultimate-n8n-ai-workflows/New_Workflow__CyberApp_workflow.json,
// here calling its own workflow): the tool's flow has the input report,
// which the model is asked for (a warning), and the item keeps n8n's
// name, {query = {Report = input.report, …}}.
func TestAIWorkflowToolRenamedInput(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	tool := `{"parameters": {"name": "Registrar", "schemaType": "fromJson", "workflowId": "={{ $workflow.id }}", "description": "Register the user.", "jsonSchemaExample": "{\"name\":\"Stephen\",\n  \"website\": \"CyberAPP Solutions\",\n  \"email\":\"users@gmail.com\",\n\"Report\": \"If known\"}", "specifyInputSchema": true}, "name": "Registrar", "type": "@n8n/n8n-nodes-langchain.toolWorkflow", "typeVersion": 1.3}`
	trigger := `{"parameters": {}, "name": "Called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1}`
	answer := `{"parameters": {"assignments": {"assignments": [{"id": "1", "name": "response", "value": "={{ $json.query.Report }}", "type": "string"}]}, "options": {}}, "name": "Answer", "type": "n8n-nodes-base.set", "typeVersion": 3.4}`
	src := aiWorkflow(t, `{question: "?"}`, []string{"AI Agent"}, []string{agent, model, tool, trigger, answer},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Registrar": "ai_tool>AI Agent", "Called": "main>Answer"})
	res, diags := importer.Import([]importer.File{{Name: "cyber.json", Bytes: src}}, importer.Options{})
	if res == nil {
		t.Fatal(diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
	if !strings.Contains(diags.Error(), `Fields renamed for the model`) || !strings.Contains(diags.Error(), `"Report" as report`) {
		t.Errorf("want the warning that Report is asked as report, got %s", diags.Error())
	}
	var toolFlow string
	for _, f := range res.Files {
		if strings.Contains(string(f.Bytes), `input "report"`) {
			toolFlow = strings.Join(strings.Fields(string(f.Bytes)), " ")
		}
	}
	wantIn(t, toolFlow, `input "report" { type = string`, `input "name" { type = string`,
		`items = [{ query = { for k, v in { name = input.name website = input.website email = input.email Report = input.report } : k => v if v != null } }]`)
}
