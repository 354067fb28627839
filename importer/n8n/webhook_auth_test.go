package n8n

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestWebhookCredentials: the Webhook node's Basic Auth becomes verify =
// "basic" with a secret user:password, its Header Auth verify = "header"
// with the header's name and value secrets (n8n's httpHeaderAuth holds
// both); any other authentication, or one an export mangled, is an error
// at its JSON path.
func TestWebhookCredentials(t *testing.T) {
	// From oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0141_Notion_Webhook_Create_Webhook.json.
	const basic = `"name": "Sign Up", "type": "n8n-nodes-base.webhook", "webhookId": "6d60a1b4-6706-4f21-a5fb-bace13c24b53", "parameters": {"path": "sign-up", "httpMethod": "POST", "authentication": "basicAuth"}, "credentials": {"httpBasicAuth": {"id": "11", "name": "Oasis Basic Auth Creds"}}, "typeVersion": 1`
	// From enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Proxmox_AI_Agent_with_n8n_and_Generative_AI_Integration.json.
	const header = `"name": "Webhook", "type": "n8n-nodes-base.webhook", "webhookId": "459d848d-72ed-490f-bc48-e5dc60242896", "parameters": {"path": "459d848d-72ed-490f-bc48-e5dc60242896", "options": {}, "authentication": "headerAuth"}, "credentials": {"httpHeaderAuth": {"id": "pJcVQegRQ5mpraoQ", "name": "Proxmox"}}, "typeVersion": 2`
	for _, c := range []struct {
		node string
		want []string
	}{
		{basic, []string{"path = \"/webhook/sign-up\"\n method = \"POST\"\n verify = \"basic\"\n secret = secret.oasis_basic_auth_creds\n }",
			`secret "oasis_basic_auth_creds" {` + "\n" + ` description = "the user and password of n8n credential \"Oasis Basic Auth Creds\" (httpBasicAuth), as user:password,`}},
		{header, []string{"verify = \"header\"\n secret = secret.proxmox\n header = secret.proxmox_name\n }",
			`secret "proxmox" {` + "\n" + ` description = "the header value of n8n credential \"Proxmox\" (httpHeaderAuth)`,
			`secret "proxmox_name" {` + "\n" + ` description = "the header name of n8n credential \"Proxmox\" (httpHeaderAuth)`}},
	} {
		flow := squash(mustValidate(t, workflow("w", c.node, setData)))
		for _, want := range c.want {
			if !strings.Contains(flow, want) {
				t.Errorf("want %s in:\n%s", want, flow)
			}
		}
		if strings.Contains(flow, "Webhook without verification") || strings.Contains(flow, `verify = "none"`) {
			t.Errorf("a credential checked as none:\n%s", flow)
		}
	}
	// From Zie619+n8n-workflows/workflows__Notion__0142_Notion_Webhook_Create_Webhook.json:
	// the export's authentication is no mode of n8n's.
	mangled := strings.Replace(basic, `"basicAuth"`, `"{{ $credentials.basicAuth }}"`, 1)
	for _, node := range []string{mangled, strings.Replace(basic, `"basicAuth"`, `"jwtAuth"`, 1)} {
		_, diags := importWhole(t, workflow("w", node, setData))
		if d := findDiag(diags, "Unsupported webhook authentication"); d == nil || d.Severity != hcl.DiagError || !strings.Contains(d.Detail, "/nodes/1/parameters/authentication") {
			t.Errorf("%s: %v", node, diags)
		}
	}
}
