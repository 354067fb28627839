package n8n

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// Slack's Send Message as the corpus's nodes have it: with options and a
// bot name on an access token
// (oxbshw+ultimate-n8n-ai-workflows/automation__1695_Limit_Code_Automation_Scheduled.json,
// "Send Error" and "Send Message", a Blocks message from an expression),
// and on OAuth2 with n8n's link to the workflow on
// (enescingoz+awesome-n8n-templates/Slack__AI-Powered_Information_Monitoring_with_OpenAI_Google_Sheets_Jina_AI_and_Slack.json,
// "Slack1"): a step using the registry's flow for each item.
func TestSlackSendMessage(t *testing.T) {
	sendError := `"name": "Send Error", "type": "n8n-nodes-base.slack", "webhookId": "eaf921a6", "parameters": {"text": "=:x: *{{ $json.q }}* Error", "select": "channel", "channelId": {"__rl": true, "mode": "list", "value": "C08ME7TDZ3J", "cachedResultName": "github-release"}, "otherOptions": {"mrkdwn": true, "sendAsUser": "Release Bot", "unfurl_links": false, "includeLinkToWorkflow": false}}, "credentials": {"slackApi": {"id": "NG6LWZ4Leh25N3VZ", "name": "Release bot"}}, "typeVersion": 2.2`
	blocks := `"name": "Send Message", "type": "n8n-nodes-base.slack", "parameters": {"text": "=Release - {{ $json.q }}", "select": "channel", "blocksUi": "={{ $json }}", "channelId": {"__rl": true, "mode": "id", "value": "C08ME7TDZ3J"}, "messageType": "block", "otherOptions": {"mrkdwn": true, "sendAsUser": "GitHub Release", "unfurl_links": false, "includeLinkToWorkflow": false}}, "credentials": {"slackApi": {"id": "NG6LWZ4Leh25N3VZ", "name": "Release bot"}}, "typeVersion": 2.2`
	src := workflow("w", setData, sendError, blocks)
	res, diags := importWhole(t, src)
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	flow := mustValidate(t, src)
	wantText(t, flow,
		`step "send_error" { use = "flow.slack_message_post"`,
		`secret "slack" {`,
		`channel = "C08ME7TDZ3J"`,
		`text = ":x: *${coalesce(try(each.value.q, null), "")}* Error"`,
		`mrkdwn = true`,
		`username = "Release Bot"`,
		`unfurl_links = false`,
		`step "send_message" { use = "flow.slack_message_post"`,
		`blocks = each.value`,
		`username = "GitHub Release"`,
	)
	if strings.Count(flow, `secret "`) != 1 || hasDiag(diags, hcl.DiagWarning, "Link to the n8n workflow left out") {
		t.Errorf("one credential, one secret; no link to leave out: %v\n%s", diags, flow)
	}

	oauth := `"name": "Slack1", "type": "n8n-nodes-base.slack", "parameters": {"text": "={{ $json.q }}", "select": "channel", "channelId": {"__rl": true, "mode": "list", "value": "C0898R9G7JP", "cachedResultName": "topic-monitoring"}, "otherOptions": {}, "authentication": "oAuth2"}, "credentials": {"slackOAuth2Api": {"id": "", "name": "slack-topic-monitoring"}}, "typeVersion": 2.3`
	res, diags = importWhole(t, workflow("w", setData, oauth))
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	wantText(t, flowText(t, res), `secret "slack" {`, `channel = "C0898R9G7JP"`, `text = each.value.q`)
	for _, w := range []string{"Link to the n8n workflow left out", "OAuth2 access token"} {
		if !hasDiag(diags, hcl.DiagWarning, w) {
			t.Errorf("no warning %q: %v", w, diags)
		}
	}

	// A user by name is @name; an ephemeral message is not converted.
	user := strings.Replace(oauth, `"select": "channel", "channelId": {"__rl": true, "mode": "list", "value": "C0898R9G7JP", "cachedResultName": "topic-monitoring"}`, `"select": "user", "user": {"__rl": true, "mode": "username", "value": "={{ $json.q }}"}`, 1)
	wantText(t, mustValidate(t, workflow("w", setData, user)), `channel = startswith(each.value.q, "@") ? each.value.q : "@${each.value.q}"`)
	_, diags = importWhole(t, workflow("w", setData, strings.Replace(oauth, `"otherOptions": {}`, `"otherOptions": {"ephemeral": {}}`, 1)))
	if !hasDiag(diags, hcl.DiagError, "Unsupported option") {
		t.Errorf("ephemeral converted: %v", diags)
	}
}

// An app node that is not converted writes no registry flow beside the
// flow (--partial: a step stands for it), as the corpus's
// enescingoz+awesome-n8n-templates/Slack__Venafi_Cloud_Slack_Cert_Bot.json,
// whose Blocks use DateTime (here in a locale format, still refused), did: a flow no step uses, whose inputs plan
// asked for.
func TestAppNodeNotConvertedWritesNoFlow(t *testing.T) {
	node := `"name": "Slack1", "type": "n8n-nodes-base.slack", "parameters": {"text": "={{ DateTime.now().toLocaleString() }}", "select": "channel", "channelId": {"__rl": true, "mode": "id", "value": "C1"}, "otherOptions": {"includeLinkToWorkflow": false}}, "credentials": {"slackApi": {"id": "1", "name": "Slack"}}, "typeVersion": 2.2`
	res, diags := importer.Import([]importer.File{{Name: "w.json", Bytes: []byte(workflow("w", setData, node))}}, importer.Options{Partial: true})
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	for _, f := range res.Files {
		if f.Name == "slack_message_post.flow.hcl" {
			t.Errorf("the registry's flow is written for a node not converted")
		}
	}
}
