package n8n

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// The Telegram Trigger as the corpus's
// enescingoz+awesome-n8n-templates/Telegram__Internship_Informer.json
// has it: a webhook trigger at n8n's path for it whose body is the
// update, the node's one item; it verifies nothing (a warning says so)
// and Next says how to register it with Telegram.
func TestTelegramTrigger(t *testing.T) {
	trigger := `"parameters": {"updates": ["message"], "additionalFields": {}}, "type": "n8n-nodes-base.telegramTrigger", "typeVersion": 1.2, "id": "cbb919ec-160f-439d-b2d4-fd581ed0ecd5", "name": "Telegram Trigger", "webhookId": "de03b2ad-85a1-463a-9a1a-6e3c307de84a", "credentials": {"telegramApi": {"id": "9cIs4u9GE5MJl8oy", "name": "Internships Bot"}}`
	echo := `"name": "Echo", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "text", "value": "={{ $('Telegram Trigger').item.json.message.text }}", "type": "string"}]}}`
	src := workflow("w", trigger, echo)
	res, diags := importWhole(t, src)
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	flow := squash(mustValidate(t, src))
	wantText(t, flow,
		`input "telegram_trigger_update" { type = any default = null`,
		`path = "/webhook/de03b2ad-85a1-463a-9a1a-6e3c307de84a/webhook"`,
		`method = "POST"`,
		`verify = "none"`,
		`inputs = { telegram_trigger_update = request.body }`,
		`respond = "accepted"`,
		`for_each = (input.telegram_trigger_update != null ? [input.telegram_trigger_update] : [])`,
	)
	if !hasDiag(diags, hcl.DiagWarning, "Webhook without verification") {
		t.Errorf("no warning that the webhook verifies nothing: %v", diags)
	}
	if len(res.Next) != 1 || !strings.Contains(res.Next[0], `setWebhook with {"url": "https://YOUR-SERVER/webhook/de03b2ad-85a1-463a-9a1a-6e3c307de84a/webhook", "allowed_updates": ["message"]}`) {
		t.Errorf("next: %q", res.Next)
	}

	// From v1.2, Restrict to Chat IDs and User IDs drop the other updates.
	restricted := strings.Replace(trigger, `"additionalFields": {}`, `"additionalFields": {"chatIds": "12, -100345", "userIds": "7"}`, 1)
	flow = squash(mustValidate(t, workflow("w", restricted, echo)))
	wantText(t, flow, `((input.telegram_trigger_update == null ? false : contains(["12", "-100345"], try(tostring(input.telegram_trigger_update.message.chat.id), "undefined")) && contains(["7"], try(tostring(input.telegram_trigger_update.message.from.id), "undefined"))) ? [input.telegram_trigger_update] : [])`)
	// Before, n8n keeps every update.
	flow = squash(mustValidate(t, workflow("w", strings.Replace(restricted, `"typeVersion": 1.2`, `"typeVersion": 1.1`, 1), echo)))
	if strings.Contains(flow, "contains(") {
		t.Errorf("v1.1 restricts the updates:\n%s", flow)
	}

	// Downloading the update's files is refused at its JSON path.
	_, diags = importWhole(t, workflow("w", strings.Replace(trigger, `"additionalFields": {}`, `"additionalFields": {"download": true}`, 1), echo))
	if !hasDiag(diags, hcl.DiagError, "Unsupported option") {
		t.Errorf("download not refused: %v", diags)
	}
}

// wantText checks that text holds each part, spaces aside.
func wantText(t *testing.T, text string, parts ...string) {
	t.Helper()
	flat := strings.Join(strings.Fields(text), " ")
	for _, p := range parts {
		if !strings.Contains(flat, strings.Join(strings.Fields(p), " ")) {
			t.Errorf("the flow lacks %q:\n%s", p, text)
		}
	}
}

// Send Message as the corpus's nodes have it: a v1.2 node replying to the
// trigger's chat (enescingoz+awesome-n8n-templates/Telegram__Internship_Informer.json,
// "Resend failed message"), and a v1.1 node with an inline keyboard and
// HTML (…/Telegram__ResumeBot.json, "Telegram Chat Reply", its text
// trimmed). Each is a step using the registry's flow for each item, the
// bot token a secret; v1.2 sends no link preview, and n8n's attribution
// is appended unless turned off, with a warning.
func TestTelegramSendMessage(t *testing.T) {
	trigger := `"parameters": {"updates": ["message"], "additionalFields": {}}, "type": "n8n-nodes-base.telegramTrigger", "typeVersion": 1.2, "name": "Telegram Trigger", "webhookId": "de03b2ad", "credentials": {"telegramApi": {"id": "9cIs4u9GE5MJl8oy", "name": "Internships Bot"}}`
	resend := `"parameters": {"chatId": "={{ $('Telegram Trigger').item.json.message.chat.id }}", "text": "={{ $('Telegram Trigger').item.json.message.text }}", "additionalFields": {}}, "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "name": "Resend failed message", "webhookId": "067167a9", "credentials": {"telegramApi": {"id": "9cIs4u9GE5MJl8oy", "name": "Internships Bot"}}`
	src := workflow("w", trigger, resend)
	res, diags := importWhole(t, src)
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	flow := mustValidate(t, src)
	wantText(t, flow,
		`secret "telegram" {`,
		`step "resend_failed_message" { use = "flow.telegram_message_send"`,
		`chat_id = (input.telegram_trigger_update != null ? [input.telegram_trigger_update] : [])[each.key].message.chat.id`,
		`text = (input.telegram_trigger_update != null ? [input.telegram_trigger_update] : [])[each.key].message.text`,
		`disable_web_page_preview = true`,
		`append_attribution = true`,
	)
	if !hasDiag(diags, hcl.DiagWarning, "n8n attribution appended") {
		t.Errorf("no warning of the attribution: %v", diags)
	}
	written := false
	for _, f := range res.Files {
		written = written || f.Name == "telegram_message_send.flow.hcl"
	}
	if !written {
		t.Errorf("the registry's flow is not written beside the flow")
	}

	reply := `"parameters": {"chatId": "={{ ($('Telegram Trigger').item.json.callback_query ? $('Telegram Trigger').item.json.callback_query.message.chat.id : $('Telegram Trigger').item.json.message.chat.id) }}", "text": "Done", "replyMarkup": "inlineKeyboard", "inlineKeyboard": {"rows": [{"row": {"buttons": [{"text": "View Profile", "additionalFields": {"callback_data": "/view"}}, {"text": "Download PDF", "additionalFields": {"callback_data": "/download"}}]}}]}, "additionalFields": {"appendAttribution": false, "disable_web_page_preview": true, "parse_mode": "HTML"}}, "name": "Telegram Chat Reply", "type": "n8n-nodes-base.telegram", "typeVersion": 1.1, "credentials": {"telegramApi": {"id": "C4WFoCaBCTYvtSS5", "name": "AI Agent Bot"}}`
	res, diags = importWhole(t, workflow("w", trigger, reply))
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	flow = flowText(t, res)
	wantText(t, flow,
		`text = "Done"`,
		`parse_mode = "HTML"`,
		`disable_web_page_preview = true`,
		`reply_markup = { inline_keyboard = [[{ text = "View Profile" callback_data = "/view" }, { text = "Download PDF" callback_data = "/download" }]] }`,
	)
	if strings.Contains(flow, "append_attribution") || hasDiag(diags, hcl.DiagWarning, "n8n attribution appended") {
		t.Errorf("the attribution turned off is appended:\n%s", flow)
	}

	// What is not converted is an error naming the node and operation.
	_, diags = importWhole(t, workflow("w", trigger, strings.Replace(resend, `"additionalFields": {}}`, `"additionalFields": {}, "resource": "file", "fileId": "x"}`, 1)))
	if !hasDiag(diags, hcl.DiagError, "Unsupported operation") {
		t.Errorf("file get converted: %v", diags)
	}
}

// A Send Message without a Chat ID (the corpus's
// oxbshw+ultimate-n8n-ai-workflows/automation__1945_Telegram_Schedule_Import_Scheduled.json)
// is an error at the node: n8n sends the request without one, which the
// Bot API refuses; it wrote a flow that did not validate.
func TestTelegramWithoutChatID(t *testing.T) {
	node := `"parameters": {"text": "={{ $json.q }}", "additionalFields": {"appendAttribution": false}}, "name": "Telegram", "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "credentials": {"telegramApi": {"id": "1", "name": "Bot"}}`
	_, diags := importWhole(t, workflow("w", setData, node))
	if !hasDiag(diags, hcl.DiagError, "Missing parameter") {
		t.Errorf("no error: %v", diags)
	}
}

// Send Photo by URL as the corpus's node has it
// (Zie619+n8n-workflows/workflows__Http__1043_HTTP_Telegram_Send_Webhook.json,
// "Telegram", its expressions trimmed): the registry's send-file flow
// with the kind, the file and the caption; binary data is an error.
func TestTelegramSendPhoto(t *testing.T) {
	photo := `"name": "Telegram", "type": "n8n-nodes-base.telegram", "parameters": {"file": "={{ $json.q }}", "chatId": "-485396236", "operation": "sendPhoto", "additionalFields": {"caption": "={{ $json.q }}"}}, "credentials": {"telegramApi": "telegram-bot"}, "typeVersion": 1`
	wantText(t, mustValidate(t, workflow("w", setData, photo)),
		`step "telegram" { use = "flow.telegram_message_send_file"`,
		`kind = "photo"`, `chat_id = "-485396236"`, `file = each.value.q`, `caption = each.value.q`)
	_, diags := importWhole(t, workflow("w", setData, strings.Replace(photo, `"operation": "sendPhoto"`, `"operation": "sendPhoto", "binaryData": true`, 1)))
	if !hasDiag(diags, hcl.DiagError, "Unsupported option") {
		t.Errorf("binary data converted: %v", diags)
	}
}
