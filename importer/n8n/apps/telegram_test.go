package apps

import (
	"encoding/json"
	"reflect"
	"testing"
)

// wantTelegram checks the requests a Telegram flow sends: POSTs to
// /botTOKEN/METHOD with a JSON body (compared as JSON) and no
// Authorization header.
func wantTelegram(t *testing.T, got []apiRequest, method string, body string) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("requests: %+v", got)
	}
	r := got[0]
	if r.Method != "POST" || r.Path != "/botya29.token/"+method || r.Auth != "" || r.Type != "application/json" || r.Accept != "application/json" {
		t.Errorf("request: %+v", r)
	}
	var g, w any
	if err := json.Unmarshal([]byte(r.Body), &g); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	w = jsonOf(t, body)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("body:\n got %s\nwant %s", r.Body, body)
	}
}

// Send Message as n8n's Telegram node sends it (Telegram.node.js,
// GenericFunctions.js addAdditionalFields): Markdown by default, no link
// preview when the text has no link, n8n's attribution appended in the
// parse mode's markup; the item is the API's answer.
func TestTelegramMessageSend(t *testing.T) {
	answer := `{"ok": true, "result": {"message_id": 42, "chat": {"id": -100345, "type": "group"}, "text": "hi"}}`
	link := "https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.telegram"
	for _, c := range []struct {
		name   string
		inputs map[string]any
		body   string
	}{
		{"plain", map[string]any{"chat_id": -100345, "text": "hi"},
			`{"chat_id": -100345, "text": "hi", "parse_mode": "Markdown", "disable_web_page_preview": true}`},
		{"link", map[string]any{"chat_id": "@news", "text": "see example.com"},
			`{"chat_id": "@news", "text": "see example.com", "parse_mode": "Markdown"}`},
		{"attribution", map[string]any{"chat_id": 7, "text": "hi", "append_attribution": true},
			`{"chat_id": 7, "text": "hi\n\n_This message was sent automatically with _[n8n](` + link + `)", "parse_mode": "Markdown", "disable_web_page_preview": true}`},
		{"html", map[string]any{"chat_id": 7, "text": "<b>hi</b> www.x", "parse_mode": "HTML", "append_attribution": true, "disable_web_page_preview": false,
			"reply_to_message_id": 5, "reply_markup": map[string]any{"inline_keyboard": [][]map[string]any{{{"text": "Retry", "callback_data": "/retry"}}}}},
			`{"chat_id": 7, "text": "<b>hi</b> www.x\n\n<em>This message was sent automatically with </em><a href=\"` + link + `\" target=\"_blank\">n8n</a>", "parse_mode": "HTML",
			  "disable_web_page_preview": false, "reply_to_message_id": 5, "reply_markup": {"inline_keyboard": [[{"text": "Retry", "callback_data": "/retry"}]]}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reqs := runFlow(t, "telegram_message_send", c.inputs, replyJSON(answer))
			wantTelegram(t, reqs, "sendMessage", c.body)
			wantItems(t, out, "["+answer+"]")
		})
	}
}

// Delete Chat Message and Send Chat Action: their method with chat_id
// and the message or the action; the item is the API's answer.
func TestTelegramDeleteAndAction(t *testing.T) {
	answer := `{"ok": true, "result": true}`
	out, reqs := runFlow(t, "telegram_message_delete", map[string]any{"chat_id": 12, "message_id": 99}, replyJSON(answer))
	wantTelegram(t, reqs, "deleteMessage", `{"chat_id": 12, "message_id": 99}`)
	wantItems(t, out, "["+answer+"]")
	out, reqs = runFlow(t, "telegram_chat_action", map[string]any{"chat_id": "12"}, replyJSON(answer))
	wantTelegram(t, reqs, "sendChatAction", `{"chat_id": "12", "action": "typing"}`)
	wantItems(t, out, "["+answer+"]")
}

// Send Photo (Send Video…) by URL or file_id, as n8n's Telegram node
// sends it without binary data: send<Kind> with the file in the field of
// its kind and the additional fields as they are.
func TestTelegramMessageSendFile(t *testing.T) {
	answer := `{"ok": true, "result": {"message_id": 43, "photo": [{"file_id": "AgAC"}]}}`
	out, reqs := runFlow(t, "telegram_message_send_file", map[string]any{"kind": "photo", "chat_id": "-485396236",
		"file": "https://img.example.org/margarita.jpg", "caption": "Margarita", "reply_to_message_id": 7}, replyJSON(answer))
	wantTelegram(t, reqs, "sendPhoto", `{"chat_id": "-485396236", "photo": "https://img.example.org/margarita.jpg", "caption": "Margarita", "reply_to_message_id": 7}`)
	wantItems(t, out, "["+answer+"]")
	_, reqs = runFlow(t, "telegram_message_send_file", map[string]any{"kind": "video", "chat_id": 5, "file": "BAAC"}, replyJSON(answer))
	wantTelegram(t, reqs, "sendVideo", `{"chat_id": 5, "video": "BAAC"}`)
}
