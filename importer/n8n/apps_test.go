package n8n_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/n8n/apps"
	"github.com/hashicorp/hcl/v2"
)

// appWorkflow is a workflow named name: a Manual Trigger, then the nodes
// in a chain.
func appWorkflow(t *testing.T, name string, nodes ...string) []byte {
	t.Helper()
	all := []string{`{"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]}`}
	all = append(all, nodes...)
	conns := map[string]any{}
	prev := "Start"
	for _, n := range nodes {
		var node struct{ Name string }
		if err := json.Unmarshal([]byte(n), &node); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		conns[prev] = map[string]any{"main": [][]map[string]any{{{"node": node.Name, "type": "main", "index": 0}}}}
		prev = node.Name
	}
	c, _ := json.Marshal(conns)
	return []byte(`{"name": ` + strings.TrimSpace(string(mustJSON(name))) + `, "nodes": [` + strings.Join(all, ",\n") + `], "connections": ` + string(c) + `}`)
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// importApp imports workflows; it returns the files written by name and
// the diagnostics as "severity path summary" lines. What is written must
// validate.
func importApp(t *testing.T, srcs ...[]byte) (map[string]string, []string) {
	t.Helper()
	var in []importer.File
	for i, s := range srcs {
		in = append(in, importer.File{Name: "wf" + string(rune('1'+i)) + ".json", Bytes: s})
	}
	res, diags := importer.Import(in, importer.Options{})
	var lines []string
	for _, d := range diags {
		sev := "warning"
		if d.Severity == hcl.DiagError {
			sev = "error"
		}
		path := ""
		if o, ok := d.Extra.(importer.Origin); ok {
			path = o.Path
		}
		lines = append(lines, sev+" "+path+" "+d.Summary)
	}
	if res == nil {
		return nil, lines
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flows do not validate: %s", d.Error())
	}
	files := map[string]string{}
	for _, f := range res.Files {
		if _, dup := files[f.Name]; dup {
			t.Errorf("%s is written twice", f.Name)
		}
		files[f.Name] = string(f.Bytes)
	}
	return files, lines
}

// An app node becomes a step that uses the registry's flow of its
// operation, written beside the flow as it is in the registry: for each
// item, the node's parameters as the flow's inputs; the flow's secret is
// the credential (a warning says refreshing the token is the user's).
// Two workflows of a batch write the registry's flow once, and list its
// secret once. From
// Zie619+n8n-workflows/workflows__Aggregate__0472_Aggregate_Gmail_Create_Triggered.json
// and …/workflows__Code__0548_Code_Webhook_Create_Webhook.json.
func TestAppRegistryFlow(t *testing.T) {
	add := `{"parameters": {"labelIds": "={{ $json.id }}", "messageId": "={{ $json.message }}", "operation": "addLabels"}, "name": "Add labels to message", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [200, 0], "credentials": {"gmailOAuth2": {"id": "SPECSn66s6QHmld9", "name": "Gmail account"}}}`
	music := `{"parameters": {"labelIds": ["Label_6822395192337188416"], "messageId": "={{ $json.id }}", "operation": "addLabels"}, "name": "Add music label", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [400, 0], "credentials": {"gmailOAuth2": {"id": "SPECSn66s6QHmld9", "name": "Gmail account"}}}`
	item := `{"parameters": {"jsCode": "return [{json: {id: 'Label_47', message: '18c1'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	files, diags := importApp(t, appWorkflow(t, "labels", item, add, music), appWorkflow(t, "more labels", item, music))
	wantDiags(t, diags,
		"warning /nodes/2/credentials/gmailOAuth2 OAuth2 access token",
		"warning /nodes/2/credentials/gmailOAuth2 OAuth2 access token")
	want := []string{"blocks/n8n.block.hcl", "gmail_message_add_labels.flow.hcl", "labels.flow.hcl", "more_labels.flow.hcl"}
	if got := importer.SortedKeys(files); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	if files["gmail_message_add_labels.flow.hcl"] != string(apps.Flow("gmail_message_add_labels")) {
		t.Errorf("the registry's flow is not written as it is:\n%s", files["gmail_message_add_labels.flow.hcl"])
	}
	wantIn(t, files["labels.flow.hcl"],
		`# n8n node "Add labels to message" (gmail v2.1): adds labels to the message, once for each item (flow gmail_message_add_labels.flow.hcl, beside this one)
step "add_labels_to_message" {
  use        = "flow.gmail_message_add_labels"
  for_each   = step.item.items
  message_id = each.value.message
  label_ids  = each.value.id
}`,
		`step "add_music_label" {
  use        = "flow.gmail_message_add_labels"
  for_each   = flatten([for r in step.add_labels_to_message : r.items])
  message_id = each.value.id
  label_ids  = ["Label_6822395192337188416"]
}`)
}

// An operation the app's converter does not convert is an error at the
// node's operation that names both (--partial: a step that fails with it).
func TestAppUnsupportedOperation(t *testing.T) {
	node := `{"parameters": {"operation": "markAsUnread", "messageId": "={{ $json.id }}"}, "name": "Unread", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [200, 0]}`
	_, diags := importApp(t, appWorkflow(t, "unread", node))
	wantDiags(t, diags, "error /nodes/1/parameters/operation Unsupported operation")
	res, all := importer.Import([]importer.File{{Name: "wf.json", Bytes: appWorkflow(t, "unread", node)}}, importer.Options{Partial: true})
	if res == nil || !strings.Contains(all[0].Detail, `Node "Unread" (n8n-nodes-base.gmail), at /nodes/1/parameters/operation in wf.json: the Gmail node's message markAsUnread operation is not converted`) {
		t.Errorf("partial: %v", all)
	}
}

// runImported writes files (an import's) to a directory, points the
// registry's flows at api (their api_url's default), and runs the flow
// named flow with secrets; it returns the run's outputs as JSON.
func runImported(t *testing.T, files map[string]string, flow string, secrets map[string]string, api string) map[string]any {
	t.Helper()
	out, failed := runImportedErr(t, files, flow, secrets, api)
	if failed != "" {
		t.Fatal(failed)
	}
	return out
}

// runImportedErr is runImported for a run that may fail: it returns the
// failure's text, "" when the run succeeds.
func runImportedErr(t *testing.T, files map[string]string, flow string, secrets map[string]string, api string) (map[string]any, string) {
	t.Helper()
	return runImportedIn(t, t.TempDir(), files, flow, secrets, api)
}

// runImportedIn is runImportedErr in dir, whose state (memories) a run
// before it in dir left.
func runImportedIn(t *testing.T, dir string, files map[string]string, flow string, secrets map[string]string, api string) (map[string]any, string) {
	t.Helper()
	for name, text := range files {
		if apps.Flow(strings.TrimSuffix(name, apps.Suffix)) != nil {
			text = apiURL.ReplaceAllString(text, "${1}"+strconv.Quote(api))
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, diags := compiler.Compile(filepath.Join(dir, flow+".flow.hcl"), compiler.Options{Parser: lang.NewParser()})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	vals, diags := prog.ResolveInputs(nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ex, release, err := engine.Executors(engine.Options{Sandbox: engine.SandboxInProcess})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	res, err := runtime.Apply(context.Background(), prog, runtime.Options{Inputs: vals, Store: st, Executors: ex, Secrets: secrets})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != runtime.StatusOK {
		return nil, fmt.Sprintf("the run %s: %s", res.Status, res.Diagnostics.Error())
	}
	out := map[string]any{}
	for k, v := range res.Outputs {
		b, err := ctyjson.SimpleJSONValue{Value: v}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var x any
		json.Unmarshal(b, &x)
		out[k] = x
	}
	return out, ""
}

// apiURL finds the default of a registry flow's api_url input.
var apiURL = regexp.MustCompile(`(input "api_url" \{[^}]*default\s*=\s*)"[^"]*"`)

// stand-in is a local server for a service's API: it records each
// request as "METHOD PATH?QUERY BODY" and answers with reply's JSON.
func standIn(t *testing.T, reply func(r *http.Request) string) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		line := r.Method + " " + r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			line += "?" + r.URL.RawQuery
		}
		if len(b) > 0 {
			line += " " + string(b)
		}
		if r.Header.Get("Authorization") != "Bearer ya29.token" {
			line += " (no token)"
		}
		mu.Lock()
		got = append(got, line)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply(r))
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	json.Unmarshal(b, &g)
	if !reflect.DeepEqual(g, w) {
		b, _ := json.Marshal(got)
		t.Errorf("%s:\n got %s\nwant %s", what, b, want)
	}
}

// Google Sheets' Get Row(s) v4.5 with a filter that gives no value
// (n8n's default, ""): the rows whose column is empty, all of them (AND,
// the default from v4.3), for the one item. The document and sheet are
// read at the first item. From
// Zie619+n8n-workflows/workflows__Code__1864_Code_Executecommand_Create_Webhook.json.
func TestGoogleSheetsReadImported(t *testing.T) {
	node := `{"parameters": {"options": {}, "filtersUI": {"values": [{"lookupColumn": "CreateStatus"}]}, "sheetName": {"__rl": true, "mode": "list", "value": "gid=0", "cachedResultName": "Quotes_status"}, "documentId": {"__rl": true, "mode": "id", "value": "184-zcrfWSzQpDa-t57Oo_8DLyAF-2B_6yvGrybrcd5I"}}, "name": "Retrieve Quote Data", "type": "n8n-nodes-base.googleSheets", "position": [500, 0], "credentials": {"googleSheetsOAuth2Api": {"id": "Ra2f1dlqOJ13jTtb", "name": "Google Sheets account"}}, "typeVersion": 4.5}`
	files, diags := importApp(t, appWorkflow(t, "quotes", node))
	wantDiags(t, diags, "warning /nodes/1/credentials/googleSheetsOAuth2Api OAuth2 access token")
	wantIn(t, files["quotes.flow.hcl"], `step "retrieve_quote_data" {
  use         = "flow.google_sheets_read_rows"
  for_each    = [{}]
  document_id = "184-zcrfWSzQpDa-t57Oo_8DLyAF-2B_6yvGrybrcd5I"
  sheet       = "gid=0"
  filters = [{
    lookupColumn = "CreateStatus"
    lookupValue  = ""
  }]
}`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		if strings.Contains(r.URL.Path, "/values/") {
			return `{"values": [["Quote", "CreateStatus"], ["Q1", "done"], ["Q2"], ["Q3", ""]]}`
		}
		return `{"sheets": [{"properties": {"sheetId": 0, "title": "Quotes_status"}}]}`
	})
	out := runImported(t, files, "quotes", map[string]string{"google_sheets": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["retrieve_quote_data"], `[{"row_number": 3, "Quote": "Q2", "CreateStatus": ""}, {"row_number": 4, "Quote": "Q3", "CreateStatus": ""}]`)
	wantJSON(t, "requests", *reqs, `[
		"GET /v4/spreadsheets/184-zcrfWSzQpDa-t57Oo_8DLyAF-2B_6yvGrybrcd5I?fields=sheets.properties",
		"GET /v4/spreadsheets/184-zcrfWSzQpDa-t57Oo_8DLyAF-2B_6yvGrybrcd5I/values/'Quotes_status'?dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=UNFORMATTED_VALUE"]`)
}

// The app's secret is the flow's as well as the registry flow's, listed
// once for the flow; nodes of one app on two n8n credentials are an
// error at the second (the registry's flows read one token).
func TestAppCredentials(t *testing.T) {
	node := func(name, cred string) string {
		return `{"parameters": {"labelIds": ["Label_1"], "messageId": "18c1", "operation": "addLabels"}, "name": "` + name + `", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [200, 0], "credentials": {"gmailOAuth2": {"id": "` + cred + `", "name": "Gmail ` + cred + `"}}}`
	}
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: appWorkflow(t, "mail", node("A", "one"), node("B", "one"))}}, importer.Options{})
	if res == nil {
		t.Fatal(diags.Error())
	}
	if fmt.Sprint(res.Secrets) != "[{mail gmail FLOWCTL_SECRET_GMAIL An OAuth2 access token of the Google account n8n's Gmail credential stands for, with the scope https://www.googleapis.com/auth/gmail.modify; flowctl does not refresh it}]" {
		t.Errorf("secrets: %v", res.Secrets)
	}
	_, lines := importApp(t, appWorkflow(t, "mail", node("A", "one"), node("B", "two")))
	wantDiags(t, lines, "warning /nodes/1/credentials/gmailOAuth2 OAuth2 access token",
		"error /nodes/2/credentials/gmailOAuth2 Several credentials of one app")
}

// Google Sheets' Append Row v4.5 (defineBelow): one call for all the
// items, the node's columns mapped for each item; the items are the rows
// mapped, each paired with its item; Retry On Fail stays. From
// enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__InboxZero_Lite_-_AI_Email_Classifier.json
// (its document is $env.INBOXZERO_SHEET_ID there, which is not converted:
// an ID here).
func TestGoogleSheetsAppendImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {date: '2024-05-01', from: 'a@x.org', subject: 'Hi', category: 'work', summary: 'S1'}}, {json: {date: '2024-05-02', from: 'b@x.org', subject: 'Yo', category: 'fun', summary: 'S2'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"parameters": {"operation": "append", "documentId": {"__rl": true, "value": "1InboxZeroSheetIdInboxZero0", "mode": "id"}, "sheetName": {"__rl": true, "value": "Lite Log", "mode": "name"}, "columns": {"mappingMode": "defineBelow", "value": {"Date": "={{ $json.date }}", "From": "={{ $json.from }}", "Subject": "={{ $json.subject }}", "Category": "={{ $json.category }}", "Summary": "={{ $json.summary }}"}}, "options": {}}, "id": "log-sheets", "name": "Log to Sheets", "type": "n8n-nodes-base.googleSheets", "typeVersion": 4.5, "position": [1080, 400], "retryOnFail": true, "maxTries": 2}`
	files, diags := importApp(t, appWorkflow(t, "inbox", item, node))
	wantDiags(t, diags, "warning /nodes/2/parameters OAuth2 access token")
	wantIn(t, files["inbox.flow.hcl"], `step "log_to_sheets" {
  use         = "flow.google_sheets_append_rows"
  for_each    = slice(step.item.items, 0, min(1, length(step.item.items)))
  document_id = "1InboxZeroSheetIdInboxZero0"
  sheet       = "Lite Log"
  sheet_by    = "name"
  rows = [for i, item in step.item.items : {
    Date     = item.date
    From     = item.from
    Subject  = item.subject
    Category = item.category
    Summary  = item.summary
  }]
  retry {
    attempts    = 2
    backoff     = "1s"
    max_backoff = "1s"
  }
}`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		switch {
		case !strings.Contains(r.URL.Path, "/values/"):
			return `{"sheets": [{"properties": {"sheetId": 7, "title": "Lite Log"}}]}`
		case strings.HasSuffix(r.URL.Path, "!1:1"):
			return `{"values": [["Date", "From", "Subject", "Category", "Summary"]]}`
		case r.Method == "GET":
			return `{"values": [["Date", "From", "Subject", "Category", "Summary"], ["2024-04-30", "c@x.org", "Old", "work", "S0"]]}`
		}
		return `{}`
	})
	out := runImported(t, files, "inbox", map[string]string{"google_sheets": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["log_to_sheets"], `[
		{"Date": "2024-05-01", "From": "a@x.org", "Subject": "Hi", "Category": "work", "Summary": "S1"},
		{"Date": "2024-05-02", "From": "b@x.org", "Subject": "Yo", "Category": "fun", "Summary": "S2"}]`)
	wantJSON(t, "requests", *reqs, `[
		"GET /v4/spreadsheets/1InboxZeroSheetIdInboxZero0?fields=sheets.properties",
		"GET /v4/spreadsheets/1InboxZeroSheetIdInboxZero0/values/'Lite%20Log'?dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=FORMATTED_VALUE",
		"POST /v4/spreadsheets/1InboxZeroSheetIdInboxZero0:batchUpdate {\"requests\":[{\"appendDimension\":{\"dimension\":\"ROWS\",\"length\":1,\"sheetId\":7}}]}",
		"GET /v4/spreadsheets/1InboxZeroSheetIdInboxZero0/values/Lite%20Log!1:1?dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=UNFORMATTED_VALUE",
		"PUT /v4/spreadsheets/1InboxZeroSheetIdInboxZero0/values/Lite%20Log!3:4?valueInputOption=USER_ENTERED {\"range\":\"Lite Log!3:4\",\"values\":[[\"2024-05-01\",\"a@x.org\",\"Hi\",\"work\",\"S1\"],[\"2024-05-02\",\"b@x.org\",\"Yo\",\"fun\",\"S2\"]]}"]`)
}

// Google Sheets' Update Row v4.5: the rows mapped for each item (here
// $('Get session').item, the item each descends from), matched on
// SESSION. From
// oxbshw+ultimate-n8n-ai-workflows/workflows__1244_Telegram_GoogleSheets_Automate_Triggered.json.
func TestGoogleSheetsUpdateImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {SESSION: 's2'}}]"}, "name": "Get session", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "65771b1e-47fc-439d-a1ea-9901bac047d8", "name": "Set to expire", "type": "n8n-nodes-base.googleSheets", "position": [1040, -100], "parameters": {"columns": {"value": {"STATE": "expire", "SESSION": "={{ $('Get session').item.json.SESSION }}"}, "schema": [{"id": "SESSION", "type": "string", "display": true, "removed": false, "required": false, "displayName": "SESSION", "defaultMatch": false, "canBeUsedToMatch": true}, {"id": "STATE", "type": "string", "display": true, "removed": false, "required": false, "displayName": "STATE", "defaultMatch": false, "canBeUsedToMatch": true}, {"id": "row_number", "type": "string", "display": true, "removed": true, "readOnly": true, "required": false, "displayName": "row_number", "defaultMatch": false, "canBeUsedToMatch": true}], "mappingMode": "defineBelow", "matchingColumns": ["SESSION"], "attemptToConvertTypes": false, "convertFieldsToString": false}, "options": {}, "operation": "update", "sheetName": {"__rl": true, "mode": "list", "value": 207843712, "cachedResultName": "Session"}, "documentId": {"__rl": true, "mode": "list", "value": "1MCJLAqKP0Y7Qr68ZYoSSBeEVyKI1QgAAZnlEiyqkzXo", "cachedResultName": "Chatbot with session"}}, "credentials": {"googleSheetsOAuth2Api": {"id": "JYR6a64Qecd6t8Hb", "name": "Google Sheets account"}}, "typeVersion": 4.5}`
	files, diags := importApp(t, appWorkflow(t, "session", item, node))
	wantDiags(t, diags, "warning /nodes/2/credentials/googleSheetsOAuth2Api OAuth2 access token")
	srv, reqs := standIn(t, func(r *http.Request) string {
		switch {
		case !strings.Contains(r.URL.Path, "/values"):
			return `{"sheets": [{"properties": {"sheetId": 207843712, "title": "Session"}}]}`
		case r.Method == "GET":
			return `{"values": [["SESSION", "STATE"], ["s1", "active"], ["s2", "active"]]}`
		}
		return `{}`
	})
	out := runImported(t, files, "session", map[string]string{"google_sheets": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["set_to_expire"], `[{"STATE": "expire", "SESSION": "s2"}]`)
	if got := (*reqs)[len(*reqs)-1]; got != `POST /v4/spreadsheets/1MCJLAqKP0Y7Qr68ZYoSSBeEVyKI1QgAAZnlEiyqkzXo/values:batchUpdate {"data":[{"range":"Session!B3","values":[["expire"]]}],"valueInputOption":"USER_ENTERED"}` {
		t.Errorf("the update: %s\n%s", got, files["session.flow.hcl"])
	}
}

// In a Loop Over Items, an app node that runs its operation for each
// item leaves the loop one pass (Gmail); one that takes a batch at once
// (Google Sheets' Append Row) is refused, not the loop, so --partial
// writes the flow with a step standing for it. From
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0442_Splitout_Schedule_Send_Scheduled.json
// and …/automation__1483_Limit_Code_Automation_Webhook.json.
func TestAppInLoop(t *testing.T) {
	wf := func(app string) []byte {
		return []byte(`{"name": "loop", "nodes": [
			{"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]},
			{"parameters": {"jsCode": "return [{json: {id: 'a'}}, {json: {id: 'b'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]},
			{"parameters": {"options": {}}, "name": "Loop Over Items", "type": "n8n-nodes-base.splitInBatches", "typeVersion": 3, "position": [200, 0]},
			` + app + `],
			"connections": {"Start": {"main": [[{"node": "Item", "type": "main", "index": 0}]]},
				"Item": {"main": [[{"node": "Loop Over Items", "type": "main", "index": 0}]]},
				"Loop Over Items": {"main": [[], [{"node": "App", "type": "main", "index": 0}]]},
				"App": {"main": [[{"node": "Loop Over Items", "type": "main", "index": 0}]]}}}`)
	}
	gmail := `{"parameters": {"labelIds": ["Label_1"], "messageId": "={{ $json.id }}", "operation": "addLabels"}, "name": "App", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [300, 0]}`
	_, diags := importApp(t, wf(gmail))
	wantDiags(t, diags, "warning /nodes/2 Loop as one pass", "warning /nodes/3/parameters OAuth2 access token")
	sheets := `{"parameters": {"operation": "append", "documentId": {"__rl": true, "value": "1InboxZeroSheetIdInboxZero0", "mode": "id"}, "sheetName": {"__rl": true, "value": "Log", "mode": "name"}, "columns": {"mappingMode": "autoMapInputData", "value": {}}, "options": {}}, "name": "App", "type": "n8n-nodes-base.googleSheets", "typeVersion": 4.5, "position": [300, 0]}`
	_, diags = importApp(t, wf(sheets))
	wantDiags(t, diags, "warning /nodes/2 Loop as one pass", "error /nodes/3 Unsupported loop")
	res, _ := importer.Import([]importer.File{{Name: "wf.json", Bytes: wf(sheets)}}, importer.Options{Partial: true})
	if res == nil {
		t.Error("--partial writes nothing")
	}
}

// Gmail's Send v2.1, HTML (the default) without n8n's attribution: a
// message for each item, the message's HTML the item's; with the
// attribution on (v2.1's default) n8n's attribution appended, with a
// warning: n8n's link names its instance. From
// oxbshw+ultimate-n8n-ai-workflows/automation__1543_Manual_Openai_Automation_Triggered.json.
func TestGmailSendImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {data: '<p>one</p>'}}, {json: {data: '<p>two</p>'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "a27d8664-dc87-4458-9f12-970b88ab6515", "name": "Send via Gmail", "type": "n8n-nodes-base.gmail", "position": [2160, 320], "parameters": {"sendTo": "teds.tech.talks@gmail.com", "message": "={{ $json.data }}", "options": {"appendAttribution": false}, "subject": "Feedback form response"}, "credentials": {"gmailOAuth2": {"id": "UllrXlZsDnkdA3tT", "name": "Gmail account"}}, "typeVersion": 2.1}`
	files, diags := importApp(t, appWorkflow(t, "feedback", item, node))
	wantDiags(t, diags, "warning /nodes/2/credentials/gmailOAuth2 OAuth2 access token")
	wantIn(t, files["feedback.flow.hcl"], `step "send_via_gmail" {
  use      = "flow.gmail_message_send"
  for_each = step.item.items
  send_to  = "teds.tech.talks@gmail.com"
  subject  = "Feedback form response"
  message  = each.value.data
}`)
	// The answer names the message by its text: the calls run at once.
	srv, reqs := standIn(t, func(r *http.Request) string {
		var b struct{ Raw string }
		json.NewDecoder(r.Body).Decode(&b)
		raw, _ := base64.RawURLEncoding.DecodeString(b.Raw)
		n := 1
		if strings.Contains(string(raw), base64.StdEncoding.EncodeToString([]byte("<p>two</p>"))) {
			n = 2
		}
		return fmt.Sprintf(`{"id": "m%d", "threadId": "t%d", "labelIds": ["SENT"]}`, n, n)
	})
	out := runImported(t, files, "feedback", map[string]string{"gmail": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["send_via_gmail"], `[{"id": "m1", "threadId": "t1", "labelIds": ["SENT"]}, {"id": "m2", "threadId": "t2", "labelIds": ["SENT"]}]`)
	var bodies []string
	for _, r := range *reqs {
		var b struct{ Raw string }
		_, js, _ := strings.Cut(r, " {")
		json.Unmarshal([]byte("{"+js), &b)
		raw, _ := base64.RawURLEncoding.DecodeString(b.Raw)
		msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		text, _ := io.ReadAll(base64.NewDecoder(base64.StdEncoding, msg.Body))
		bodies = append(bodies, msg.Header.Get("To")+" "+msg.Header.Get("Content-Type")+" "+string(text))
	}
	slices.Sort(bodies)
	if got := strings.Join(bodies, "\n"); got != "teds.tech.talks@gmail.com text/html; charset=utf-8 <p>one</p>\nteds.tech.talks@gmail.com text/html; charset=utf-8 <p>two</p>" {
		t.Errorf("messages:\n%s", got)
	}

	// With the attribution on (v2.1's default), the flow appends it: its
	// link lacks n8n's instance ID, a warning (Send Receipt of
	// enescingoz+awesome-n8n-templates/Forms_and_Surveys__Qualifying_Appointment_Requests_with_AI_n8n_Forms.json
	// has "options": {} alike).
	files, diags = importApp(t, appWorkflow(t, "feedback", item, strings.Replace(node, `"options": {"appendAttribution": false}`, `"options": {}`, 1)))
	wantDiags(t, diags, "warning /nodes/2/parameters/options n8n attribution appended", "warning /nodes/2/credentials/gmailOAuth2 OAuth2 access token")
	wantIn(t, files["feedback.flow.hcl"], `  message     = each.value.data
  attribution = true
}`)
}

// Gmail's Mark as Read, for each item. From
// Zie619+n8n-workflows/workflows__Extractfromfile__1764_Extractfromfile_HTTP_Automation_Webhook.json
// (its message ID is $('Gmail Trigger1').item.json.id there: the item's
// here).
func TestGmailMarkAsReadImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {id: '18c1'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "e64aac5c-a314-46b6-b7db-fc0d6f450e1f", "name": "Gmail", "type": "n8n-nodes-base.gmail", "position": [1240, 0], "webhookId": "556cbee3-8de0-4645-9e91-e7c0c252f2ab", "parameters": {"messageId": "={{ $json.id }}", "operation": "markAsRead"}, "credentials": {"gmailOAuth2": {"id": "v8YJP3VfeGtRk5la", "name": "Gmail account"}}, "typeVersion": 2.1}`
	files, _ := importApp(t, appWorkflow(t, "read", item, node))
	wantIn(t, files["read.flow.hcl"], `step "gmail" {
  use        = "flow.gmail_message_mark_as_read"
  for_each   = step.item.items
  message_id = each.value.id
}`)
	srv, reqs := standIn(t, func(r *http.Request) string { return `{"id": "18c1", "threadId": "18c0", "labelIds": ["INBOX"]}` })
	out := runImported(t, files, "read", map[string]string{"gmail": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["gmail"], `[{"id": "18c1", "threadId": "18c0", "labelIds": ["INBOX"]}]`)
	wantJSON(t, "requests", *reqs, `["POST /gmail/v1/users/me/messages/18c1/modify {\"removeLabelIds\":[\"UNREAD\"]}"]`)
}

// Google Drive's Delete, for each item; Update is refused, the file
// being the item's binary data. From
// Zie619+n8n-workflows/workflows__Odoo__0977_Odoo_Code_Import_Scheduled.json.
func TestGoogleDriveImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {id: '1Fx'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "cd82a937-7129-4baf-9515-41ab5aef497d", "name": "Drop Old Images", "type": "n8n-nodes-base.googleDrive", "position": [1480, 340], "parameters": {"fileId": {"__rl": true, "mode": "id", "value": "={{ $json.id }}"}, "options": {}, "operation": "deleteFile"}, "credentials": {"googleDriveOAuth2Api": {"id": "HTm4uAxSPW7DoxGv", "name": "Google Drive Administrator"}}, "typeVersion": 3}`
	files, _ := importApp(t, appWorkflow(t, "drop", item, node))
	wantIn(t, files["drop.flow.hcl"], `step "drop_old_images" {
  use      = "flow.google_drive_file_delete"
  for_each = step.item.items
  file_id  = each.value.id
}`)
	srv, reqs := standIn(t, func(r *http.Request) string { return `{"id": "1Fx"}` })
	out := runImported(t, files, "drop", map[string]string{"google_drive": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["drop_old_images"], `[{"id": "1Fx", "success": true}]`)
	wantJSON(t, "requests", *reqs, `["PATCH /drive/v3/files/1Fx?supportsAllDrives=true {\"trashed\":true}"]`)

	update := strings.Replace(node, `"deleteFile"`, `"update"`, 1)
	_, diags := importApp(t, appWorkflow(t, "drop", item, update))
	wantDiags(t, diags, "error /nodes/2/parameters/operation Unsupported operation")
}

// A node whose parameters hold a problem becomes a step that fails with
// it (--partial), and the registry's flow and the app's secret are not
// written for it: the flow would be no one's. From
// enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__InboxZero_Lite_-_AI_Email_Classifier.json
// ($env is not converted).
func TestAppNodeWithProblem(t *testing.T) {
	node := `{"parameters": {"operation": "append", "documentId": {"__rl": true, "value": "={{ $env.INBOXZERO_SHEET_ID }}", "mode": "id"}, "sheetName": {"__rl": true, "value": "Lite Log", "mode": "name"}, "columns": {"mappingMode": "defineBelow", "value": {"Date": "={{ $json.date }}"}}, "options": {}}, "id": "log-sheets", "name": "Log to Sheets", "type": "n8n-nodes-base.googleSheets", "typeVersion": 4.5, "position": [1080, 400]}`
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: appWorkflow(t, "inbox", node)}}, importer.Options{Partial: true})
	if res == nil {
		t.Fatal(diags.Error())
	}
	var names []string
	for _, f := range res.Files {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "inbox.flow.hcl" || len(res.Secrets) != 0 {
		t.Errorf("files %v, secrets %v", names, res.Secrets)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Error(d.Error())
	}
}

// Google Sheets' Append or Update Row v4.3: the document's ID found in
// the URL an item holds (n8n's getSpreadsheetId), the row appended when
// no row has its Name. From
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__data-integration__2141-add-product-ideas-to-google-sheets-via-a-slack__workflow.json
// (its Webhook node is a Code node here).
func TestGoogleSheetsAppendOrUpdateImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {body: {text: 'Idea', user_name: 'ann'}, 'Google Sheets URL': 'https://docs.google.com/spreadsheets/d/17mugx8JYjbxaTMK9aqDkJywbc0NlNmStGYq-M5fKmG8/edit'}}]"}, "name": "Webhook", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "1caf810e-8b40-4430-8840-8e17a176b67a", "name": "Add to Google Sheets", "type": "n8n-nodes-base.googleSheets", "position": [1780, 360], "parameters": {"columns": {"value": {"Name": "={{ $('Webhook').item.json.body.text }}", "Creator": "={{ $('Webhook').item.json.body.user_name }}"}, "schema": [{"id": "Name", "type": "string", "display": true, "removed": false, "required": false, "displayName": "Name", "defaultMatch": false, "canBeUsedToMatch": true}, {"id": "Creator", "type": "string", "display": true, "required": false, "displayName": "Creator", "defaultMatch": false, "canBeUsedToMatch": true}], "mappingMode": "defineBelow", "matchingColumns": ["Name"]}, "options": {"cellFormat": "USER_ENTERED"}, "operation": "appendOrUpdate", "sheetName": {"__rl": true, "mode": "list", "value": "gid=0", "cachedResultName": "Sheet1"}, "documentId": {"__rl": true, "mode": "url", "value": "={{ $json['Google Sheets URL'] }}"}}, "typeVersion": 4.3}`
	files, diags := importApp(t, appWorkflow(t, "ideas", item, node))
	wantDiags(t, diags, "warning /nodes/2/parameters OAuth2 access token")
	srv, reqs := standIn(t, func(r *http.Request) string {
		switch {
		case !strings.Contains(r.URL.Path, "/values"):
			return `{"sheets": [{"properties": {"sheetId": 0, "title": "Sheet1"}}]}`
		case r.Method == "GET":
			return `{"values": [["Name", "Creator"], ["Old", "bob"]]}`
		}
		return `{}`
	})
	out := runImported(t, files, "ideas", map[string]string{"google_sheets": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["add_to_google_sheets"], `[{"Name": "Idea", "Creator": "ann"}]`)
	wantJSON(t, "requests", *reqs, `[
		"GET /v4/spreadsheets/17mugx8JYjbxaTMK9aqDkJywbc0NlNmStGYq-M5fKmG8?fields=sheets.properties",
		"GET /v4/spreadsheets/17mugx8JYjbxaTMK9aqDkJywbc0NlNmStGYq-M5fKmG8/values/'Sheet1'?dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=FORMATTED_VALUE",
		"POST /v4/spreadsheets/17mugx8JYjbxaTMK9aqDkJywbc0NlNmStGYq-M5fKmG8:batchUpdate {\"requests\":[{\"appendDimension\":{\"dimension\":\"ROWS\",\"length\":1,\"sheetId\":0}}]}",
		"PUT /v4/spreadsheets/17mugx8JYjbxaTMK9aqDkJywbc0NlNmStGYq-M5fKmG8/values/Sheet1!3:3?valueInputOption=USER_ENTERED {\"range\":\"Sheet1!3:3\",\"values\":[[\"Idea\",\"ann\"]]}"]`)
}
