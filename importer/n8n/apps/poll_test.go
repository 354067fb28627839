package apps

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// gmailMailbox stands in for Gmail: the list answers with the messages
// whose internalDate the test gives, newest first (Gmail's order), each
// message's metadata with its labels.
func gmailMailbox(messages map[string][2]string, order *[]string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch p := r.URL.Path; {
		case p == "/gmail/v1/users/me/messages":
			var list []map[string]string
			for _, id := range *order {
				list = append(list, map[string]string{"id": id, "threadId": "t" + id})
			}
			b, _ := json.Marshal(map[string]any{"messages": list, "resultSizeEstimate": len(list)})
			if len(list) == 0 {
				b = []byte(`{"resultSizeEstimate": 0}`)
			}
			w.Write(b)
		case strings.HasPrefix(p, "/gmail/v1/users/me/messages/"):
			id := strings.TrimPrefix(p, "/gmail/v1/users/me/messages/")
			m := messages[id]
			b, _ := json.Marshal(map[string]any{"id": id, "threadId": "t" + id, "labelIds": strings.Split(m[1], ","), "snippet": "Hi &amp; bye",
				"payload":      map[string]any{"mimeType": "text/plain", "headers": []map[string]string{{"name": "Subject", "value": "S " + id}, {"name": "From", "value": "a@x.org"}}},
				"sizeEstimate": 10, "historyId": "1", "internalDate": m[0]})
			w.Write(b)
		case p == "/gmail/v1/users/me/labels":
			io.WriteString(w, `{"labels":[{"id":"INBOX","name":"INBOX","type":"system"},{"id":"DRAFT","name":"DRAFT","type":"system"},{"id":"UNREAD","name":"UNREAD","type":"system"}]}`)
		}
	}
}

// Gmail Trigger's poll, Simplify on (GmailTrigger.node.js, poll), three
// polls in a row: the first, with nothing kept, lists the messages
// received after the time now and keeps it; the second lists those after
// the kept time, leaves the draft out and keeps the newest message's time
// (milliseconds / 1000) and the IDs fetched; the third reads that time
// as n8n's prepareTimestamp does (after:1700000) and gives only the
// message the second did not fetch.
func TestGmailMessagePoll(t *testing.T) {
	messages := map[string][2]string{
		"m1": {"1700000100123", "INBOX,UNREAD"},
		"m2": {"1700000090000", "DRAFT"},
		"m3": {"1700000050000", "INBOX"},
		"m4": {"1700000200500", "INBOX"},
	}
	var order []string
	reply := gmailMailbox(messages, &order)
	inputs := map[string]any{"q": "has:attachment", "sender": "a@x.org", "read_status": "unread", "include_spam_trash": false}

	// The first poll: nothing kept, nothing listed; the state is the time
	// the query asked after.
	out, reqs := runFlow(t, "gmail_message_poll", inputs, reply)
	wantItems(t, out, `[]`)
	if len(reqs) != 1 {
		t.Fatalf("requests: %+v", reqs)
	}
	q, _ := url.ParseQuery(reqs[0].Query)
	state, _ := out["state"].(map[string]any)
	now, _ := state["lastTimeChecked"].(float64)
	if want := "has:attachment from:a@x.org is:unread after:" + formatNumber(now); q.Get("q") != want || q.Get("includeSpamTrash") != "false" || now < 1.7e9 {
		t.Errorf("first poll: query %q, state %v; want q %q", reqs[0].Query, out["state"], want)
	}

	// The second: three messages after the kept time, the draft left out.
	order = []string{"m1", "m2", "m3"}
	out, reqs = runFlow(t, "gmail_message_poll", map[string]any{"state": map[string]any{"lastTimeChecked": 1700000000}}, reply)
	wantItems(t, out, `[
		{"id":"m1","threadId":"tm1","snippet":"Hi &amp; bye","payload":{"mimeType":"text/plain"},"sizeEstimate":10,"historyId":"1","internalDate":"1700000100123","labels":[{"id":"INBOX","name":"INBOX"},{"id":"UNREAD","name":"UNREAD"}],"Subject":"S m1","From":"a@x.org"},
		{"id":"m3","threadId":"tm3","snippet":"Hi &amp; bye","payload":{"mimeType":"text/plain"},"sizeEstimate":10,"historyId":"1","internalDate":"1700000050000","labels":[{"id":"INBOX","name":"INBOX"}],"Subject":"S m3","From":"a@x.org"}]`)
	if q := reqs[0].Query; q != "q=after%3A1700000000" {
		t.Errorf("second poll's list: %q", q)
	}
	if got := reqs[1].Path + "?" + reqs[1].Query; !strings.HasPrefix(got, "/gmail/v1/users/me/messages/m") || queryKey(t, reqs[1].Query) != "format=metadata&metadataHeaders=From&metadataHeaders=To&metadataHeaders=Cc&metadataHeaders=Bcc&metadataHeaders=Subject&q=after:1700000000" {
		t.Errorf("second poll's message: %s", got)
	}
	state = out["state"].(map[string]any)
	if want := jsonOf(t, `{"lastTimeChecked": 1700000100.123, "possibleDuplicates": ["m1", "m2", "m3"]}`); !reflect.DeepEqual(state, want) {
		t.Errorf("second poll's state: %v", state)
	}

	// The third: the same three and a new one; only the new one is given.
	order = []string{"m4", "m1", "m2", "m3"}
	out, reqs = runFlow(t, "gmail_message_poll", map[string]any{"state": state}, reply)
	if q := reqs[0].Query; q != "q=after%3A1700000" {
		t.Errorf("third poll's list: %q", q)
	}
	items, _ := out["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != "m4" {
		t.Errorf("third poll's items: %v", out["items"])
	}
	if want := jsonOf(t, `{"lastTimeChecked": 1700000200.5, "possibleDuplicates": ["m4", "m1", "m2", "m3"]}`); !reflect.DeepEqual(out["state"], want) {
		t.Errorf("third poll's state: %v", out["state"])
	}

	// A fourth with nothing new listed keeps the state.
	order = nil
	out, _ = runFlow(t, "gmail_message_poll", map[string]any{"state": out["state"]}, reply)
	wantItems(t, out, `[]`)
	if want := jsonOf(t, `{"lastTimeChecked": 1700000200.5, "possibleDuplicates": ["m4", "m1", "m2", "m3"]}`); !reflect.DeepEqual(out["state"], want) {
		t.Errorf("fourth poll's state: %v", out["state"])
	}
}

// formatNumber is a whole number as a query writes it.
func formatNumber(f float64) string {
	b, _ := json.Marshal(int64(f))
	return string(b)
}

// Google Drive Trigger's poll (GoogleDriveTrigger.node.js, poll), File
// Created in a folder of PDFs, two polls in a row: the first, with
// nothing kept, asks for the files created after the time now and keeps
// that time; the second asks for those created after the kept time and
// gives them, and keeps the time it started. A next page fails the run,
// where n8n asks for the first page again and never ends.
func TestGoogleDriveFilePoll(t *testing.T) {
	files := `{"files": []}`
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, files)
	}
	inputs := map[string]any{"folder": "1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR", "event": "fileCreated", "file_type": "application/pdf"}
	out, reqs := runFlow(t, "google_drive_file_poll", inputs, reply)
	wantItems(t, out, `[]`)
	now, _ := out["state"].(map[string]any)["lastTimeChecked"].(string)
	if len(reqs) != 1 || reqs[0].Path != "/drive/v3/files" || len(now) != len("2024-06-14T10:00:00Z") {
		t.Fatalf("first poll: %+v, state %v", reqs, out["state"])
	}
	want := "corpora=allDrives&fields=nextPageToken, files(*)&includeItemsFromAllDrives=true&maxResults=100&pageSize=100" +
		"&q=trashed = false AND '1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR' in parents AND mimeType != 'application/vnd.google-apps.folder' AND mimeType = 'application/pdf' AND createdTime > '" + now + "'" +
		"&spaces=appDataFolder, drive&supportsAllDrives=true"
	if got := queryKey(t, reqs[0].Query); got != want {
		t.Errorf("first poll's query:\n got %s\nwant %s", got, want)
	}

	files = `{"files": [{"id": "f1", "name": "a.pdf", "mimeType": "application/pdf", "createdTime": "2024-06-14T10:00:30.000Z"}]}`
	inputs["state"] = map[string]any{"lastTimeChecked": "2024-06-14T10:00:00Z"}
	out, reqs = runFlow(t, "google_drive_file_poll", inputs, reply)
	wantItems(t, out, `[{"id": "f1", "name": "a.pdf", "mimeType": "application/pdf", "createdTime": "2024-06-14T10:00:30.000Z"}]`)
	if q, _ := url.ParseQuery(reqs[0].Query); !strings.HasSuffix(q.Get("q"), "AND createdTime > '2024-06-14T10:00:00Z'") {
		t.Errorf("second poll's query: %s", q.Get("q"))
	}
	if next, _ := out["state"].(map[string]any)["lastTimeChecked"].(string); next == "2024-06-14T10:00:00Z" || len(next) != len(now) || next < now {
		t.Errorf("second poll's state: %v (the first's %s)", out["state"], now)
	}

	// Watch For left out (n8n's default): folders modified.
	delete(inputs, "event")
	delete(inputs, "file_type")
	_, reqs = runFlow(t, "google_drive_file_poll", inputs, reply)
	if q, _ := url.ParseQuery(reqs[0].Query); q.Get("q") != "trashed = false AND '1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR' in parents AND mimeType = 'application/vnd.google-apps.folder' AND modifiedTime > '2024-06-14T10:00:00Z'" {
		t.Errorf("folders' query: %s", q.Get("q"))
	}

	files = `{"files": [{"id": "f1"}], "nextPageToken": "p2"}`
	if _, _, err := tryFlow(t, "google_drive_file_poll", inputs, reply); !strings.Contains(err, "more than 100 new files") {
		t.Errorf("a next page: %q", err)
	}
}

// Airtable Trigger's poll (AirtableTrigger.node.js, poll), on the field
// Created with the View and Formula options, two polls in a row: the
// first, with nothing kept, asks for the records created after the time
// now and keeps that time; the second asks for those after the kept time
// and gives them as Airtable does, following offset, and keeps the time
// it started.
func TestAirtableRecordPoll(t *testing.T) {
	pages := map[string]string{"": `{"records": []}`}
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, pages[r.URL.Query().Get("offset")])
	}
	inputs := map[string]any{"base": "appXvZviYORVbPEaS", "table": "tblxsKj5PtumCR9um", "trigger_field": "created_at", "view": "viwGrid", "formula": "{Status} = 'New'"}
	out, reqs := runFlow(t, "airtable_record_poll", inputs, reply)
	wantItems(t, out, `[]`)
	now, _ := out["state"].(map[string]any)["lastTimeChecked"].(string)
	want := `filterByFormula=AND(IS_AFTER({created_at}, DATETIME_PARSE("` + now + `", "YYYY-MM-DD HH:mm:ss")), {Status} = 'New')&pageSize=100&view=viwGrid`
	if len(reqs) != 1 || reqs[0].Path != "/v0/appXvZviYORVbPEaS/tblxsKj5PtumCR9um" || queryKey(t, reqs[0].Query) != want || len(now) != len("2024-06-14T10:00:00Z") {
		t.Fatalf("first poll: %+v, state %v; want %s", reqs, out["state"], want)
	}

	pages = map[string]string{
		"":     `{"records": [{"id": "rec1", "createdTime": "2024-06-14T10:00:10.000Z", "fields": {"Name": "a", "created_at": "2024-06-14T10:00:10.000Z"}}], "offset": "itr2"}`,
		"itr2": `{"records": [{"id": "rec2", "createdTime": "2024-06-14T10:00:20.000Z", "fields": {"Name": "b"}}]}`,
	}
	delete(inputs, "view")
	delete(inputs, "formula")
	inputs["state"] = map[string]any{"lastTimeChecked": "2024-06-14T10:00:00Z"}
	out, reqs = runFlow(t, "airtable_record_poll", inputs, reply)
	wantItems(t, out, `[{"id": "rec1", "createdTime": "2024-06-14T10:00:10.000Z", "fields": {"Name": "a", "created_at": "2024-06-14T10:00:10.000Z"}}, {"id": "rec2", "createdTime": "2024-06-14T10:00:20.000Z", "fields": {"Name": "b"}}]`)
	if len(reqs) != 2 || queryKey(t, reqs[0].Query) != `filterByFormula=IS_AFTER({created_at}, DATETIME_PARSE("2024-06-14T10:00:00Z", "YYYY-MM-DD HH:mm:ss"))&pageSize=100` ||
		queryKey(t, reqs[1].Query) != `filterByFormula=IS_AFTER({created_at}, DATETIME_PARSE("2024-06-14T10:00:00Z", "YYYY-MM-DD HH:mm:ss"))&offset=itr2&pageSize=100` {
		t.Errorf("second poll's requests: %+v", reqs)
	}
	if next, _ := out["state"].(map[string]any)["lastTimeChecked"].(string); len(next) != len(now) || next < now {
		t.Errorf("second poll's state: %v (the first's %s)", out["state"], now)
	}
}

// Google Sheets Trigger's poll, Row Added (GoogleSheetsTrigger.node.js,
// poll), three polls in a row: the first counts the rows and gives none,
// the second gives the rows added after them (an empty, 0 or false cell
// as "", as arrayOfArraysToJson gives it), the third, on another sheet,
// counts from scratch.
func TestGoogleSheetsRowPoll(t *testing.T) {
	values := `{"values": [["Name", "Email", "Score"], ["Ann", "a@x.org", 3]]}`
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v4/spreadsheets/1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs":
			io.WriteString(w, `{"sheets": [{"properties": {"sheetId": 0, "title": "Sheet1"}}, {"properties": {"sheetId": 72739218, "title": "Form Responses 1"}}]}`)
		case strings.HasSuffix(r.URL.Path, "!A1:ZZZ1"):
			io.WriteString(w, `{"values": [["Name", "Email", "Score"]]}`)
		default:
			io.WriteString(w, values)
		}
	}
	inputs := map[string]any{"document_id": "1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs", "sheet": "72739218"}
	out, reqs := runFlow(t, "google_sheets_row_poll", inputs, reply)
	wantItems(t, out, `[]`)
	if want := jsonOf(t, `{"documentId": "1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs", "sheetId": 72739218, "lastIndexChecked": 1}`); !reflect.DeepEqual(out["state"], want) {
		t.Errorf("first poll's state: %v", out["state"])
	}
	var got []string
	for _, r := range reqs {
		got = append(got, r.Path+"?"+r.Query)
	}
	if want := []string{
		"/v4/spreadsheets/1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs?fields=sheets.properties",
		"/v4/spreadsheets/1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs/values/Form%20Responses%201!A1:ZZZ1?",
		"/v4/spreadsheets/1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs/values/Form%20Responses%201!A1:ZZZ?dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=UNFORMATTED_VALUE",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("requests:\n%s", strings.Join(got, "\n"))
	}

	values = `{"values": [["Name", "Email", "Score"], ["Ann", "a@x.org", 3], ["Bob", "", 0], ["Cy", "c@x.org"]]}`
	inputs["state"] = out["state"]
	out, _ = runFlow(t, "google_sheets_row_poll", inputs, reply)
	wantItems(t, out, `[{"Name": "Bob", "Email": "", "Score": ""}, {"Name": "Cy", "Email": "c@x.org", "Score": ""}]`)
	if want := jsonOf(t, `{"documentId": "1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs", "sheetId": 72739218, "lastIndexChecked": 3}`); !reflect.DeepEqual(out["state"], want) {
		t.Errorf("second poll's state: %v", out["state"])
	}

	inputs["sheet"] = "gid=0"
	out, _ = runFlow(t, "google_sheets_row_poll", inputs, reply)
	wantItems(t, out, `[]`)
	if want := jsonOf(t, `{"documentId": "1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs", "sheetId": 0, "lastIndexChecked": 3}`); !reflect.DeepEqual(out["state"], want) {
		t.Errorf("another sheet's state: %v", out["state"])
	}
}
