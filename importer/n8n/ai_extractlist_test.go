package n8n_test

import (
	"strconv"
	"strings"
	"testing"
)

// An Information Extractor whose schema is an array: one output "output"
// of the schema's type, each element leaving out the optional properties
// the model gave no value. The schema of
// enescingoz+awesome-n8n-templates/WordPress__Automate_Blog_Creation_in_Brand_Voice_with_AI.json
// (and of …/PDF_and_Document_Processing__Transcribe_Audio_Files_Summarize_with_GPT-4_and_Store_in_Notion.json,
// its fields required), and two it could be that the flow cannot type as
// n8n checks it: refused.
func TestAIExtractList(t *testing.T) {
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	extractor := `{"parameters": {"text": "={{ $json.articles }}", "schemaType": "manual", "inputSchema": SCHEMA, "options": {}}, "name": "Extract Voice Characteristics", "type": "@n8n/n8n-nodes-langchain.informationExtractor", "typeVersion": 1}`
	for _, c := range []struct{ schema, want, err string }{
		{`{"type": "array", "items": {"type": "object", "properties": {"characteristic": {"type": "string"}, "description": {"type": "string"}, "examples": {"type": "array", "items": {"type": "string"}}}}}`,
			`type = list(object({ characteristic = optional(string), description = optional(string), examples = optional(list(string)) })) } } output "extract_voice_characteristics" { value = [for r in step.extract_voice_characteristics : { output = [for o in r.output : { for k, v in o : k => v if v != null }] }]`, ""},
		{`{"type": "array", "items": {"type": "object", "properties": {"date": {"type": "string"}, "amount": {"type": "number"}}, "required": ["date", "amount"]}}`,
			`type = list(object({ date = string, amount = number })) } } output "extract_voice_characteristics" { value = [for r in step.extract_voice_characteristics : { output = r.output }]`, ""},
		{`{"type": "array", "items": {"type": "object", "properties": {"who": {"type": "object", "properties": {"name": {"type": "string"}}}}, "required": ["who"]}}`, "", "error /nodes/2/parameters/inputSchema Unsupported schema"},
		{`{"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}}`, "", "error /nodes/2/parameters/inputSchema Unsupported schema"},
	} {
		src := aiWorkflow(t, `{articles: "Hi there, friend!"}`, []string{"Extract Voice Characteristics"},
			[]string{strings.Replace(extractor, "SCHEMA", strconv.Quote(c.schema), 1), model},
			map[string]string{"OpenAI Chat Model": "ai_languageModel>Extract Voice Characteristics"})
		flow, diags := importAI(t, src)
		if c.err != "" {
			if flow != "" || !strings.Contains(strings.Join(diags, "\n"), c.err) {
				t.Errorf("%s: want %q, got\n%s", c.schema, c.err, strings.Join(diags, "\n"))
			}
			continue
		}
		if flow == "" {
			t.Fatalf("%s: not imported: %s", c.schema, strings.Join(diags, "\n"))
		}
		wantIn(t, flow, c.want)
		if !strings.Contains(strings.Join(diags, "\n"), "warning /nodes/2/parameters/inputSchema List asked as a field") {
			t.Errorf("want the warning that the list is asked as a field, got\n%s", strings.Join(diags, "\n"))
		}
	}
}
