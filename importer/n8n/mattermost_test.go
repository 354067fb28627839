package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Mattermost's Post as the corpus has it, a message and an attachment's
// image from expressions
// (oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0154_HTTP_Mattermost_Automation_Webhook.json,
// "Mattermost"): POST /api/v4/posts on the credential's server for each
// item, the attachments in props; the item is the post.
func TestMattermostPostImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {channel: 'c1', drink: 'Mojito', thumb: 'https://example.com/m.jpg'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"name": "Mattermost", "type": "n8n-nodes-base.mattermost", "position": [770, 200], "parameters": {"message": "=Why not try {{$json[\"drink\"]}}?", "channelId": "={{$json[\"channel\"]}}", "attachments": [{"image_url": "={{$json[\"thumb\"]}}"}], "otherOptions": {}}, "credentials": {"mattermostApi": "Mattermost"}, "typeVersion": 1}`
	files, diags := importApp(t, appWorkflow(t, "post", item, node))
	wantDiags(t, diags)
	wantIn(t, files["post.flow.hcl"], `step "mattermost" {
  use        = "flow.mattermost_message_post"
  for_each   = step.item.items
  channel_id = each.value.channel
  message    = "Why not try ${coalesce(try(each.value.drink, null), "")}?"
  attachments = [{
    image_url = each.value.thumb
  }]
}`, `secret "mattermost_url" {`, `secret "mattermost" {`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		if r.Header.Get("Authorization") != "Bearer tok" {
			return `{"id": "wrong token"}`
		}
		return `{"id": "p1", "channel_id": "c1", "message": "Why not try Mojito?"}`
	})
	out := runImported(t, files, "post", map[string]string{"mattermost_url": srv.URL + "/", "mattermost": "tok"}, srv.URL)
	wantJSON(t, "items", out["mattermost"], `[{"id": "p1", "channel_id": "c1", "message": "Why not try Mojito?"}]`)
	wantJSON(t, "requests", *reqs, `["POST /api/v4/posts {\"channel_id\":\"c1\",\"message\":\"Why not try Mojito?\",\"props\":{\"attachments\":[{\"image_url\":\"https://example.com/m.jpg\"}]}} (no token)"]`)

	// An attachment's actions, which n8n reshapes, and other operations
	// are errors.
	bad := strings.Replace(node, `{"image_url"`, `{"actions": {"item": []}, "image_url"`, 1)
	_, diags = importApp(t, appWorkflow(t, "bad", item, bad))
	wantDiags(t, diags, "error /nodes/2/parameters/attachments/0/actions Unsupported option")
	del := `{"name": "Mattermost", "type": "n8n-nodes-base.mattermost", "position": [0, 0], "parameters": {"postId": "={{ $json.id }}", "operation": "delete"}, "credentials": {"mattermostApi": "Mattermost"}, "typeVersion": 1}`
	_, diags = importApp(t, appWorkflow(t, "del", item, del))
	wantDiags(t, diags, "error /nodes/2/parameters/operation Unsupported operation")
}
