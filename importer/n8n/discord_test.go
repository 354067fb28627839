package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Discord's Send a Message through a webhook as the corpus has it
// (enescingoz+awesome-n8n-templates/Discord__Send_daily_translated_Calvin_and_Hobbes_Comics_to_Discord.json,
// "Discord"): POST of {content} to the credential's webhook URL for each
// item; Discord answers 204 without wait, and the item is n8n's
// {success: true}. With options: the flags as Discord's bits, wait in
// the query, and the message Discord answers with.
func TestDiscordWebhookImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {content: 'Hello'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "cf2c953f", "name": "Discord", "type": "n8n-nodes-base.discord", "position": [1840, 380], "parameters": {"content": "=Daily Cartoon\n\n{{ $json.content }}\n", "options": {}, "authentication": "webhook"}, "credentials": {"discordWebhookApi": {"id": "w82RWS7nmXLKDczt", "name": "n8n test webhook"}}, "typeVersion": 2}`
	files, diags := importApp(t, appWorkflow(t, "daily", item, node))
	wantDiags(t, diags)
	wantIn(t, files["daily.flow.hcl"], `  use      = "flow.discord_webhook_message_send"
  for_each = step.item.items
  content = (<<EOT
Daily Cartoon

${coalesce(try(each.value.content, null), "")}
EOT`, `secret "discord_webhook_url" {`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		if r.URL.Query().Get("wait") == "" {
			return ""
		}
		return `{"id": "m1", "content": "Daily Cartoon"}`
	})
	secrets := map[string]string{"discord_webhook_url": srv.URL + "/api/webhooks/1/tok"}
	out := runImported(t, files, "daily", secrets, srv.URL)
	wantJSON(t, "items", out["discord"], `[{"success": true}]`)
	wantJSON(t, "requests", *reqs, `["POST /api/webhooks/1/tok {\"content\":\"Daily Cartoon\\n\\nHello\\n\"} (no token)"]`)

	withOpts := strings.Replace(node, `"options": {}`, `"options": {"username": "bot", "tts": false, "flags": ["SUPPRESS_NOTIFICATIONS"], "wait": true}`, 1)
	files, diags = importApp(t, appWorkflow(t, "opts", item, withOpts))
	wantDiags(t, diags)
	*reqs = nil
	out = runImported(t, files, "opts", secrets, srv.URL)
	wantJSON(t, "items", out["discord"], `[{"id": "m1", "content": "Daily Cartoon"}]`)
	wantJSON(t, "requests", *reqs, `["POST /api/webhooks/1/tok?wait=true {\"content\":\"Daily Cartoon\\n\\nHello\\n\",\"flags\":4096,\"tts\":false,\"username\":\"bot\"} (no token)"]`)

	// A bot token's connection, embeds and v1 are errors.
	for _, c := range []struct{ from, to, diag string }{
		{`"authentication": "webhook"`, `"authentication": "botToken"`, "error /nodes/2/parameters/authentication Unsupported parameter"},
		{`"options": {}`, `"options": {}, "embeds": {"values": [{"description": "x"}]}`, "error /nodes/2/parameters/embeds Unsupported option"},
		{`"typeVersion": 2`, `"typeVersion": 1`, "error /nodes/2/typeVersion Unsupported version"},
	} {
		_, diags := importApp(t, appWorkflow(t, "bad", item, strings.Replace(node, c.from, c.to, 1)))
		wantDiags(t, diags, c.diag)
	}
}
