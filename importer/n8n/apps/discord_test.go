package apps

import (
	"net/http"
	"testing"
)

// Send a Message through a webhook as n8n's Discord node v2 sends it
// (sendLegacy.operation.js, prepareOptions): the content and the options
// in the body, both flags as 4100 and either as its bit, a wait n8n
// holds false left in the body and a true one in the query; the item is
// Discord's answer, {success: true} for none.
func TestDiscordWebhookMessageSend(t *testing.T) {
	secrets := map[string]string{"discord_webhook_url": "{server}/api/webhooks/1/tok"}
	for _, c := range []struct {
		name    string
		options map[string]any
		query   string
		body    string
		reply   string
		items   string
	}{
		{"none", nil, "", `{"content":"hi"}`, "", `[{"success": true}]`},
		{"both flags", map[string]any{"flags": []any{"SUPPRESS_EMBEDS", "SUPPRESS_NOTIFICATIONS"}, "wait": false, "avatar_url": ""}, "",
			`{"avatar_url":"","content":"hi","flags":4100,"wait":false}`, "", `[{"success": true}]`},
		{"embeds flag, wait", map[string]any{"flags": []any{"SUPPRESS_EMBEDS"}, "wait": true}, "wait=true", `{"content":"hi","flags":4}`, `{"id": "m1"}`, `[{"id": "m1"}]`},
		{"no flags", map[string]any{"flags": []any{}}, "", `{"content":"hi","flags":[]}`, "", `[{"success": true}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			inputs := map[string]any{"content": "hi"}
			if c.options != nil {
				inputs["options"] = c.options
			}
			out, reqs, err := tryFlowWith(t, "discord_webhook_message_send", inputs, secrets, func(w http.ResponseWriter, r *http.Request) {
				if c.reply == "" {
					w.WriteHeader(204)
					return
				}
				replyJSON(c.reply)(w, r)
			})
			if err != "" {
				t.Fatal(err)
			}
			for i := range reqs {
				reqs[i].Body = compactJSON(reqs[i].Body)
				if reqs[i].Auth == "" {
					reqs[i].Auth = "none" // the webhook's URL is its credential
				}
			}
			wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/api/webhooks/1/tok", Query: c.query, Auth: "none", Type: "application/json", Body: c.body})
			wantItems(t, out, c.items)
		})
	}
}
