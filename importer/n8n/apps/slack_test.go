package apps

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
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
	srv := httptest.NewServer(http.HandlerFunc(replyJSON(`{"ok": false, "error": "channel_not_found"}`)))
	defer srv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "slack_message_post"+Suffix)
	if err := os.WriteFile(file, Flow("slack_message_post"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := compiler.Compile(file, compiler.Options{Parser: lang.NewParser()})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	given := map[string]compiler.InputValue{}
	for k, v := range map[string]string{"access_token": `"xoxb-1"`, "api_url": `"` + srv.URL + `"`, "channel": `"C404"`, "text": `"hi"`} {
		given[k] = compiler.InputValue{JSON: []byte(v), Source: "the test"}
	}
	vals, diags := prog.ResolveInputs(given)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := runtime.Apply(context.Background(), prog, runtime.Options{Inputs: vals, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != runtime.StatusFailed || !strings.Contains(res.Diagnostics.Error(), `Slack error response: \"channel_not_found\"`) {
		t.Errorf("the run %s: %s", res.Status, res.Diagnostics.Error())
	}
}
