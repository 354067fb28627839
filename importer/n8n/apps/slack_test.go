package apps

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Send Message as n8n's Slack node v2 sends it (SlackV2.node.js post,
// GenericFunctions.js getMessageContent and slackApiRequest): POST
// /chat.postMessage, JSON, the token as a bearer; a Block Kit message's
// fields in the body, with its text when there is one; the item is
// Slack's answer with ts renamed message_timestamp.
func TestSlackMessagePost(t *testing.T) {
	answer := `{"ok": true, "channel": "C0749JVFERK", "ts": "1712.0001", "message": {"text": "hi", "type": "message"}}`
	item := `[{"ok": true, "channel": "C0749JVFERK", "message_timestamp": "1712.0001", "message": {"text": "hi", "type": "message"}}]`
	blocks := `{"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*3* issues"}}]}`
	for _, c := range []struct {
		name   string
		inputs map[string]any
		body   string
	}{
		{"text", map[string]any{"channel": "C0749JVFERK", "text": "hi", "mrkdwn": true, "thread_ts": "1711.5", "username": "Release Bot"},
			`{"channel": "C0749JVFERK", "text": "hi", "mrkdwn": true, "thread_ts": "1711.5", "username": "Release Bot"}`},
		{"empty text", map[string]any{"channel": "C1", "text": ""}, `{"channel": "C1", "text": ""}`},
		// Blocks as the JSON text an expression gives, or as an object.
		{"blocks", map[string]any{"channel": "C1", "text": "3 issues", "blocks": blocks, "icon_emoji": ":fire:"},
			`{"channel": "C1", "text": "3 issues", "icon_emoji": ":fire:", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*3* issues"}}]}`},
		{"blocks without text", map[string]any{"channel": "C1", "text": "", "blocks": jsonOf(t, blocks)},
			`{"channel": "C1", "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*3* issues"}}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reqs := runFlow(t, "slack_message_post", c.inputs, replyJSON(answer))
			if len(reqs) != 1 {
				t.Fatalf("requests: %+v", reqs)
			}
			r := reqs[0]
			if r.Method != "POST" || r.Path != "/chat.postMessage" || r.Auth != "Bearer ya29.token" || r.Type != "application/json; charset=utf-8" {
				t.Errorf("request: %+v", r)
			}
			var got any
			json.Unmarshal([]byte(r.Body), &got)
			if !reflect.DeepEqual(got, jsonOf(t, c.body)) {
				t.Errorf("body:\n got %s\nwant %s", r.Body, c.body)
			}
			wantItems(t, out, item)
		})
	}
}

// Slack refuses with 200 and ok = false: the run fails with the error,
// as n8n's node does ("Slack error response: …").
func TestSlackMessagePostRefused(t *testing.T) {
	_, _, err := tryFlow(t, "slack_message_post", map[string]any{"channel": "C404", "text": "hi"}, replyJSON(`{"ok": false, "error": "channel_not_found"}`))
	if !strings.Contains(err, `Slack error response: \"channel_not_found\"`) {
		t.Errorf("the run: %s", err)
	}
}
