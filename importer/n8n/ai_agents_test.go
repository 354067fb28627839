package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// The ReAct agent converts as a Tools Agent: the llm step with its tools,
// no system message (its text prompt is langchain's ReAct one, which the
// step does not send), each item {output}. Its own prompt options and a
// tool n8n gives it as a structured tool (which it refuses) are errors.
// From enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Proxmox_AI_Agent_with_n8n_and_Generative_AI_Integration.json
// (v1.7, no options) and …/Google_Drive_and_Google_Sheets__Chat_with_a_Google_Sheet_using_AI.json (its suffix).
func TestReActAgent(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "agent": "reActAgent", "options": {OPTIONS}, "promptType": "define"}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}, "modelName": "models/gemini-1.5-flash"}, "name": "Google Gemini Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatGoogleGemini", "typeVersion": 1, "credentials": {"googlePalmApi": {"id": "1", "name": "Google Gemini(PaLM) Api account"}}}`
	calc := `{"parameters": {}, "name": "Calculator", "type": "@n8n/n8n-nodes-langchain.toolCalculator", "typeVersion": 1}`
	code := `{"parameters": {"jsCode": "return query.a + query.b", "description": "adds", "specifyInputSchema": true, "jsonSchemaExample": "{\"a\": 1, \"b\": 2}"}, "name": "Add", "type": "@n8n/n8n-nodes-langchain.toolCode", "typeVersion": 1.1}`
	for _, c := range []struct {
		options string
		tools   []string
		want    string
	}{
		{``, []string{calc}, ``},
		{`"suffix": "Begin! Use ` + "`list_columns`" + ` tool first.\n\n\tQuestion: {input}\n\tThought:{agent_scratchpad}", "returnIntermediateSteps": false`, []string{calc}, `Unsupported option; Node "AI Agent" (@n8n/n8n-nodes-langchain.agent), at /nodes/2/parameters/options/suffix`},
		{``, []string{calc, code}, `Unsupported agent; Node "AI Agent" (@n8n/n8n-nodes-langchain.agent), at /nodes/5/type`},
	} {
		nodes := []string{strings.Replace(agent, "OPTIONS", c.options, 1), model}
		subs := map[string]string{"Google Gemini Chat Model": "ai_languageModel>AI Agent"}
		for _, tl := range c.tools {
			nodes = append(nodes, tl)
			subs[strings.Split(strings.Split(tl, `"name": "`)[1], `"`)[0]] = "ai_tool>AI Agent"
		}
		src := aiWorkflow(t, `{question: "How much is 2 + 2?"}`, []string{"AI Agent"}, nodes, subs)
		res, diags := importer.Import([]importer.File{{Name: "react.json", Bytes: src}}, importer.Options{})
		if c.want != "" {
			if res != nil || !strings.Contains(diags.Error(), c.want) {
				t.Errorf("want %q, got %s", c.want, diags.Error())
			}
			continue
		}
		if res == nil || diags.HasErrors() {
			t.Fatalf("not imported: %s", diags.Error())
		}
		if !strings.Contains(diags.Error(), "Agent converted as a tools agent") {
			t.Errorf("want the warning that the ReAct agent is a tools agent, got %s", diags.Error())
		}
		flow := string(res.Files[0].Bytes)
		wantIn(t, flow, `use = "llm"`, `model = "gemini-1.5-flash"`, `tools = [block.calculator]`, `{ output = r.text }`)
		if strings.Contains(flow, "system") {
			t.Errorf("the ReAct agent has no system message:\n%s", flow)
		}
	}
}
