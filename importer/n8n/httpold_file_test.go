package n8n_test

import "testing"

// HTTP Request v2's Response Format File (as in oxbshw+ultimate-n8n-ai-
// workflows/workflows__ai-agents__0259_Manual_HTTP_Create_Webhook.json) is
// a download for a GET without a body; with another method or a body n8n
// sends the body as JSON text, which is refused at responseFormat.
func TestHTTPOldFileResponse(t *testing.T) {
	node := func(more string) string {
		return `"name": "Download Excel File", "type": "n8n-nodes-base.httpRequest", "typeVersion": 2, "parameters": {"url": "https://static.thomasmartens.eu/n8n/Excel-File-to-Salesforce.xlsx", "options": {}, "responseFormat": "file"` + more + `}`
	}
	flow, diags := importLines(t, chain(node("")))
	wantDiags(t, diags)
	wantIn(t, flow, `response = "base64"`, `data = { data = r.body mimeType = try(lower(split(";", r.headers["Content-Type"])[0]), null) }`)
	for _, more := range []string{`, "requestMethod": "POST"`, `, "bodyParametersUi": {"parameter": [{"name": "a", "value": "1"}]}`} {
		_, diags = importLines(t, chain(node(more)))
		wantDiags(t, diags, "error /nodes/1/parameters/responseFormat Unsupported option")
	}
}
