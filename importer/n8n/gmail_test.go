package n8n_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// Gmail's Get Many, for each item, its filters read at the item. The
// node of enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__Daily_AI_digest_of_unread_emails_to_Telegram_Italian_.json
// ("Prendi email non lette").
func TestGmailGetManyImported(t *testing.T) {
	node := `{"parameters": {"operation": "getAll", "returnAll": false, "limit": 25, "filters": {"q": "is:unread newer_than:1d -category:promotions -category:social"}, "options": {}}, "id": "ddd3b1ec-3c52-4a1e-9b1d-0e8c0a8e2d5b", "name": "Prendi email non lette", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [200, 0], "credentials": {"gmailOAuth2": {"id": "1", "name": "Gmail account"}}}`
	files, diags := importApp(t, appWorkflow(t, "digest", node))
	wantDiags(t, diags, "warning /nodes/1/credentials/gmailOAuth2 OAuth2 access token")
	wantIn(t, files["digest.flow.hcl"], `step "prendi_email_non_lette" {
  use      = "flow.gmail_message_get_many"
  for_each = [{}]
  limit    = 25
  q        = "is:unread newer_than:1d -category:promotions -category:social"
}`)
	srv, _ := standIn(t, func(r *http.Request) string {
		switch r.URL.Path {
		case "/gmail/v1/users/me/messages":
			return `{"messages": [{"id": "m1", "threadId": "t1"}]}`
		case "/gmail/v1/users/me/labels":
			return `{"labels": [{"id": "UNREAD", "name": "UNREAD"}]}`
		}
		return `{"id": "m1", "threadId": "t1", "labelIds": ["UNREAD"], "snippet": "Ciao", "payload": {"headers": [{"name": "Subject", "value": "Oggi"}]}}`
	})
	out := runImported(t, files, "digest", map[string]string{"gmail": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["prendi_email_non_lette"], `[{"id": "m1", "threadId": "t1", "snippet": "Ciao", "payload": {}, "labels": [{"id": "UNREAD", "name": "UNREAD"}], "Subject": "Oggi"}]`)

	// Simplify off, and the filters on dates, are refused.
	for _, c := range []struct{ from, to, at string }{
		{`"options": {}`, `"options": {}, "simple": false`, "/nodes/1/parameters/simple"},
		{`"filters": {`, `"filters": {"receivedAfter": "2024-01-01T00:00:00", `, "/nodes/1/parameters/filters/receivedAfter"},
	} {
		_, diags := importApp(t, appWorkflow(t, "digest", strings.Replace(node, c.from, c.to, 1)))
		wantDiags(t, diags, "error "+c.at+" Unsupported option")
	}
}

// Reply's option Reply to Sender Only, left on a Send node, is ignored
// as n8n's Send ignores it. The options of Send Summary - Morning of
// enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__Email_Summary_Agent.json.
func TestGmailSendReplyOptionIgnored(t *testing.T) {
	node := `{"id": "4aa68ee8-d38f-418a-9f20-6cc76850c638", "name": "Send Summary - Morning", "type": "n8n-nodes-base.gmail", "position": [1040, 0], "parameters": {"sendTo": "team-email@example.com", "message": "<p>Summary</p>", "options": {"ccList": "cc-list@example.com", "appendAttribution": false, "replyToSenderOnly": false}, "subject": "ESAgent"}, "credentials": {"gmailOAuth2": {"id": "YFARhQXJAjbwXjSO", "name": "Vishal Gmail"}}, "typeVersion": 2.1}`
	files, diags := importApp(t, appWorkflow(t, "summary", node))
	wantDiags(t, diags, "warning /nodes/1/credentials/gmailOAuth2 OAuth2 access token")
	wantIn(t, files["summary.flow.hcl"], `  use      = "flow.gmail_message_send"
  for_each = [{}]
  send_to  = "team-email@example.com"
  subject  = "ESAgent"
  message  = "<p>Summary</p>"
  cc       = "cc-list@example.com"
}`)
}

// Add Label's labels given as a list of expressions: each read at the
// item, as n8n resolves the expressions in a list parameter (the list
// is written out in the corpus, e.g. "Add music label" of
// Zie619+n8n-workflows/workflows__Aggregate__0472_Aggregate_Gmail_Create_Triggered.json).
func TestGmailAddLabelsExpressionList(t *testing.T) {
	node := `{"parameters": {"labelIds": ["Label_6822395192337188416", "={{ $json.label }}"], "messageId": "={{ $json.id }}", "operation": "addLabels"}, "name": "Add music label", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [400, 0], "credentials": {"gmailOAuth2": {"id": "SPECSn66s6QHmld9", "name": "Gmail account"}}}`
	item := `{"parameters": {"jsCode": "return [{json: {id: '18c1', label: 'Label_2'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	files, _ := importApp(t, appWorkflow(t, "labels", item, node))
	wantIn(t, files["labels.flow.hcl"], `  label_ids  = ["Label_6822395192337188416", each.value.label]`)
}

// A node that leaves the operation out has its resource's default: a
// draft's is Create, not Send (Gmail - Create Draft of
// enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__Gmail_AI_Auto-Responder__Create_Draft_Replies_to_incoming_emails.json),
// which the error names.
func TestGmailResourceDefaultOperation(t *testing.T) {
	node := `{"parameters": {"resource": "draft", "subject": "=Re: {{ $json.subject }}", "message": "={{ $json.text }}", "options": {}}, "name": "Gmail - Create Draft", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [200, 0], "credentials": {"gmailOAuth2": {"id": "1", "name": "Gmail account"}}}`
	_, diags := importApp(t, appWorkflow(t, "draft", node))
	wantDiags(t, diags, "error /nodes/1/parameters Unsupported operation")
	_, all := importer.Import([]importer.File{{Name: "wf.json", Bytes: appWorkflow(t, "draft", node)}}, importer.Options{Partial: true})
	if len(all) == 0 || !strings.Contains(all[0].Detail, "the Gmail node's draft create operation is not converted") {
		t.Errorf("diagnostics: %v", all)
	}
}
