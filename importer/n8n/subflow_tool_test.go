package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// The Workflow tool (v1.1, its fields and $workflow.id, as in
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Build_a_Tax_Code_Assistant_with_Qdrant_Mistral.ai_and_OpenAI.json):
// a tool flow whose input is the model's text and whose step runs the
// workflow's trigger part with {query, route}.
func TestWorkflowTool(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	tool := `{"parameters": {"name": "query_tax_code_knowledgebase", "fields": {"values": [{"name": "route", "stringValue": "ask_tool"}]}, "workflowId": "={{ $workflow.id }}", "description": "Call this tool to query the tax code database for information."}, "name": "Ask", "type": "@n8n/n8n-nodes-langchain.toolWorkflow", "typeVersion": 1.1}`
	trigger := `{"parameters": {}, "name": "Called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1}`
	answer := `{"parameters": {"assignments": {"assignments": [{"id": "1", "name": "response", "value": "={{ $json.query }}", "type": "string"}]}, "options": {}}, "name": "Answer", "type": "n8n-nodes-base.set", "typeVersion": 3.4}`
	src := aiWorkflow(t, `{question: "?"}`, []string{"AI Agent"}, []string{agent, model, tool, trigger, answer},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Ask": "ai_tool>AI Agent", "Called": "main>Answer"})
	res, diags := importer.Import([]importer.File{{Name: "tax.json", Bytes: src}}, importer.Options{})
	if res == nil {
		t.Fatal(diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
	var toolFlow string
	for _, f := range res.Files {
		if strings.Contains(string(f.Bytes), "query_tax_code_knowledgebase") && strings.Contains(string(f.Bytes), `input "input"`) {
			toolFlow = strings.Join(strings.Fields(string(f.Bytes)), " ")
		}
	}
	for _, want := range []string{
		`description = "Call this tool to query the tax code database for information."`,
		`input "input" { type = string`,
		`step "run" { use = "flow.`, `_subworkflow" items = [{ query = input.input route = "ask_tool" }] }`,
		`output "response" { value = step.run.items[0]`,
	} {
		if !strings.Contains(toolFlow, want) {
			t.Errorf("want %s in the tool's flow:\n%s", want, toolFlow)
		}
	}
}

// The Execute Workflow Trigger's part, written beside the workflow's
// flow, is a flow of its own in every way: with --partial each flow
// declares the block its stand-ins use, and the flows of the part's
// tools are written too (both validate).
func TestSubworkflowPartFlows(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	wiki := `{"parameters": {}, "name": "Wikipedia", "type": "@n8n/n8n-nodes-langchain.toolWikipedia", "typeVersion": 1}`
	trigger := `{"parameters": {}, "name": "Called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1}`
	slack := `{"parameters": {"text": "hi"}, "name": "Slack", "type": "n8n-nodes-base.slack", "typeVersion": 2.2}`
	slack2 := `{"parameters": {"text": "hi"}, "name": "Slack 2", "type": "n8n-nodes-base.slack", "typeVersion": 2.2}`
	src := aiWorkflow(t, `{question: "?"}`, []string{"Slack"}, []string{slack, trigger, slack2, agent, model, wiki},
		map[string]string{"Called": "main>Slack 2", "Slack 2": "main>AI Agent", "OpenAI Chat Model": "ai_languageModel>AI Agent", "Wikipedia": "ai_tool>AI Agent"})
	res, diags := importer.Import([]importer.File{{Name: "parts.json", Bytes: src}}, importer.Options{Partial: true})
	if res == nil {
		t.Fatal(diags)
	}
	var names []string
	for _, f := range res.Files {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "ai_case.flow.hcl blocks/n8n.block.hcl ai_case_subworkflow.flow.hcl ai_case_subworkflow_wikipedia.flow.hcl" {
		t.Errorf("files %v", names)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
}
