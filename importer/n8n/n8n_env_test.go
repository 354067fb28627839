package n8n_test

import "testing"

// $env.NAME in an HTTP Request is a secret the deployment sets, as it set
// the variable for n8n: one secret for each variable. "Ask Claude" of
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Claude_AI_LINE_Chatbot.json
// (its JSON body trimmed), and the same key in a second node's JSON body.
// Elsewhere $env stays an Unsupported expression.
func TestHTTPEnvironmentVariable(t *testing.T) {
	ask := `"name": "Ask Claude", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4, "parameters": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "sendHeaders": true, "headerParameters": {"parameters": [{"name": "x-api-key", "value": "={{ $env.ANTHROPIC_API_KEY }}"}, {"name": "anthropic-version", "value": "2023-06-01"}, {"name": "content-type", "value": "application/json"}]}, "sendBody": true, "specifyBody": "json", "jsonBody": "={\n  \"model\": \"claude-opus-4-5\",\n  \"max_tokens\": 500\n}", "options": {}}`
	again := `"name": "Again", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"method": "POST", "url": "https://example.com/log", "sendBody": true, "specifyBody": "json", "jsonBody": "={\"key\": \"{{ $env['ANTHROPIC_API_KEY'] }}\"}", "options": {}}`
	flow, diags := importLines(t, chain(ask, again))
	wantIn(t, flow, `secret "anthropic_api_key" {`, `x-api-key = secret.anthropic_api_key`, `body = { key = "${secret.anthropic_api_key}" }`)
	wantDiags(t, diags, "warning /nodes/1/parameters/headerParameters/parameters/0/value Environment variable made a secret")

	set := `"name": "Data", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "key", "value": "={{ $env.ANTHROPIC_API_KEY }}", "type": "string"}]}}`
	_, diags = importLines(t, chain(set))
	wantDiags(t, diags, "error /nodes/1/parameters/assignments/assignments/0/value Unsupported expression")
}
