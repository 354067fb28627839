package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// importLines imports a workflow as importAI does (the flow must
// validate) and returns the flow and its diagnostics.
func importLines(t *testing.T, src string) (string, []string) {
	t.Helper()
	return importAI(t, []byte(src))
}

// A predefined credential type is the request its authenticate property
// makes (n8n's credentials/*.credentials.js): headers, query parameters or
// Basic auth of the credential's fields, a secret each, over the node's
// own. The OpenAI node is "OpenAi Create Thread" of
// enescingoz+awesome-n8n-templates/Airtable__vAssistant_for_Hubspot_Chat_using_OpenAi_and_Airtable.json.
func TestHTTPPredefinedCredentials(t *testing.T) {
	openAI := `"name": "OpenAi Create Thread", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.1, "parameters": {"url": "https://api.openai.com/v1/threads", "method": "POST", "options": {}, "jsonBody": "={\n \"messages\": []\n}", "sendBody": true, "sendHeaders": true, "specifyBody": "json", "authentication": "predefinedCredentialType", "headerParameters": {"parameters": [{"name": "openai-beta", "value": "assistants=v1"}]}, "nodeCredentialType": "openAiApi"}, "credentials": {"openAiApi": {"id": "sCh1Lrc1ZT8NVcgn", "name": "OpenAi Makeitfuture.eu"}}`
	flow, diags := importLines(t, chain(openAI))
	wantIn(t, flow, `secret "open_ai_makeitfuture_eu" {`,
		`headers = { openai-beta = "assistants=v1" authorization = "Bearer ${secret.open_ai_makeitfuture_eu}" }`)
	wantDiags(t, diags, "warning /nodes/1/parameters/nodeCredentialType Credential option not sent")

	node := func(kind, more string) string {
		return `"name": "Call", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://api.example.com/x", "authentication": "predefinedCredentialType", "nodeCredentialType": "` + kind + `"` + more + `}, "credentials": {"` + kind + `": {"id": "c1", "name": "Acme"}}`
	}
	// Two fields, two secrets, in one header.
	flow, diags = importLines(t, chain(node("erpNextApi", "")))
	wantIn(t, flow, `secret "acme_api_key" {`, `secret "acme_api_secret" {`,
		`authorization = "token ${secret.acme_api_key}:${secret.acme_api_secret}"`)
	wantDiags(t, diags)
	// Basic auth with an empty user, and a header of the credential's own.
	flow, _ = importLines(t, chain(node("lemlistApi", "")))
	wantIn(t, flow, `user-agent = "n8n"`, `authorization = "Basic ${base64encode(":${secret.acme}")}"`)
	// A query parameter.
	flow, _ = importLines(t, chain(node("googlePalmApi", "")))
	wantIn(t, flow, `query = { key = "${secret.acme}" }`)
	// Notion's version unless the node sets Notion-Version, as written.
	flow, _ = importLines(t, chain(node("notionApi", "")))
	wantIn(t, flow, `authorization = "Bearer ${secret.acme} "`, `notion-version = "2022-02-22"`)
	own := `, "sendHeaders": true, "headerParameters": {"parameters": [{"name": "Notion-Version", "value": "2022-06-28"}]}`
	flow, _ = importLines(t, chain(node("notionApi", own)))
	wantIn(t, flow, `headers = { notion-version = "2022-06-28" authorization = "Bearer ${secret.acme} " }`)
	_, diags = importLines(t, chain(node("notionApi", `, "sendHeaders": true, "headerParameters": {"parameters": [{"name": "notion-version", "value": "2022-06-28"}]}`)))
	wantDiags(t, diags, "error /nodes/1/parameters/headerParameters/parameters/0/name Unsupported credential")
	_, diags = importLines(t, chain(node("notionApi", `, "sendHeaders": true, "specifyHeaders": "json", "jsonHeaders": "{}"`)))
	wantDiags(t, diags, "error /nodes/1/parameters/jsonHeaders Unsupported credential")

	// OAuth2: the access token, with a warning that the flow does not
	// refresh it; the types n8n sends otherwise are refused.
	flow, diags = importLines(t, chain(node("googleOAuth2Api", "")))
	wantIn(t, flow, `authorization = "Bearer ${secret.acme}"`, `the accessToken of n8n credential \"Acme\" (googleOAuth2Api)`)
	wantDiags(t, diags, "warning /nodes/1/parameters/nodeCredentialType OAuth2 access token")
	_, diags = importLines(t, chain(node("clickUpOAuth2Api", "")))
	wantDiags(t, diags, "error /nodes/1/parameters/nodeCredentialType Unsupported credential")
	// A type whose request is not known: telegramApi has no authenticate
	// (the token is in the URL the node writes).
	_, diags = importLines(t, chain(node("telegramApi", "")))
	wantDiags(t, diags, "error /nodes/1/parameters/nodeCredentialType Unsupported credential")
	_, diags = importLines(t, chain(`"name": "Call", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://api.example.com/x", "authentication": "genericCredentialType", "genericAuthType": "httpDigestAuth"}`))
	wantDiags(t, diags, "error /nodes/1/parameters/genericAuthType Unsupported credential")
}

// The HTTP Request tool takes the same credentials: "Create New Time
// Entry" of oxbshw+ultimate-n8n-ai-workflows/automation__1754_Executiondata_Slack_Automate_Webhook.json.
func TestHTTPToolPredefinedCredential(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	tool := `{"name": "Create New Time Entry", "type": "@n8n/n8n-nodes-langchain.toolHttpRequest", "typeVersion": 1.1, "parameters": {"url": "=https://api.clockify.me/api/v1/workspaces/6735b75fe9244e75e2123fba/time-entries", "method": "POST", "jsonBody": "{\n  \"billable\": true,\n  \"description\": \"{logDescription}\"\n}", "sendBody": true, "specifyBody": "json", "authentication": "predefinedCredentialType", "toolDescription": "Call this workflow whenever you need to work with Clockify for create a new time entry.", "nodeCredentialType": "clockifyApi", "placeholderDefinitions": {"values": [{"name": "logDescription", "type": "string", "description": "Description of the time log entry"}]}}, "credentials": {"clockifyApi": {"id": "4OYGB4d1nJ1FGhsg", "name": "Clockify account"}}}`
	src := aiWorkflow(t, `{question: "Log an hour"}`, []string{"AI Agent"}, []string{agent, model, tool},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Create New Time Entry": "ai_tool>AI Agent"})
	_, diags := importAI(t, src)
	for _, d := range diags {
		if d == "error /nodes/3/parameters/nodeCredentialType Unsupported credential" {
			t.Fatalf("the tool's credential is refused: %v", diags)
		}
	}
	files := importFiles(t, src)
	wantIn(t, files["ai_case_create_new_time_entry.flow.hcl"], `secret "clockify_account" {`, `headers = { x-api-key = "${secret.clockify_account}" }`)
}

// importFiles imports a workflow whole and returns its files' texts by
// name.
func importFiles(t *testing.T, src []byte) map[string]string {
	t.Helper()
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	if res == nil {
		t.Fatalf("not imported: %s", diags.Error())
	}
	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Name] = string(f.Bytes)
	}
	return files
}

// chain is a workflow of nodes (JSON objects without their braces)
// connected in a chain after a Manual Trigger.
func chain(nodes ...string) string {
	ns := []string{`{"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}}`}
	var conns []string
	prev := "Start"
	for _, n := range nodes {
		ns = append(ns, "{"+n+"}")
		name := strings.SplitN(strings.SplitN(n, `"name": "`, 2)[1], `"`, 2)[0]
		conns = append(conns, `"`+prev+`": {"main": [[{"node": "`+name+`", "type": "main", "index": 0}]]}`)
		prev = name
	}
	return `{"name": "w", "nodes": [` + strings.Join(ns, ", ") + `], "connections": {` + strings.Join(conns, ", ") + `}}`
}

// The options an http step cannot follow are refused at their path, each
// saying why; an empty Never Error expression ("=") is false, as in n8n.
func TestHTTPOptionsRefused(t *testing.T) {
	node := func(options string) string {
		return `"name": "Call", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://api.example.com/x", "options": ` + options + `}`
	}
	for options, want := range map[string]string{
		`{"timeout": "={{ 1000 * 60 }}"}`:                                               "error /nodes/1/parameters/options/timeout Unsupported option",
		`{"response": {"response": {"fullResponse": true}}}`:                            "error /nodes/1/parameters/options/response/response/fullResponse Unsupported option",
		`{"response": {"response": {"neverError": true}}}`:                              "error /nodes/1/parameters/options/response/response/neverError Unsupported option",
		`{"response": {"response": {"neverError": "="}}}`:                               "",
		`{"allowUnauthorizedCerts": true}`:                                              "error /nodes/1/parameters/options/allowUnauthorizedCerts Unsupported option",
		`{"redirect": {"redirect": {}}, "timeout": 10000}`:                              "",
		`{"redirect": {"redirect": {"followRedirects": false}}}`:                        "error /nodes/1/parameters/options/redirect/redirect Unsupported option",
		`{"pagination": {"pagination": {"paginationMode": "responseContainsNextURL"}}}`: "error /nodes/1/parameters/options/pagination Unsupported option",
	} {
		_, diags := importLines(t, chain(node(options)))
		if want == "" {
			wantDiags(t, diags)
		} else {
			wantDiags(t, diags, want)
		}
	}
}

// A body an http step cannot send is refused at contentType, saying why.
func TestHTTPBodyRefused(t *testing.T) {
	for ct, why := range map[string]string{
		"xml":        "Unsupported body: n8n's HTTP Request v4 has no such body",
		"binaryData": "Binary data: the node reads the file (binary data) of the items of \"Start\"",
	} {
		src := chain(`"name": "Upload", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://api.example.com/x", "method": "POST", "sendBody": true, "contentType": "` + ct + `", "options": {}}`)
		_, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: []byte(src)}}, importer.Options{})
		summary, detail, _ := strings.Cut(why, ": ")
		if len(diags) != 1 || diags[0].Summary != summary || !strings.Contains(diags[0].Detail, detail) {
			t.Errorf("%s: want Unsupported body saying %q, got %v", ct, why, diags)
		}
	}
}

// A Custom Auth credential is one secret, its JSON, merged at run time
// (the case credentials_custom runs it against n8n); where n8n would add
// its body beside a form body, or in the HTTP Request Tool, whose flow
// sends its own body, it is refused.
func TestHTTPCustomAuth(t *testing.T) {
	node := func(typ, more string) string {
		return `"name": "Leo - Get imageId", "type": "` + typ + `", "typeVersion": 4.2, "parameters": {"url": "https://cloud.leonardo.ai/api/rest/v1/generations", "authentication": "genericCredentialType", "genericAuthType": "httpCustomAuth"` + more + `}, "credentials": {"httpCustomAuth": {"id": "c1", "name": "Leonardo"}}`
	}
	flow, diags := importLines(t, chain(node("n8n-nodes-base.httpRequest", "")))
	wantDiags(t, diags)
	wantIn(t, flow, `secret "leonardo" {`,
		`query = try(jsondecode(secret.leonardo).qs, {})`,
		`headers = { for k, v in try(jsondecode(secret.leonardo).headers, {}) : lower(k) => v }`,
		`body = try(jsondecode(secret.leonardo).body, null)`)
	_, diags = importLines(t, chain(node("n8n-nodes-base.httpRequest", `, "method": "POST", "sendBody": true, "contentType": "form-urlencoded", "bodyParameters": {"parameters": [{"name": "a", "value": "1"}]}`)))
	wantDiags(t, diags, "error /nodes/1/parameters/genericAuthType Unsupported credential")
}
