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
