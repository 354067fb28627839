package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// An app node used as a tool is a flow of its own: an input for each
// $fromAI() key of its parameters (n8n's tool schema: the key, its
// description and type, a default making it optional), and the node's
// steps on the one item of those arguments; the model is given the items
// of its output. Postgres evaluates the {{ }} of its query though the
// text is not an expression, and so does the tool's flow.
// From enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__AI_Agent_to_chat_with_Supabase_PostgreSQL_DB.json
// (the Postgres tool) and …/Gmail_and_Email_Automation__Basic_Automatic_Gmail_Email_Labelling_with_OpenAI_and_Gmail_API.json
// (the Gmail tool, its limit a number with a default added here).
func TestAIAppTools(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	sql := `{"parameters": {"query": "{{ $fromAI(\"query\",\"SQL query for PostgreSQL DB in Supabase\") }}", "options": {}, "operation": "executeQuery", "descriptionType": "manual", "toolDescription": "Run custom SQL queries using knowledge about Output structure to provide needed response for user request.\nUse ->> operator to extract JSON data."}, "name": "Run SQL Query", "type": "n8n-nodes-base.postgresTool", "typeVersion": 2.5, "credentials": {"postgres": {"id": "AO9cER6p8uX7V07T", "name": "Postgres 5minai"}}}`
	label := `{"parameters": {"labelIds": "={{ $fromAI('gmail_categories', 'array of label ids', 'json') }}", "messageId": "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('gmail_message_id') }}", "operation": "addLabels", "descriptionType": "manual", "toolDescription": "Tool to add label to message"}, "name": "Add label to message", "type": "n8n-nodes-base.gmailTool", "typeVersion": 2.1, "credentials": {"gmailOAuth2": {"id": "x", "name": "Gmail account"}}}`
	// A second tool of the same app and credential reads the same secret.
	read := `{"parameters": {"messageId": "={{ $fromAI('gmail_message_id', 'id of the gmail message, like 1944fdc33f544369', 'string') }}", "operation": "markAsRead", "descriptionType": "manual", "toolDescription": "Tool to mark a message read"}, "name": "Mark read", "type": "n8n-nodes-base.gmailTool", "typeVersion": 2.1, "credentials": {"gmailOAuth2": {"id": "x", "name": "Gmail account"}}}`
	src := aiWorkflow(t, `{question: "How many users signed up today?"}`, []string{"AI Agent"},
		[]string{agent, model, sql, label, read},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Run SQL Query": "ai_tool>AI Agent", "Add label to message": "ai_tool>AI Agent", "Mark read": "ai_tool>AI Agent"})
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	if res == nil || diags.HasErrors() {
		t.Fatalf("not imported whole: %s", diags.Error())
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flows do not validate: %s", d.Error())
	}
	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Name] = string(f.Bytes)
	}
	main, sqlFlow, gmail := files["ai_case.flow.hcl"], files["ai_case_run_sql_query.flow.hcl"], files["ai_case_add_label_to_message.flow.hcl"]
	if main == "" || sqlFlow == "" || gmail == "" {
		t.Fatalf("want the workflow's flow and the tools', got %v", importer.SortedKeys(files))
	}
	wantIn(t, main, `flow.ai_case_run_sql_query`, `flow.ai_case_add_label_to_message`, `tools = [flow.ai_case_`)
	wantIn(t, sqlFlow,
		`description = "Run custom SQL queries using knowledge about Output structure to provide needed response for user request.\nUse ->> operator to extract JSON data."`,
		`input "query" { type = string description = "SQL query for PostgreSQL DB in Supabase" }`,
		`use = "sql" for_each = [{ query = input.query }]`,
		`query = each.value.query`,
		`output "response" { value = local.run_sql_query`)
	wantIn(t, gmail,
		`description = "Tool to add label to message"`,
		`input "gmail_categories" { type = any description = "array of label ids" }`,
		`input "gmail_message_id" { type = string }`,
		`for_each = [{ gmail_categories = input.gmail_categories gmail_message_id = input.gmail_message_id }]`,
		`message_id = each.value.gmail_message_id label_ids = each.value.gmail_categories`,
		`output "response" {`)
	wantIn(t, files["ai_case_mark_read.flow.hcl"], `secret "gmail" {`, `input "gmail_message_id" { type = string description = "id of the gmail message, like 1944fdc33f544369" }`)
}

// What a tool's flow cannot give as n8n does is an error at the tool's
// parameter, and the agent converts without it: an expression reading
// the workflow's items beside the model's arguments, a $fromAI() with a
// key n8n refuses, one key of two types.
// From oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0677_Gmailtool_Splitout_Create_Webhook.json.
func TestAIAppToolsRefused(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	for _, c := range []struct{ params, want string }{
		{`"sendTo": "={{ $fromAI(\"participant_email\",\"participant email \",\"string\") }}", "message": "=Summary:\n{{ $json.data.transcript.summary.bullet_gist }}\n\nAction Items:\n{{ $fromAI(\"participant_action_items\",\"participant action items \",\"string\") }}", "options": {"appendAttribution": false}, "subject": "Meeting Summary", "emailType": "text"`,
			`Unsupported expression: Node "Notify Client About Tasks" (n8n-nodes-base.gmailTool), at /nodes/4/parameters/message`},
		{`"sendTo": "={{ $fromAI('To', 'the address', 'string') }}", "subject": "={{ $fromAI('To', 'the subject', 'string') }}", "message": "hi", "emailType": "text"`,
			`Invalid parameter: Node "Notify Client About Tasks" (n8n-nodes-base.gmailTool), at /nodes/4/parameters/subject`},
		{`"sendTo": "={{ $fromAI('send to') }}", "message": "hi", "emailType": "text"`,
			`Invalid parameter: Node "Notify Client About Tasks" (n8n-nodes-base.gmailTool), at /nodes/4/parameters/sendTo`},
		{`"sendTo": "={{ $fromAI('to', '', 'string') + '@example.com' }}", "message": "hi", "emailType": "text"`,
			`Unsupported expression: Node "Notify Client About Tasks" (n8n-nodes-base.gmailTool), at /nodes/4/parameters/sendTo`},
	} {
		tool := `{"parameters": {` + c.params + `}, "name": "Notify Client About Tasks", "type": "n8n-nodes-base.gmailTool", "typeVersion": 2.1, "credentials": {"gmailOAuth2": {"id": "x", "name": "Gmail account"}}}`
		src := aiWorkflow(t, `{question: "Send the summary"}`, []string{"AI Agent"}, []string{agent, model, tool},
			map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Notify Client About Tasks": "ai_tool>AI Agent"})
		_, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
		var errs []string
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				errs = append(errs, d.Summary+": "+d.Detail)
			}
		}
		if len(errs) != 1 || !strings.HasPrefix(errs[0], c.want) {
			t.Errorf("want one error %q, got %q", c.want, errs)
		}
	}
}
