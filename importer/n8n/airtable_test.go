package n8n

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// Airtable's Search as the corpus's nodes have it: every record a
// formula selects (Zie619+n8n-workflows/workflows__Code__1429_Code_Schedule_Send_Scheduled.json,
// "Search daily"), and a limit
// (…/workflows__Aggregate__1404_Aggregate_Telegram_Automation_Triggered.json,
// "Airtable"): a step using the registry's flow for each item, the base
// and the table read for the first item, the token a secret.
func TestAirtableSearch(t *testing.T) {
	daily := `"name": "Search daily", "type": "n8n-nodes-base.airtable", "parameters": {"base": {"__rl": true, "mode": "list", "value": "appL3dptT6ZTSzY9v", "cachedResultUrl": "{{ $env.WEBHOOK_URL }}", "cachedResultName": "Scheduled Emails"}, "table": {"__rl": true, "mode": "list", "value": "tblzR9vSuFUzlQNMI", "cachedResultUrl": "{{ $env.WEBHOOK_URL }}", "cachedResultName": "Table 1"}, "options": {}, "operation": "search", "filterByFormula": "AND({Status} = 'active', {Interval} = 'daily')"}, "credentials": {"airtableTokenApi": {"id": "Und0frCQ6SNVX3VV", "name": "Airtable Personal Access Token account"}}, "typeVersion": 2.1`
	flow := mustValidate(t, workflow("w", setData, daily))
	wantText(t, flow,
		`step "search_daily" { use = "flow.airtable_record_search"`,
		`secret "airtable" {`,
		`base = "appL3dptT6ZTSzY9v"`,
		`table = "tblzR9vSuFUzlQNMI"`,
		`filter_by_formula = "AND({Status} = 'active', {Interval} = 'daily')"`,
	)
	if strings.Contains(flow, "limit") {
		t.Errorf("Return All (n8n's default) has a limit:\n%s", flow)
	}

	limited := `"parameters": {"operation": "search", "base": {"__rl": true, "value": "={{ $json.q }}", "mode": "id"}, "table": {"__rl": true, "value": "https://airtable.com/appoBzMsCIm3Bno0X/tblb5AH2UtMVj3HLZ/viwX", "mode": "url"}, "returnAll": false, "limit": 50, "options": {"fields": "Name, Score"}, "sort": {"property": [{"field": "Score", "direction": "desc"}]}}, "type": "n8n-nodes-base.airtable", "typeVersion": 2.1, "name": "Airtable", "credentials": {"airtableTokenApi": {"id": "halRA2KiS4b7O1X0", "name": "Airtable Personal Access Token account"}}`
	wantText(t, mustValidate(t, workflow("w", setData, limited)),
		`base = (step.data[*].value)[0].q`,
		`table = "tblb5AH2UtMVj3HLZ"`,
		`limit = 50`,
		`fields = ["Name", "Score"]`,
		`sort = [{ field = "Score" direction = "desc" }]`,
	)

	// Other operations are errors naming the node and the operation.
	_, diags := importWhole(t, workflow("w", setData, strings.Replace(daily, `"operation": "search"`, `"operation": "deleteRecord"`, 1)))
	if !hasDiag(diags, hcl.DiagError, "Unsupported operation") {
		t.Errorf("delete converted: %v", diags)
	}
}

// Create and Update as the corpus's nodes have them
// (Zie619+n8n-workflows/workflows__Airtable__0756_Airtable_Create_Triggered.json,
// "add to airtable"; …/workflows__Code__1109_Code_Schedule_Automation_Scheduled.json,
// "Update Airtable", matching on the record's id, its schema trimmed):
// the columns as the flow's fields, each of its column's type as n8n's
// resource mapper converts it; a date column is an error.
func TestAirtableCreateUpdate(t *testing.T) {
	create := `"name": "add to airtable", "type": "n8n-nodes-base.airtable", "parameters": {"base": {"__rl": true, "mode": "list", "value": "app994hU3fOw0ssrx"}, "table": {"__rl": true, "mode": "list", "value": "tbldwJrCK2HmAeknA"}, "columns": {"value": {"Name": "={{ $json.q }}", "Category": "Prompts", "Uses": "3"}, "schema": [{"id": "Name", "type": "string"}, {"id": "Category", "type": "string"}, {"id": "Uses", "type": "number"}], "mappingMode": "defineBelow", "matchingColumns": []}, "options": {}, "operation": "create"}, "credentials": {"airtableTokenApi": {"id": "CAa937hASXcJZWTv", "name": "Airtable token"}}, "typeVersion": 2.1`
	wantText(t, mustValidate(t, workflow("w", setData, create)),
		`step "add_to_airtable" { use = "flow.airtable_record_create"`,
		`fields = { Name = each.value.q Category = "Prompts" Uses = 3 }`)

	update := `"name": "Update Airtable", "type": "n8n-nodes-base.airtable", "parameters": {"base": {"__rl": true, "mode": "list", "value": "appgNpFtbtaGHM4g0"}, "table": {"__rl": true, "mode": "list", "value": "tblwBVudDpOMkUGKL"}, "columns": {"value": {"id": "={{ $json.q }}", "Status": true, "Main Idea": "={{ $json.q }}", "Done": "={{ $json.q }}"}, "schema": [{"id": "id", "type": "string"}, {"id": "Main Idea", "type": "string"}, {"id": "Status", "type": "boolean"}, {"id": "Done", "type": "boolean"}], "mappingMode": "defineBelow", "matchingColumns": ["id"]}, "options": {"typecast": true}, "operation": "update"}, "credentials": {"airtableTokenApi": {"id": "g540vJVYsNT8ZS11", "name": "Airtable token"}}, "typeVersion": 2.1`
	wantText(t, mustValidate(t, workflow("w", setData, update)),
		`step "update_airtable" { use = "flow.airtable_record_update"`,
		`typecast = tobool(true)`,
		`id = tostring(each.value.q)`,
		`Status = true`,
		`"Main Idea" = each.value.q`,
		`Done = (lower(tostring(each.value.q)) == "true" ? true : lower(tostring(each.value.q)) == "false" ? false : tonumber(each.value.q) == 1 ? true : tonumber(each.value.q) == 0 ? false : tobool(each.value.q))`)

	for _, c := range []struct{ from, to, diag string }{
		{`"type": "number"`, `"type": "dateTime"`, "Unsupported field type"},
		{`"Uses": "3"`, `"Uses": "three"`, "Invalid value"},
	} {
		_, diags := importWhole(t, workflow("w", setData, strings.Replace(create, c.from, c.to, 1)))
		if !hasDiag(diags, hcl.DiagError, c.diag) {
			t.Errorf("%s: no %s: %v", c.to, c.diag, diags)
		}
	}
	_, diags := importWhole(t, workflow("w", setData, strings.Replace(update, `"matchingColumns": ["id"]`, `"matchingColumns": ["Main Idea"]`, 1)))
	if !hasDiag(diags, hcl.DiagError, "Unsupported option") {
		t.Errorf("matching on a column converted: %v", diags)
	}
}

// A Loop Over Items around app nodes is made one pass: Telegram, Slack,
// Airtable and Gmail's Add Label run their operation once for each item (as in the corpus's
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__communication__772-send-bulk-messages-to-chats-in-telegram__workflow.json);
// an Airtable node whose base comes from an expression reads it for a
// batch's first item, so that loop stays a diagnostic.
func TestAppNodesInLoop(t *testing.T) {
	loop := func(node string) string {
		return `{"name": "w", "nodes": [
	  {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
	  {` + setData + `},
	  {"name": "Loop", "type": "n8n-nodes-base.splitInBatches", "typeVersion": 3, "parameters": {}},
	  {` + node + `}],
	  "connections": {"Start": {"main": [[{"node": "Data"}]]}, "Data": {"main": [[{"node": "Loop"}]]}, "Loop": {"main": [[], [{"node": "App"}]]}, "App": {"main": [[{"node": "Loop"}]]}}}`
	}
	send := `"name": "App", "type": "n8n-nodes-base.telegram", "typeVersion": 1.2, "parameters": {"chatId": "={{ $json.q }}", "text": "hi", "additionalFields": {"appendAttribution": false}}, "credentials": {"telegramApi": {"id": "1", "name": "Bot"}}`
	res, diags := importWhole(t, loop(send))
	if res == nil || !hasDiag(diags, hcl.DiagWarning, "Loop as one pass") {
		t.Errorf("the loop is not one pass: %v", diags)
	}
	search := `"name": "App", "type": "n8n-nodes-base.airtable", "typeVersion": 2.1, "parameters": {"operation": "search", "base": {"__rl": true, "mode": "id", "value": "={{ $json.q }}"}, "table": {"__rl": true, "mode": "id", "value": "tbl1"}, "options": {}}, "credentials": {"airtableTokenApi": {"id": "1", "name": "Airtable"}}`
	_, diags = importWhole(t, loop(search))
	if !hasDiag(diags, hcl.DiagError, "Unsupported loop") {
		t.Errorf("an Airtable base by expression in a loop made one pass: %v", diags)
	}
	res, diags = importWhole(t, loop(strings.Replace(search, `"={{ $json.q }}"`, `"app1"`, 1)))
	if res == nil || !hasDiag(diags, hcl.DiagWarning, "Loop as one pass") {
		t.Errorf("the loop is not one pass: %v", diags)
	}
	// Gmail's Add Label too (…/workflows__ai-agents__0442_Splitout_Schedule_Send_Scheduled.json).
	label := `"name": "App", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "parameters": {"operation": "addLabels", "messageId": "={{ $json.q }}", "labelIds": ["Label_1"]}, "credentials": {"gmailOAuth2": {"id": "1", "name": "Gmail"}}`
	res, diags = importWhole(t, loop(label))
	if res == nil || !hasDiag(diags, hcl.DiagWarning, "Loop as one pass") {
		t.Errorf("the loop is not one pass: %v", diags)
	}
}
