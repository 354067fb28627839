package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Notion's Get Many as the corpus has it, every active client, and
// Update storing an ID in each
// (oxbshw+ultimate-n8n-ai-workflows/automation__1498_Stopanderror_Limit_Sync_Webhook.json,
// "Get active Clients from Notion", "Store Clockify ID in Notion"): the
// checkbox condition without a value is n8n's default, false; the pages
// are simplified as n8n does, and each is updated with the item's ID.
func TestNotionDatabasePageImported(t *testing.T) {
	getMany := `{"id": "92b717ba", "name": "Get active Clients from Notion", "type": "n8n-nodes-base.notion", "position": [480, -300], "parameters": {"filters": {"conditions": [{"key": "Archive|checkbox", "condition": "equals"}]}, "options": {}, "resource": "databasePage", "matchType": "allFilters", "operation": "getAll", "returnAll": true, "databaseId": {"__rl": true, "mode": "list", "value": "1a878e40-f803-80e4-bc79-e24747562817", "cachedResultUrl": "https://www.notion.so/1a878e40f80380e4bc79e24747562817", "cachedResultName": "Clients"}, "filterType": "manual"}, "credentials": {"notionApi": {"id": "ObmaBA0dJss3JJPv", "name": "Notion (Test)"}}, "typeVersion": 2.2}`
	update := `{"id": "ef51cbbf", "name": "Store Clockify ID in Notion", "type": "n8n-nodes-base.notion", "position": [1580, -580], "parameters": {"pageId": {"__rl": true, "mode": "id", "value": "={{ $json.id }}"}, "options": {}, "resource": "databasePage", "operation": "update", "propertiesUi": {"propertyValues": [{"key": "Clockify Client ID|rich_text", "textContent": "={{ $json.name }}"}]}}, "credentials": {"notionApi": {"id": "ObmaBA0dJss3JJPv", "name": "Notion (Test)"}}, "typeVersion": 2.2}`
	files, diags := importApp(t, appWorkflow(t, "clients", getMany, update))
	wantDiags(t, diags)
	wantIn(t, files["clients.flow.hcl"], `step "get_active_clients_from_notion" {
  use         = "flow.notion_database_page_get_many"
  for_each    = [{}]
  database_id = "1a878e40-f803-80e4-bc79-e24747562817"
  return_all  = true
  filter_type = "manual"
  match_type  = "allFilters"
  conditions = [{
    key           = "Archive|checkbox"
    type          = "checkbox"
    condition     = "equals"
    checkboxValue = false
  }]
}`, `  use         = "flow.notion_database_page_update"`, `  page_id     = each.value.id`, `secret "notion" {`)
	page := `{"object": "page", "id": "p1", "url": "https://www.notion.so/p1", "parent": {"type": "database_id", "database_id": "d"}, "properties": {"Name": {"type": "title", "title": [{"type": "text", "plain_text": "Acme"}]}, "Archive": {"type": "checkbox", "checkbox": false}}}`
	srv, reqs := standIn(t, func(r *http.Request) string {
		if r.Header.Get("Notion-Version") != "2021-08-16" {
			return `{"object": "error"}`
		}
		if r.Method == "PATCH" {
			return strings.Replace(page, `"Archive"`, `"Clockify Client ID": {"type": "rich_text", "rich_text": [{"type": "text", "plain_text": "Acme"}]}, "Archive"`, 1)
		}
		return `{"object": "list", "results": [` + page + `], "has_more": false, "next_cursor": null}`
	})
	out := runImported(t, files, "clients", map[string]string{"notion": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["store_clockify_id_in_notion"], `[{"id": "p1", "name": "Acme", "url": "https://www.notion.so/p1", "property_name": "Acme", "property_clockify_client_id": "Acme", "property_archive": false}]`)
	wantJSON(t, "requests", *reqs, `["POST /databases/1a878e40-f803-80e4-bc79-e24747562817/query {\"filter\":{\"and\":[{\"checkbox\":{\"equals\":false},\"property\":\"Archive\"}]}}",
		"PATCH /pages/p1 {\"properties\":{\"Clockify Client ID\":{\"rich_text\":[{\"text\":{\"content\":\"Acme\"}}]}}}"]`)

	// What could differ from n8n is refused at its JSON path.
	for _, c := range []struct{ from, to, diag string }{
		{`"key": "Archive|checkbox"`, `"key": "Due|date"`, "error /nodes/1/parameters/filters/conditions/0/key Unsupported parameter"},
		{`"key": "Archive|checkbox"`, `"key": "YOUR_CREDENTIAL_HERE"`, "error /nodes/1/parameters/filters/conditions/0/key Unsupported parameter"},
		{`"options": {}`, `"options": {"downloadFiles": true}`, "error /nodes/1/parameters/options/downloadFiles Unsupported option"},
		{`"filterType": "manual"`, `"filterType": "={{ 'manual' }}"`, "error /nodes/1/parameters/filterType Unsupported expression"},
		{`"operation": "getAll"`, `"operation": "archive"`, "error /nodes/1/parameters/operation Unsupported operation"},
		{`"typeVersion": 2.2`, `"typeVersion": 1`, "error /nodes/1/typeVersion Unsupported version"},
	} {
		_, diags := importApp(t, appWorkflow(t, "bad", strings.Replace(getMany, c.from, c.to, 1)))
		wantDiags(t, diags, c.diag)
	}
	for _, c := range []struct{ from, to, diag string }{
		{`"mode": "id"`, `"mode": "url"`, "error /nodes/1/parameters/pageId Unsupported parameter"},
		{`"textContent"`, `"richText": true, "textContent"`, "error /nodes/1/parameters/propertiesUi/propertyValues/0/richText Unsupported option"},
	} {
		_, diags := importApp(t, appWorkflow(t, "bad", strings.Replace(update, c.from, c.to, 1)))
		wantDiags(t, diags, c.diag)
	}
}

// Notion's Get as the corpus has it, Simplify off
// (oxbshw+ultimate-n8n-ai-workflows/automation__1897_Webhook_Filter_Sync_Webhook.json,
// "Get Notion task"): the item's page, Notion's object as it is.
func TestNotionDatabasePageGetImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {body: {data: {id: 'p1'}}}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "g1", "name": "Get Notion task", "type": "n8n-nodes-base.notion", "position": [400, 0], "parameters": {"pageId": {"__rl": true, "mode": "id", "value": "={{ $json.body.data.id }}"}, "simple": false, "resource": "databasePage", "operation": "get"}, "credentials": {"notionApi": {"id": "1", "name": "Notion"}}, "typeVersion": 2.2}`
	files, diags := importApp(t, appWorkflow(t, "get", item, node))
	wantDiags(t, diags)
	wantIn(t, files["get.flow.hcl"], `step "get_notion_task" {
  use      = "flow.notion_database_page_get"
  for_each = step.item.items
  page_id  = each.value.body.data.id
  simple   = false
}`)
	page := `{"object": "page", "id": "p1", "properties": {}}`
	srv, reqs := standIn(t, func(r *http.Request) string { return page })
	out := runImported(t, files, "get", map[string]string{"notion": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["get_notion_task"], "["+page+"]")
	wantJSON(t, "requests", *reqs, `["GET /pages/p1"]`)
}

// Notion's Create as the corpus has it, a bookmark titled with the
// item's URL
// (oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0378_Stickynote_Notion_Automate_Webhook.json,
// "Notion"), with a status and an emoji icon: the database's title
// property found first, then the page with no blocks.
func TestNotionDatabasePageCreateImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {body: {url: 'https://example.com'}}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "5441fa4b", "name": "Notion", "type": "n8n-nodes-base.notion", "position": [1080, 280], "parameters": {"title": "={{ $json.body.url }}", "options": {"icon": "🔖"}, "resource": "databasePage", "databaseId": {"__rl": true, "mode": "list", "value": "1420d3ae-bedc-4d23-a932-b402814db9d1", "cachedResultUrl": "https://www.notion.so/1420d3aebedc4d23a932b402814db9d1", "cachedResultName": "Bookmarks"}, "propertiesUi": {"propertyValues": [{"key": "Status|status", "statusValue": "New"}]}}, "typeVersion": 2.1}`
	files, diags := importApp(t, appWorkflow(t, "create", item, node))
	wantDiags(t, diags)
	srv, reqs := standIn(t, func(r *http.Request) string {
		if r.Method == "GET" {
			return `{"object": "database", "properties": {"Status": {"type": "status"}, "Link": {"type": "title"}}}`
		}
		return `{"object": "page", "id": "p9", "url": "u", "parent": {"type": "database_id"}, "properties": {"Link": {"type": "title", "title": [{"type": "text", "plain_text": "https://example.com"}]}}}`
	})
	out := runImported(t, files, "create", map[string]string{"notion": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["notion"], `[{"id": "p9", "name": "https://example.com", "url": "u", "property_link": "https://example.com"}]`)
	wantJSON(t, "requests", *reqs, `["GET /databases/1420d3ae-bedc-4d23-a932-b402814db9d1",
		"POST /pages {\"children\":[],\"icon\":{\"emoji\":\"🔖\"},\"parent\":{\"database_id\":\"1420d3ae-bedc-4d23-a932-b402814db9d1\"},\"properties\":{\"Link\":{\"title\":[{\"text\":{\"content\":\"https://example.com\"}}]},\"Status\":{\"status\":{\"name\":\"New\"},\"type\":\"status\"}}}"]`)

	blocks := strings.Replace(node, `"resource"`, `"blockUi": {"blockValues": [{"textContent": "x"}]}, "resource"`, 1)
	_, diags = importApp(t, appWorkflow(t, "bad", item, blocks))
	wantDiags(t, diags, "error /nodes/2/parameters/blockUi Unsupported option")
}
