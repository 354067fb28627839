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
		`access_token = secret.airtable_personal_access_token_account`,
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
