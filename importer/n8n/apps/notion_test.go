package apps

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// notionPages are two pages of a database as Notion's API gives them:
// every kind of property the simplification reads, and some it drops
// (a unique ID, a created_by without a name, a rollup it does not
// read, an empty status).
const notionPages = `[{"object":"page","id":"1a878e40-f803-8011-9a3c-c8d5e2a1b001","created_time":"2025-02-20T10:00:00.000Z","url":"https://www.notion.so/Acme-1a878e40f80380119a3cc8d5e2a1b001","parent":{"type":"database_id","database_id":"1a878e40-f803-80e4-bc79-e24747562817"},"archived":false,"properties":{
 "Name":{"id":"title","type":"title","title":[{"type":"text","text":{"content":"Acme "},"plain_text":"Acme "},{"type":"mention","mention":{"type":"user"},"plain_text":"@Ann"},{"type":"text","text":{"content":"Corp"},"plain_text":"Corp"}]},
 "Clockify Client ID":{"id":"a1","type":"rich_text","rich_text":[]},
 "Status":{"id":"a2","type":"status","status":{"id":"s1","name":"In progress","color":"blue"}},
 "Archive":{"id":"a3","type":"checkbox","checkbox":false},
 "Priority":{"id":"a4","type":"select","select":null},
 "Tags":{"id":"a5","type":"multi_select","multi_select":[{"id":"t1","name":"vip"},{"id":"t2","name":"eu"}]},
 "Clients":{"id":"a6","type":"relation","relation":[{"id":"1a878e40-f803-80e6-8df1-cf50776752da"}],"has_more":false},
 "Hours":{"id":"a7","type":"number","number":12.5},
 "Due Date":{"id":"a8","type":"date","date":{"start":"2025-03-01","end":null,"time_zone":null}},
 "Owner":{"id":"a9","type":"people","people":[{"object":"user","id":"u1","person":{"email":"ann@example.com"}},{"object":"user","id":"u2"}]},
 "Score":{"id":"b1","type":"formula","formula":{"type":"number","number":3}},
 "Task Count":{"id":"b2","type":"rollup","rollup":{"type":"number","number":0.5,"function":"percent_checked"}},
 "Task Names":{"id":"b3","type":"rollup","rollup":{"type":"array","function":"show_unique","array":[{"type":"title","title":[{"type":"text","plain_text":"A"}]},{"type":"title","title":[{"type":"text","plain_text":"A"}]}]}},
 "Files":{"id":"b4","type":"files","files":[{"name":"cv.pdf","type":"external","external":{"url":"https://example.com/cv.pdf"}}]},
 "Website":{"id":"b5","type":"url","url":null},
 "Ticket":{"id":"b6","type":"unique_id","unique_id":{"prefix":"T","number":7}},
 "Created by":{"id":"b7","type":"created_by","created_by":{"object":"user","id":"u1"}},
 "TaskID2":{"id":"b8","type":"phone_number","phone_number":"+1 555"}}},
 {"object":"page","id":"1a878e40-f803-8011-9a3c-c8d5e2a1b002","url":"https://www.notion.so/2","parent":{"type":"database_id","database_id":"1a878e40-f803-80e4-bc79-e24747562817"},"properties":{"Name":{"id":"title","type":"title","title":[]},"Status":{"id":"a2","type":"status","status":null}}}]`

// notionSimple is what n8n 2.8.4's simplifyObjects gives for notionPages:
// node -e 'console.log(JSON.stringify(require("n8n-nodes-base/dist/nodes/Notion/shared/GenericFunctions.js").simplifyObjects(pages)))'.
const notionSimple = `[{"id":"1a878e40-f803-8011-9a3c-c8d5e2a1b001","name":"Acme ","url":"https://www.notion.so/Acme-1a878e40f80380119a3cc8d5e2a1b001","property_name":"Acme Corp","property_clockify_client_id":"","property_status":"In progress","property_archive":false,"property_priority":null,"property_tags":["vip","eu"],"property_clients":["1a878e40-f803-80e6-8df1-cf50776752da"],"property_hours":12.5,"property_due_date":{"start":"2025-03-01","end":null,"time_zone":null},"property_owner":["ann@example.com",{}],"property_score":3,"property_task_names":["A"],"property_files":["https://example.com/cv.pdf"],"property_website":null,"property_task_id2":"+1 555"},{"id":"1a878e40-f803-8011-9a3c-c8d5e2a1b002","name":"","url":"https://www.notion.so/2","property_name":""}]`

// notionQuery answers a database query with the pages of notionPages,
// one a page: the first without a cursor, the second at cursor "c2".
func notionQuery(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	var pages []json.RawMessage
	json.Unmarshal([]byte(notionPages), &pages)
	w.Header().Set("Content-Type", "application/json")
	if body["start_cursor"] == "c2" {
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "results": pages[1:], "has_more": false, "next_cursor": nil})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "results": pages[:1], "has_more": true, "next_cursor": "c2"})
}

// Get Many as n8n's Notion node v2 sends it (NotionV2.node.js
// databasePage getAll, mapFilters, notionApiRequestAllItems): POST
// /databases/ID/query with Notion-Version 2021-08-16, the filters the
// node's conditions make, every page with Return All (start_cursor the
// last next_cursor while has_more); the items simplified as n8n does.
func TestNotionDatabasePageGetMany(t *testing.T) {
	notion := func(body string) apiRequest {
		return apiRequest{Method: "POST", Path: "/databases/1a878e40-f803-80e4-bc79-e24747562817/query", Auth: "Bearer ya29.token", Accept: "application/json", Type: "application/json", Body: body}
	}
	db := "1a878e40-f803-80e4-bc79-e24747562817"
	for _, c := range []struct {
		name   string
		inputs map[string]any
		bodies []string
		items  string
	}{
		{"all, filtered", map[string]any{"database_id": db, "return_all": true, "filter_type": "manual", "match_type": "allFilters",
			"conditions": []any{
				map[string]any{"key": "Status|status", "type": "status", "condition": "does_not_equal", "statusValue": "Done"},
				map[string]any{"key": "Archive|checkbox", "type": "checkbox", "condition": "equals", "checkboxValue": false},
				map[string]any{"key": "Clients|relation", "type": "relation", "condition": "is_not_empty", "relationValue": ""},
				map[string]any{"key": "Clockify Client ID|rich_text", "type": "rich_text", "condition": "equals", "richTextValue": "42"},
				map[string]any{"key": "Score|formula", "type": "formula", "condition": "greater_than", "returnType": "number", "numberValue": 2},
			}},
			[]string{`{"filter":{"and":[{"property":"Status","status":{"does_not_equal":"Done"}},{"property":"Archive","checkbox":{"equals":false}},{"property":"Clients","relation":{"is_not_empty":true}},{"property":"Clockify Client ID","text":{"equals":"42"}},{"property":"Score","formula":{"number":{"greater_than":2}}}]}}`,
				`{"filter":{"and":[{"property":"Status","status":{"does_not_equal":"Done"}},{"property":"Archive","checkbox":{"equals":false}},{"property":"Clients","relation":{"is_not_empty":true}},{"property":"Clockify Client ID","text":{"equals":"42"}},{"property":"Score","formula":{"number":{"greater_than":2}}}]},"start_cursor":"c2"}`},
			notionSimple},
		{"all, no filter", map[string]any{"database_id": db, "return_all": true}, []string{``, `{"start_cursor":"c2"}`}, notionSimple},
		{"limit, json, any", map[string]any{"database_id": db, "limit": 1, "filter_type": "json", "filter_json": `{"property": "Status", "status": {"equals": "Done"}}`,
			"sort": []any{map[string]any{"key": "created_time", "direction": "descending", "timestamp": true}}, "simple": false},
			[]string{`{"filter":{"property":"Status","status":{"equals":"Done"}},"page_size":1,"sorts":[{"direction":"descending","timestamp":"created_time"}]}`},
			"[" + mustIndex(t, notionPages, 0) + "]"},
		{"manual, any", map[string]any{"database_id": db, "filter_type": "manual", "conditions": []any{
			map[string]any{"key": "Tags|multi_select", "type": "multi_select", "condition": "contains", "multiSelectValue": "vip"},
			map[string]any{"key": "Phone|phone_number", "type": "phone_number", "condition": "is_empty", "phoneNumberValue": ""}}},
			[]string{`{"filter":{"or":[{"property":"Tags","multi_select":{"contains":"vip"}},{"property":"Phone","phone":{"is_empty":true}}]},"page_size":50}`},
			`[` + mustIndex(t, notionSimple, 0) + `]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reqs, err := tryFlow(t, "notion_database_page_get_many", c.inputs, notionQuery)
			if err != "" {
				t.Fatal(err)
			}
			var want []apiRequest
			for _, b := range c.bodies {
				want = append(want, notion(compactJSON(b)))
			}
			for i := range reqs {
				reqs[i].Body = compactJSON(reqs[i].Body)
			}
			wantRequests(t, reqs, want...)
			wantItems(t, out, c.items)
		})
	}
}

// A JSON filter that is not JSON fails the run with n8n's message.
func TestNotionDatabasePageGetManyBadFilter(t *testing.T) {
	_, _, err := tryFlow(t, "notion_database_page_get_many", map[string]any{"database_id": "d", "filter_type": "json", "filter_json": "{nope"}, notionQuery)
	if err == "" || !strings.Contains(err, "Filters (JSON) must be a valid json") {
		t.Errorf("the run: %q", err)
	}
}

// mustIndex is the JSON text of element i of the JSON list text.
func mustIndex(t *testing.T, text string, i int) string {
	t.Helper()
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(text), &list); err != nil {
		t.Fatal(err)
	}
	return string(list[i])
}

// compactJSON is text without its spaces, keys sorted, when it is JSON.
func compactJSON(text string) string {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return text
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// notionProperties are property values of every type Update converts,
// as the importer gives them: key, type and the type's field.
const notionProperties = `[{"key":"Name|title","type":"title","title":"Acme"},
 {"key":"Status|status","type":"status","statusValue":"Done"},
 {"key":"Focus|checkbox","type":"checkbox","checkboxValue":true},
 {"key":"Priority|select","type":"select","selectValue":""},
 {"key":"Tags|multi_select","type":"multi_select","multiSelectValue":"vip, 1a878e40-f803-40e6-8df1-cf50776752da"},
 {"key":"Semesters|relation","type":"relation","relationValue":["1a878e40f80340e68df1cf50776752da, 2a878e40-f803-40e6-8df1-cf50776752da",""]},
 {"key":"Hours|number","type":"number","numberValue":3.5},
 {"key":"Link|url","type":"url","ignoreIfEmpty":true,"urlValue":""},
 {"key":"Site|url","type":"url","ignoreIfEmpty":false,"urlValue":""},
 {"key":"Owner|people","type":"people","peopleValue":"u1"},
 {"key":"Resume|files","type":"files","fileUrls":{"fileUrl":[{"url":"https://example.com/cv.pdf","name":"Resume"}]}},
 {"key":"Clockify Client ID|rich_text","type":"rich_text","textContent":"42"},
 {"key":"Mail|email","type":"email","emailValue":"a@example.com"},
 {"key":"Phone|phone_number","type":"phone_number","phoneValue":"+1"}]`

// Update as n8n's Notion node v2 sends it (NotionV2.node.js databasePage
// update): PATCH /pages/ID with the properties n8n 2.8.4's mapProperties
// makes of notionProperties (node -e '…mapProperties.call(ctx,
// properties, "UTC", 2)'), and the icon; the item is the page Notion
// answers with, simplified.
func TestNotionDatabasePageUpdate(t *testing.T) {
	page := mustIndex(t, notionPages, 1)
	var props any
	json.Unmarshal([]byte(notionProperties), &props)
	out, reqs, err := tryFlow(t, "notion_database_page_update", map[string]any{"page_id": "p1", "properties": props, "icon": "🤖"}, replyJSON(page))
	if err != "" {
		t.Fatal(err)
	}
	for i := range reqs {
		reqs[i].Body = compactJSON(reqs[i].Body)
	}
	wantRequests(t, reqs, apiRequest{Method: "PATCH", Path: "/pages/p1", Type: "application/json", Body: compactJSON(`{"properties":{"Name":{"title":[{"text":{"content":"Acme"}}]},"Status":{"type":"status","status":{"name":"Done"}},"Focus":{"type":"checkbox","checkbox":true},"Priority":{"type":"select","select":null},"Tags":{"type":"multi_select","multi_select":[{"name":"vip"},{"id":"1a878e40-f803-40e6-8df1-cf50776752da"}]},"Semesters":{"type":"relation","relation":[{"id":"1a878e40f80340e68df1cf50776752da"},{"id":"2a878e40-f803-40e6-8df1-cf50776752da"}]},"Hours":{"type":"number","number":3.5},"Site":{"type":"url","url":""},"Owner":{"type":"people","people":[{"id":"u1"}]},"Resume":{"type":"files","files":[{"name":"Resume","type":"external","external":{"url":"https://example.com/cv.pdf"}}]},"Clockify Client ID":{"rich_text":[{"text":{"content":"42"}}]},"Mail":{"type":"email","email":"a@example.com"},"Phone":{"type":"phone_number","phone_number":"+1"}},"icon":{"type":"emoji","emoji":"🤖"}}`)})
	wantItems(t, out, "["+mustIndex(t, notionSimple, 1)+"]")

	out, _, err = tryFlow(t, "notion_database_page_update", map[string]any{"page_id": "p1", "simple": false, "icon": "https://example.com/i.png", "icon_type": "file"}, replyJSON(page))
	if err != "" {
		t.Fatal(err)
	}
	wantItems(t, out, "["+page+"]")

	// A relation that is not a UUID fails the run as n8n's node does.
	_, _, err = tryFlow(t, "notion_database_page_update", map[string]any{"page_id": "p1", "properties": []any{map[string]any{"key": "R|relation", "type": "relation", "relationValue": []any{"nope"}}}}, replyJSON(page))
	if !strings.Contains(err, `The relation id "nope" is not a valid uuid with optional dashes.`) {
		t.Errorf("the run: %q", err)
	}
}

// Get as n8n's Notion node v2 sends it (NotionV2.node.js databasePage
// get): GET /pages/ID; the item is the page, simplified, or as it is.
func TestNotionDatabasePageGet(t *testing.T) {
	page := mustIndex(t, notionPages, 0)
	out, reqs, err := tryFlow(t, "notion_database_page_get", map[string]any{"page_id": "p1"}, replyJSON(page))
	if err != "" {
		t.Fatal(err)
	}
	wantRequests(t, reqs, apiRequest{Method: "GET", Path: "/pages/p1"})
	wantItems(t, out, "["+mustIndex(t, notionSimple, 0)+"]")
	out, _, err = tryFlow(t, "notion_database_page_get", map[string]any{"page_id": "p1", "simple": false}, replyJSON(page))
	if err != "" {
		t.Fatal(err)
	}
	wantItems(t, out, "["+page+"]")
}
