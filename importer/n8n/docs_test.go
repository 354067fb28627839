package n8n_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// Google Docs v2: Create, then Update (a text inserted at the end of the
// body) and Get, for each item. The nodes "Create new RFP Response
// Document" of
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Automate_Your_RFP_Process_with_OpenAI_Assistants.json,
// "Save Report to Google Docs" of
// oxbshw+ultimate-n8n-ai-workflows/workflows__1279_Googledocs_Manual_Automate_Triggered.json
// (its document the one created) and a Get of the created document, all
// three with one credential (the registry's flows read one token).
func TestGoogleDocsImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {doc_filename: 'RFP 7'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	create := `{"id": "2b3df6af-c1ab-44a1-8907-425944294477", "name": "Create new RFP Response Document", "type": "n8n-nodes-base.googleDocs", "position": [1420, 340], "parameters": {"title": "={{ $json.doc_filename }}", "folderId": "=1y0I8MH32maIWCJh767mRE_NMHC6A3bUu"}, "credentials": {"googleDocsOAuth2Api": {"id": "V0G0vi1DRj7Cqbp9", "name": "Google Docs account"}}, "typeVersion": 2}`
	output := `{"parameters": {"jsCode": "return [{json: {output: 'Report of ' + $json.name, id: $json.id}}]"}, "name": "Output", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	update := `{"id": "e08dd92a-a7a1-4204-bef9-54611a2dee92", "name": "Save Report to Google Docs", "type": "n8n-nodes-base.googleDocs", "position": [460, 640], "parameters": {"actionsUi": {"actionFields": [{"text": "={{ $json.output }}", "action": "insert"}]}, "operation": "update", "documentURL": "={{ $json.id }}"}, "credentials": {"googleDocsOAuth2Api": {"id": "V0G0vi1DRj7Cqbp9", "name": "Google Docs account"}}, "typeVersion": 2}`
	get := `{"name": "Get", "type": "n8n-nodes-base.googleDocs", "position": [700, 640], "parameters": {"operation": "get", "documentURL": "={{ 'https://docs.google.com/document/d/' + $json.documentId + '/edit' }}"}, "credentials": {"googleDocsOAuth2Api": {"id": "V0G0vi1DRj7Cqbp9", "name": "Google Docs account"}}, "typeVersion": 2}`
	files, diags := importApp(t, appWorkflow(t, "rfp", item, create, output, update, get))
	wantDiags(t, diags, "warning /nodes/2/credentials/googleDocsOAuth2Api OAuth2 access token")
	wantIn(t, files["rfp.flow.hcl"], `use       = "flow.google_docs_document_create"`, `folder_id = "1y0I8MH32maIWCJh767mRE_NMHC6A3bUu"`,
		`use      = "flow.google_docs_document_update"`, `actions = [{ action = "insert" text = each.value.output location = "endOfSegmentLocation" segment_id = "" index = 1 replace_text = "" match_case = false }]`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		switch {
		case r.URL.Path == "/drive/v3/files":
			return `{"kind": "drive#file", "id": "d1", "name": "RFP 7", "mimeType": "application/vnd.google-apps.document"}`
		case strings.HasSuffix(r.URL.Path, ":batchUpdate"):
			return `{"replies": [{}], "writeControl": {"requiredRevisionId": "r2"}, "documentId": "d1"}`
		}
		return `{"documentId": "d1", "body": {"content": [{"sectionBreak": {}}, {"paragraph": {"elements": [{"textRun": {"content": "Report of RFP 7\n"}}]}}]}}`
	})
	out := runImported(t, files, "rfp", map[string]string{"google_docs": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["get"], `[{"documentId": "d1", "content": "Report of RFP 7\n"}]`)
	wantJSON(t, "requests", *reqs, `["POST /drive/v3/files {\"mimeType\":\"application/vnd.google-apps.document\",\"name\":\"RFP 7\",\"parents\":[\"1y0I8MH32maIWCJh767mRE_NMHC6A3bUu\"]}",
		"POST /v1/documents/d1:batchUpdate {\"requests\":[{\"insertText\":{\"endOfSegmentLocation\":{\"segmentId\":\"\"},\"text\":\"Report of RFP 7\"}}]}",
		"GET /v1/documents/d1"]`)

	// Another object than Text, an authentication that is no option of
	// the node's (as in
	// oxbshw+ultimate-n8n-ai-workflows/automation__1806_GoogleDrive_GoogleSheets_Import_Triggered.json),
	// are refused.
	for _, c := range []struct{ from, to, at, summary string }{
		{`"action": "insert"`, `"action": "insert", "object": "table"`, "/nodes/1/parameters/actionsUi/actionFields/0/object", "Unsupported option"},
		{`"operation": "update"`, `"operation": "update", "authentication": "{{ $credentials.serviceAccount }}"`, "/nodes/1/parameters/authentication", "Unsupported credential"},
	} {
		_, diags := importApp(t, appWorkflow(t, "rfp", strings.Replace(update, c.from, c.to, 1)))
		wantDiags(t, diags, "error "+c.at+" "+c.summary)
	}
}

// Google Docs as an agent's tool (googleDocsTool): a flow of its own
// that gets the document. The node "Company Profile" of
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0693_Code_Webhook_Create_Webhook.json,
// its document's ID a $fromAI argument where the workflow has a
// placeholder.
func TestGoogleDocsToolImported(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	tool := `{"id": "39cc73e7-ceb3-4e8e-a5bc-55648595f784", "name": "Company Profile", "type": "n8n-nodes-base.googleDocsTool", "position": [-540, 800], "parameters": {"operation": "get", "documentURL": "={{ $fromAI('document', 'the document ID') }}", "descriptionType": "manual", "toolDescription": "The company's profile"}, "credentials": {"googleDocsOAuth2Api": {"id": "RdTuYvYpBqEKhIQ3", "name": "Google Docs account"}}, "typeVersion": 2}`
	src := aiWorkflow(t, `{question: "What do we sell?"}`, []string{"AI Agent"}, []string{agent, model, tool},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Company Profile": "ai_tool>AI Agent"})
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
	wantIn(t, files["ai_case.flow.hcl"], `tools = [flow.ai_case_company_profile]`)
	wantIn(t, files["ai_case_company_profile.flow.hcl"], `description = "The company's profile"`, `input "document" { type = string description = "the document ID" }`,
		`use = "flow.google_docs_document_get"`, `document = each.value.document`)
}
