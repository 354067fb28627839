package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Slack v1's Post as the corpus has it, a welcome with an attachment
// (oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0207_Manual_Slack_Create_Webhook.json,
// "Slack2"; its as_user, which n8n's node v1 no longer reads, left as it
// is): POST /chat.postMessage with the channel, text and attachments;
// Send As User is the sender's name too; the item is Slack's answer as
// it is (v1 keeps ts).
func TestSlackV1PostImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {id: 'C1'}}]"}, "name": "Slack", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"name": "Slack2", "type": "n8n-nodes-base.slack", "position": [850, 250], "parameters": {"text": "Welcome to the channel!", "as_user": true, "channel": "={{$node[\"Slack\"].json[\"id\"]}}", "attachments": [{"title": "Logo", "image_url": "https://n8n.io/n8n-logo.png"}], "otherOptions": {"sendAsUser": "n8n", "mrkdwn": true}}, "credentials": {"slackApi": "Slack Bot Access Token"}, "typeVersion": 1}`
	files, diags := importApp(t, appWorkflow(t, "welcome", item, node))
	wantDiags(t, diags)
	wantIn(t, files["welcome.flow.hcl"], `  use      = "flow.slack_message_post_v1"`, `  username = "n8n"`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		return `{"ok": true, "channel": "C1", "ts": "1.2", "message": {"text": "Welcome to the channel!"}}`
	})
	out := runImported(t, files, "welcome", map[string]string{"slack": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["slack2"], `[{"ok": true, "channel": "C1", "ts": "1.2", "message": {"text": "Welcome to the channel!"}}]`)
	wantJSON(t, "requests", *reqs, `["POST /chat.postMessage {\"attachments\":[{\"image_url\":\"https://n8n.io/n8n-logo.png\",\"title\":\"Logo\"}],\"channel\":\"C1\",\"mrkdwn\":true,\"sendAsUser\":\"n8n\",\"text\":\"Welcome to the channel!\",\"username\":\"n8n\"}"]`)

	for _, c := range []struct{ from, to, diag string }{
		{`"otherOptions": {"sendAsUser": "n8n", "mrkdwn": true}`, `"otherOptions": {"sendAsUser": "={{ $json.id }}"}`, "error /nodes/2/parameters/otherOptions/sendAsUser Unsupported expression"},
		{`"otherOptions": {`, `"jsonParameters": true, "otherOptions": {`, "error /nodes/2/parameters/jsonParameters Unsupported option"},
		{`{"title": "Logo"`, `{"fields": {"item": []}, "title": "Logo"`, "error /nodes/2/parameters/attachments/0/fields Unsupported option"},
		{`"text": "Welcome`, `"operation": "update", "text": "Welcome`, "error /nodes/2/parameters/operation Unsupported operation"},
	} {
		_, diags := importApp(t, appWorkflow(t, "bad", item, strings.Replace(node, c.from, c.to, 1)))
		wantDiags(t, diags, c.diag)
	}
}
