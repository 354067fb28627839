package n8n

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// App triggers trimmed from the corpus (their notes left out).
const (
	// Zie619+n8n-workflows/workflows__Github__0264_GitHub_Stickynote_Create_Triggered.json
	githubTriggerNode = `"id": "62e1a9d3-3fc6-46de-a048-cf8176f30f94", "name": "Trigger on issues", "type": "n8n-nodes-base.githubTrigger", "position": [860, 500], "webhookId": "bc0a0a44-00db-473b-8746-b60b3b36039c", "parameters": {"owner": "John-n8n", "events": ["issues"], "repository": "DemoRepo"}, "credentials": {"githubApi": {"id": "{{ $credentials.githubApi.id }}", "name": "[UPDATE ME]"}}, "typeVersion": 1`
	// Zie619+n8n-workflows/workflows__Http__1773_HTTP_Stripe_Sync_Webhook.json
	stripeTriggerNode = `"id": "90322fe5-5536-41c3-ac08-ea87a856781b", "name": "Stripe Trigger on Payment Event", "type": "n8n-nodes-base.stripeTrigger", "position": [0, 0], "webhookId": "e85ac894-bb67-436c-ad39-308a00c8e922", "parameters": {"events": ["checkout.session.completed"]}, "credentials": {"stripeApi": {"id": "ClCB0WooGxls3WGM", "name": "Stripe Test"}}, "typeVersion": 1`
	// Zie619+n8n-workflows/workflows__Chargebee__0041_Chargebee_Update_Triggered.json
	chargebeeTriggerNode = `"name": "Chargebee Trigger", "type": "n8n-nodes-base.chargebeeTrigger", "position": [700, 250], "parameters": {"events": ["*"]}, "typeVersion": 1, "id": "424adac1-3fd3-4961-809a-9c771eafed71"`
	// Zie619+n8n-workflows/workflows__Postmark__0968_Postmark_Update_Triggered.json
	postmarkTriggerNode = `"name": "Postmark Trigger", "type": "n8n-nodes-base.postmarkTrigger", "position": [690, 260], "webhookId": "1422ac7a-62ba-4f7c-8e22-4e8ecb4950ce", "parameters": {"events": ["bounce", "open"], "includeContent": true}, "credentials": {"postmarkApi": "postmark"}, "typeVersion": 1, "id": "a7371d75-4da7-44aa-b1a4-e2057e7a35f9"`
	// enescingoz+awesome-n8n-templates/Other_Integrations_and_Use_Cases__Handling_Appointment_Leads_and_Follow-up_With_Twilio_Cal.com_and_AI.json
	twilioTriggerNode = `"id": "f55b3110-f960-4d89-afba-d47bc58102eb", "name": "Twilio Trigger", "type": "n8n-nodes-base.twilioTrigger", "position": [100, 180], "webhookId": "bfc8f587-8183-46f8-9e76-3576caddf8c0", "parameters": {"updates": ["com.twilio.messaging.inbound-message.received"]}, "credentials": {"twilioApi": {"id": "TJv4H4lXxPCLZT50", "name": "Twilio account"}}, "typeVersion": 1`
	// oxbshw+ultimate-n8n-ai-workflows/automation__1895_Gitlab_Code_Automation_Webhook.json
	gitlabTriggerNode = `"id": "2ddc9aa2-3673-4b64-8ffb-ba7428b67dbe", "name": "GitLab Trigger", "type": "n8n-nodes-base.gitlabTrigger", "position": [0, 300], "webhookId": "fb878391-270b-47d8-addf-2917c71a3e09", "parameters": {"owner": "vishalkumar1", "events": ["merge_requests"], "repository": "istorefront_server"}, "credentials": {"gitlabApi": {"id": "tRWT5f3LnLNRPulP", "name": "Gitlab overall"}}, "typeVersion": 1`
	// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__communication__1255-send-notification-when-deployment-fails__workflow.json
	netlifyTriggerNode = `"name": "Netlify Trigger", "type": "n8n-nodes-base.netlifyTrigger", "position": [450, 300], "webhookId": "0654820c-1960-4c8b-80fc-c0a66ab96577", "parameters": {"event": "deployFailed", "siteId": "ab52947e-a696-4498-a5a1-fae7fbe30c84"}, "credentials": {"netlifyApi": "Netlify account"}, "typeVersion": 1`
	// Zie619+n8n-workflows/workflows__Jira__1035_Jira_Automate_Triggered.json
	jiraTriggerNode = `"name": "Jira Trigger", "type": "n8n-nodes-base.jiraTrigger", "position": [880, 400], "webhookId": "a3ddaf66-7f75-4494-b435-ef88ef1f1917", "parameters": {"events": ["*"], "additionalFields": {}}, "credentials": {"jiraSoftwareCloudApi": "n8n"}, "typeVersion": 1, "id": "e2f82076-1d3e-4ed9-8718-3f772d52d6d8"`
)

// Each app trigger is a webhook trigger at n8n's path for it, with the
// signature n8n checks (GitHub's and Stripe's, with a secret) or none
// (a warning says so), the events n8n drops as its when, and the item
// n8n's webhook() gives; a warning and the next steps say what to
// register at the service, which n8n does itself.
func TestAppTriggers(t *testing.T) {
	echo := `"name": "Echo", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "parameters": {}`
	for _, c := range []struct {
		node    string
		want    []string
		verify  bool
		next    string
		notWant string
	}{
		{githubTriggerNode, []string{
			`path = "/webhook/bc0a0a44-00db-473b-8746-b60b3b36039c/webhook"`,
			`verify = "github" secret = secret.trigger_on_issues_secret }`,
			`inputs = { trigger_on_issues_event = { body = request.body, headers = request.headers, query = request.query } }`,
			`when = contains(["issues"], lookup(request.headers, "x-github-event", "")) && !(can(request.body.hook_id) && !can(request.body.action))`,
			`respond = "accepted"`,
		}, true, `register https://YOUR-SERVER/webhook/bc0a0a44-00db-473b-8746-b60b3b36039c/webhook at GitHub for the repository John-n8n/DemoRepo for the events issues, with the secret you set as secret.trigger_on_issues_secret`, ""},
		{stripeTriggerNode, []string{
			`verify = "stripe" secret = secret.stripe_trigger_on_payment_event_secret tolerance = "5m"`,
			`inputs = { stripe_trigger_on_payment_event_event = request.body }`,
			`when = contains(["checkout.session.completed"], try(request.body.type, ""))`,
		}, true, "at Stripe for the events checkout.session.completed", ""},
		{chargebeeTriggerNode, []string{
			`path = "/webhook/chargebee_trigger/webhook"`,
			`verify = "none"`,
			`when = can(request.body.event_type)`,
		}, false, "at Chargebee for every event", ""},
		{postmarkTriggerNode, []string{
			`verify = "none"`,
			`inputs = { postmark_trigger_event = request.body }`,
		}, false, "at Postmark for the events bounce, open", "when ="},
		{twilioTriggerNode, []string{
			`inputs = { twilio_trigger_event = request.body }`,
			// A sink posts a list of events, each an item.
			`== null ? [] : flatten([input.twilio_trigger_event])`,
		}, false, "at Twilio for the events com.twilio.messaging.inbound-message.received", "when ="},
		{gitlabTriggerNode, []string{
			`inputs = { git_lab_trigger_event = { body = request.body, headers = request.headers, query = request.query } }`,
			`(input.git_lab_trigger_event == null ? [] : [input.git_lab_trigger_event])`,
		}, false, "at GitLab for the repository vishalkumar1/istorefront_server for the events merge_requests", "when ="},
		{netlifyTriggerNode, []string{
			`inputs = { netlify_trigger_event = request.body }`,
			`(input.netlify_trigger_event == null ? [] : flatten([input.netlify_trigger_event]))`,
		}, false, "at Netlify for the events deployFailed", "when ="},
		{jiraTriggerNode, []string{
			`inputs = { jira_trigger_event = merge(request.body, request.query) }`,
		}, false, "at Jira for every event", "when ="},
	} {
		src := workflow("w", c.node, echo)
		res, diags := importWhole(t, src)
		if res == nil {
			t.Errorf("import failed: %v", diags)
			continue
		}
		flow := squash(mustValidate(t, src))
		wantText(t, flow, c.want...)
		wantText(t, flow, `== null ? [] : `)
		if c.notWant != "" && strings.Contains(flow, c.notWant) {
			t.Errorf("the flow has %q:\n%s", c.notWant, flow)
		}
		if got := hasDiag(diags, hcl.DiagWarning, "Webhook without verification"); got == c.verify {
			t.Errorf("warning of no verification %v for a trigger that verifies: %v", got, c.verify)
		}
		if !hasDiag(diags, hcl.DiagWarning, "Webhook registered by hand") || len(res.Next) != 1 || !strings.Contains(res.Next[0], c.next) {
			t.Errorf("next: %q, want %q (%v)", res.Next, c.next, diags)
		}
	}

	// Every event: the ping alone starts nothing.
	flow := squash(mustValidate(t, workflow("w", strings.Replace(githubTriggerNode, `["issues"]`, `["*"]`, 1), echo)))
	wantText(t, flow, `when = !(can(request.body.hook_id) && !can(request.body.action))`)

	// A form's submission, simplified: its data.
	flow = squash(mustValidate(t, workflow("w", strings.Replace(netlifyTriggerNode, `"event": "deployFailed"`, `"event": "submissionCreated"`, 1), echo)))
	wantText(t, flow, `inputs = { netlify_trigger_event = request.body.data }`)
	flow = squash(mustValidate(t, workflow("w", strings.Replace(netlifyTriggerNode, `"event": "deployFailed"`, `"event": "submissionCreated", "simple": false`, 1), echo)))
	wantText(t, flow, `inputs = { netlify_trigger_event = request.body }`)

	// Jira's incoming authentication compares a query parameter.
	_, diags := importWhole(t, workflow("w", strings.Replace(jiraTriggerNode, `"additionalFields": {}`, `"incomingAuthentication": "queryAuth"`, 1), echo))
	if d := findDiag(diags, "Unsupported webhook authentication"); d == nil || !strings.Contains(d.Detail, "/nodes/0/parameters/incomingAuthentication") {
		t.Errorf("query auth: %v", diags)
	}
	// Events as an expression.
	_, diags = importWhole(t, workflow("w", strings.Replace(stripeTriggerNode, `["checkout.session.completed"]`, `"={{ $json.x }}"`, 1), echo))
	if d := findDiag(diags, "Unsupported expression"); d == nil || !strings.Contains(d.Detail, "/nodes/0/parameters/events") {
		t.Errorf("events as an expression: %v", diags)
	}
}
