package apps

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// apiRequest is a request the service's stand-in got.
type apiRequest struct {
	Method, Path, Query string
	Auth, Accept, Type  string // the Authorization, Accept and Content-Type headers
	Body                string
}

// runFlow runs the registry's flow name with inputs (api_url, the
// stand-in's URL, added) and its secret, "ya29.token", against a stand-in for the
// service that answers each request with reply; it returns the flow's
// outputs as JSON values and the requests, in order.
func runFlow(t *testing.T, name string, inputs map[string]any, reply func(w http.ResponseWriter, r *http.Request)) (map[string]any, []apiRequest) {
	t.Helper()
	out, reqs, err := tryFlow(t, name, inputs, reply)
	if err != "" {
		t.Fatalf("the run failed: %s", err)
	}
	return out, reqs
}

// writeBlocks writes the registry's blocks the flow name uses into
// dir/blocks, as import writes them beside it.
func writeBlocks(t *testing.T, dir, name string) {
	t.Helper()
	for _, b := range Blocks(name) {
		if err := os.MkdirAll(filepath.Join(dir, "blocks"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "blocks", b+BlockSuffix), Block(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tryFlow is runFlow, for a run that may fail: it returns the failure's
// text, "" when the run succeeds.
func tryFlow(t *testing.T, name string, inputs map[string]any, reply func(w http.ResponseWriter, r *http.Request)) (map[string]any, []apiRequest, string) {
	t.Helper()
	return tryFlowWith(t, name, inputs, nil, reply)
}

// tryFlowWith is tryFlow with the flow's other secrets (the first is
// "ya29.token"): their values, where "{server}" is the stand-in's URL.
func tryFlowWith(t *testing.T, name string, inputs map[string]any, secrets map[string]string, reply func(w http.ResponseWriter, r *http.Request)) (map[string]any, []apiRequest, string) {
	t.Helper()
	var mu sync.Mutex
	var got []apiRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, apiRequest{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
			Auth: r.Header.Get("Authorization"), Accept: r.Header.Get("Accept"), Type: r.Header.Get("Content-Type"), Body: string(b)})
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b)) // for the reply to read too
		reply(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, name+Suffix)
	src := Flow(name)
	if src == nil {
		t.Fatalf("no flow %s", name)
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	writeBlocks(t, dir, name)
	prog, diags := compiler.Compile(file, compiler.Options{Parser: lang.NewParser()})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	given := map[string]compiler.InputValue{}
	all := map[string]any{}
	if prog.InputsByName["api_url"] != nil {
		all["api_url"] = srv.URL
	}
	for k, v := range inputs {
		all[k] = v
	}
	for k, v := range all {
		b, _ := json.Marshal(v)
		given[k] = compiler.InputValue{JSON: b, Source: "the test"}
	}
	vals, diags := prog.ResolveInputs(given)
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
	sec := map[string]string{Secrets(name)[0].Name: "ya29.token"}
	for k, v := range secrets {
		sec[k] = strings.ReplaceAll(v, "{server}", srv.URL)
	}
	res, err := runtime.Apply(context.Background(), prog, runtime.Options{Inputs: vals, Store: st, Executors: ex, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Status != runtime.StatusOK {
		return nil, got, fmt.Sprintf("the run %s: %s", res.Status, res.Diagnostics.Error())
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
	return out, got, ""
}

// replyJSON answers with a JSON text.
func replyJSON(text string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		io.WriteString(w, text)
	}
}

func jsonOf(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

func wantRequests(t *testing.T, got []apiRequest, want ...apiRequest) {
	t.Helper()
	for i := range want {
		if want[i].Auth == "" {
			want[i].Auth = "Bearer ya29.token"
		}
		if want[i].Accept == "" {
			want[i].Accept = "application/json"
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests:\n got %+v\nwant %+v", got, want)
	}
}

func wantItems(t *testing.T, out map[string]any, want string) {
	t.Helper()
	if !reflect.DeepEqual(out["items"], jsonOf(t, want)) {
		b, _ := json.Marshal(out["items"])
		t.Errorf("items:\n got %s\nwant %s", b, want)
	}
}

// Every flow of the registry is formatted, validates, and is named after
// its file; each has a secret (the app's token; WordPress's credential
// is three: its site's URL first), the input api_url (or a secret of the
// site's URL) and the output items, which n8n's converter relies on.
func TestRegistryFlows(t *testing.T) {
	used := map[string]bool{}
	for _, name := range Names() {
		for _, b := range Blocks(name) {
			used[b] = true
		}
	}
	entries, _ := fs.ReadDir(files, "blocks")
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), BlockSuffix)
		src := Block(name)
		if formatted, d := lang.Format(src, e.Name()); d.HasErrors() || string(formatted) != string(src) {
			t.Errorf("blocks/%s is not formatted: %s", e.Name(), d.Error())
		}
		if !used[name] {
			t.Errorf("no flow uses blocks/%s", e.Name())
		}
	}
	names := Names()
	if len(names) == 0 {
		t.Fatal("the registry is empty")
	}
	for _, name := range names {
		src := Flow(name)
		formatted, d := lang.Format(src, name+Suffix)
		if d.HasErrors() || string(formatted) != string(src) {
			t.Errorf("%s is not formatted: %s", name, d.Error())
		}
		dir := t.TempDir()
		file := filepath.Join(dir, name+Suffix)
		os.WriteFile(file, src, 0o644)
		writeBlocks(t, dir, name)
		prog, diags := compiler.Compile(file, compiler.Options{Parser: lang.NewParser()})
		if diags.HasErrors() {
			t.Errorf("%s: %s", name, diags.Error())
			continue
		}
		if prog.Flow.Name != name {
			t.Errorf("%s%s declares flow %q", name, Suffix, prog.Flow.Name)
		}
		secrets := Secrets(name)
		if len(secrets) == 0 || len(prog.Secrets) != len(secrets) || prog.Secrets[0].Name != secrets[0].Name ||
			prog.InputsByName["api_url"] == nil && !strings.HasSuffix(secrets[0].Name, "_url") {
			t.Errorf("%s does not declare its secrets (%v) and the input api_url or a secret of the site's URL first", name, secrets)
		}
		if !strings.Contains(string(src), "\noutput \"items\" {") {
			t.Errorf("%s has no output items", name)
		}
	}
}

// Gmail's Add Label: POST …/messages/ID/modify {addLabelIds}; the item
// is the message the API answers with (GmailV2.node.js, addLabels).
func TestGmailMessageAddLabels(t *testing.T) {
	answer := `{"id": "18c1", "threadId": "18c0", "labelIds": ["INBOX", "Label_47"]}`
	out, reqs := runFlow(t, "gmail_message_add_labels",
		map[string]any{"message_id": "18c1", "label_ids": []string{"Label_47"}}, replyJSON(answer))
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/gmail/v1/users/me/messages/18c1/modify",
		Type: "application/json", Body: `{"addLabelIds":["Label_47"]}`})
	wantItems(t, out, "["+answer+"]")
}

// sheetsAPI stands for the Sheets API: the spreadsheet's sheets, and
// the values of a range.
func sheetsAPI(values string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if !strings.Contains(r.URL.Path, "/values/") {
			io.WriteString(w, `{"sheets": [{"properties": {"sheetId": 0, "title": "Sheet1", "index": 0}}, {"properties": {"sheetId": 1598362133, "title": "Leads 2024", "index": 1}}]}`)
			return
		}
		io.WriteString(w, `{"range": "'Leads 2024'!A1:Z1000", "majorDimension": "ROWS", "values": `+values+`}`)
	}
}

// Gmail's Mark as Read: POST …/messages/ID/modify {removeLabelIds:
// [UNREAD]} (GmailV2.node.js, markAsRead).
func TestGmailMessageMarkAsRead(t *testing.T) {
	answer := `{"id": "18c1", "threadId": "18c0", "labelIds": ["INBOX"]}`
	out, reqs := runFlow(t, "gmail_message_mark_as_read", map[string]any{"message_id": "18c1"}, replyJSON(answer))
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/gmail/v1/users/me/messages/18c1/modify",
		Type: "application/json", Body: `{"removeLabelIds":["UNREAD"]}`})
	wantItems(t, out, "["+answer+"]")
}

// Google Drive's Delete: PATCH …/files/ID {trashed: true} to the trash,
// DELETE with Delete Permanently, supportsAllDrives=true either way; the
// item is {id, success} (deleteFile.operation).
func TestGoogleDriveFileDelete(t *testing.T) {
	out, reqs := runFlow(t, "google_drive_file_delete", map[string]any{"file_id": "1Fx"}, replyJSON(`{"id": "1Fx", "trashed": true}`))
	wantRequests(t, reqs, apiRequest{Method: "PATCH", Path: "/drive/v3/files/1Fx", Query: "supportsAllDrives=true", Type: "application/json", Body: `{"trashed":true}`})
	wantItems(t, out, `[{"id": "1Fx", "success": true}]`)
	_, reqs = runFlow(t, "google_drive_file_delete", map[string]any{"file_id": "1Fx", "permanently": true}, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	if len(reqs) != 1 || reqs[0].Method != "DELETE" || reqs[0].Body != "" {
		t.Errorf("permanently: %+v", reqs)
	}
}

// Google Sheets' Get Row(s): the sheet found by its ID, then its values
// as objects by the header row with their row_number, empty rows and
// columns left out, short rows padded with "" (GoogleSheetsV2
// readSheet's removeEmptyColumns); filters as n8n's
// lookupValues (AND by default, text comparison, first match).
func TestGoogleSheetsReadRows(t *testing.T) {
	values := `[["name", "age", "", "city"], ["Ann", 31, "", "Oslo"], [], ["Bob", 42, "", "Rome"], ["Cid", 31]]`
	out, reqs := runFlow(t, "google_sheets_read_rows",
		map[string]any{"document_id": "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "sheet": "1598362133"}, sheetsAPI(values))
	wantRequests(t, reqs,
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", Query: "fields=sheets.properties"},
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/values/'Leads%202024'",
			Query: "dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=UNFORMATTED_VALUE"})
	wantItems(t, out, `[{"row_number": 2, "name": "Ann", "age": 31, "city": "Oslo"}, {"row_number": 4, "name": "Bob", "age": 42, "city": "Rome"}, {"row_number": 5, "name": "Cid", "age": 31, "city": ""}]`)

	out, _ = runFlow(t, "google_sheets_read_rows",
		map[string]any{"document_id": "1AbC", "sheet": "Leads 2024", "sheet_by": "name",
			"filters": []map[string]any{{"lookupColumn": "age", "lookupValue": "31"}}}, sheetsAPI(values))
	wantItems(t, out, `[{"row_number": 2, "name": "Ann", "age": 31, "city": "Oslo"}, {"row_number": 5, "name": "Cid", "age": 31, "city": ""}]`)
	out, _ = runFlow(t, "google_sheets_read_rows",
		map[string]any{"document_id": "1AbC", "sheet": "gid=0", "match": "first",
			"filters": []map[string]any{{"lookupColumn": "age", "lookupValue": 31}}}, sheetsAPI(values))
	wantItems(t, out, `[{"row_number": 2, "name": "Ann", "age": 31, "city": "Oslo"}]`)
}

// sheetsTable stands for the Sheets API over a sheet "Leads 2024" whose
// values are rows: the sheets, the whole sheet's values, the header row
// (RANGE!1:1), and an empty answer to writes.
func sheetsTable(rows string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		var values [][]any
		json.Unmarshal([]byte(rows), &values)
		switch {
		case r.Method != "GET":
			io.WriteString(w, `{}`)
		case !strings.Contains(r.URL.Path, "/values/"):
			io.WriteString(w, `{"sheets": [{"properties": {"sheetId": 1598362133, "title": "Leads 2024", "index": 0}}]}`)
		case strings.HasSuffix(r.URL.Path, "!1:1"):
			if len(values) == 0 {
				io.WriteString(w, `{"range": "'Leads 2024'!A1:Z1"}`)
				return
			}
			b, _ := json.Marshal(values[:1])
			io.WriteString(w, `{"values": `+string(b)+`}`)
		default:
			if len(values) == 0 {
				io.WriteString(w, `{"range": "'Leads 2024'!A1:Z1000"}`)
				return
			}
			io.WriteString(w, `{"values": `+rows+`}`)
		}
	}
}

// Google Sheets' Append Row (defineBelow): the header checked against
// the node's columns, a row added at the end of the sheet, the header
// read, then the rows written under it from the row after the last
// (GoogleSheetsV2 append.operation, appendSheetData); the items are the
// rows mapped. autoMapInputData adds the items' new keys as columns.
func TestGoogleSheetsAppendRows(t *testing.T) {
	table := `[["name", "age"], ["Ann", 31], ["Bob", 42]]`
	out, reqs := runFlow(t, "google_sheets_append_rows", map[string]any{"document_id": "1AbC", "sheet": "1598362133",
		"rows": []map[string]any{{"name": "Cy", "age": 7}, {"name": "Di", "age": map[string]any{"years": 9}}}, "schema": []string{"name", "age"}}, sheetsTable(table))
	wantRequests(t, reqs,
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1AbC", Query: "fields=sheets.properties"},
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1AbC/values/'Leads%202024'", Query: "dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=FORMATTED_VALUE"},
		apiRequest{Method: "POST", Path: "/v4/spreadsheets/1AbC:batchUpdate", Type: "application/json",
			Body: `{"requests":[{"appendDimension":{"dimension":"ROWS","length":1,"sheetId":1598362133}}]}`},
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1AbC/values/Leads%202024!1:1", Query: "dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=UNFORMATTED_VALUE"},
		apiRequest{Method: "PUT", Path: "/v4/spreadsheets/1AbC/values/Leads%202024!4:5", Query: "valueInputOption=USER_ENTERED", Type: "application/json",
			Body: `{"range":"Leads 2024!4:5","values":[["Cy",7],["Di","{\"years\":9}"]]}`})
	wantItems(t, out, `[{"name": "Cy", "age": 7}, {"name": "Di", "age": {"years": 9}}]`)

	// A column renamed since the node was set up fails, as in n8n.
	_, _, err := tryFlow(t, "google_sheets_append_rows", map[string]any{"document_id": "1AbC", "sheet": "1598362133",
		"rows": []map[string]any{{"name": "Cy"}}, "schema": []string{"name", "years"}}, sheetsTable(table))
	if !strings.Contains(err, "Column names were updated after the node's setup: years -> age") {
		t.Errorf("renamed column: %s", err)
	}

	out, reqs = runFlow(t, "google_sheets_append_rows", map[string]any{"document_id": "1AbC", "sheet": "1598362133", "mapping_mode": "autoMapInputData",
		"rows": []map[string]any{{"name": "Cy", "city": "Oslo", "row_number": "9"}}}, sheetsTable(table))
	wantRequests(t, reqs[2:4],
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1AbC/values/Leads%202024!1:1", Query: "dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=FORMATTED_VALUE"},
		apiRequest{Method: "PUT", Path: "/v4/spreadsheets/1AbC/values/Leads%202024!1:1", Query: "valueInputOption=RAW", Type: "application/json",
			Body: `{"range":"Leads 2024!1:1","values":[["name","age","city"]]}`})
	if got := reqs[len(reqs)-1]; got.Body != `{"range":"Leads 2024!4:4","values":[["Cy","",]]}` && got.Body != `{"range":"Leads 2024!4:4","values":[["Cy",""]]}` {
		t.Errorf("rows written: %+v", got)
	}
	wantItems(t, out, `[{"name": "Cy", "city": "Oslo", "row_number": "9"}]`)
}

// Google Sheets' Update Row (Map Each Column Manually): the sheet read,
// then one values:batchUpdate of each row's cells in the row whose
// column to match on holds its value; a row that matches none writes
// nothing, and the items are the rows mapped, all of them. The requests
// and items are those n8n's update.operation gives on the same answers
// (n8n 2.8.4's code run with node). Matching on row_number writes the
// row of that number.
func TestGoogleSheetsUpdateRows(t *testing.T) {
	table := `[["SESSION", "STATE", "USER"], ["s1", "active", "u1"], ["s2", "active", "u2"]]`
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case !strings.Contains(r.URL.Path, "/values"):
			io.WriteString(w, `{"sheets": [{"properties": {"sheetId": 207843712, "title": "Session"}}]}`)
		case r.Method == "GET":
			io.WriteString(w, `{"values": `+table+`}`)
		default:
			io.WriteString(w, `{}`)
		}
	}
	out, reqs := runFlow(t, "google_sheets_update_rows", map[string]any{"document_id": "1MCJ", "sheet": "207843712", "match_column": "SESSION",
		"rows": []map[string]any{{"STATE": "expire", "SESSION": "s2"}, {"STATE": "expire", "SESSION": "s9"}}}, reply)
	wantRequests(t, reqs[1:],
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1MCJ/values/'Session'", Query: "dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=FORMATTED_VALUE"},
		apiRequest{Method: "POST", Path: "/v4/spreadsheets/1MCJ/values:batchUpdate", Type: "application/json",
			Body: `{"data":[{"range":"Session!B3","values":[["expire"]]}],"valueInputOption":"USER_ENTERED"}`})
	wantItems(t, out, `[{"STATE": "expire", "SESSION": "s2"}, {"STATE": "expire", "SESSION": "s9"}]`)

	out, reqs = runFlow(t, "google_sheets_update_rows", map[string]any{"document_id": "1MCJ", "sheet": "207843712", "match_column": "SESSION",
		"rows": []map[string]any{{"STATE": "expire", "SESSION": "s9"}}}, reply)
	if len(reqs) != 2 {
		t.Errorf("no row matches, yet %d requests: %+v", len(reqs), reqs)
	}
	wantItems(t, out, `[]`)

	_, reqs = runFlow(t, "google_sheets_update_rows", map[string]any{"document_id": "1MCJ", "sheet": "207843712", "match_column": "row_number",
		"rows": []map[string]any{{"STATE": "done", "row_number": "2"}}}, reply)
	if got := reqs[len(reqs)-1].Body; got != `{"data":[{"range":"Session!B2","values":[["done"]]}],"valueInputOption":"USER_ENTERED"}` {
		t.Errorf("by row_number: %s", got)
	}
}

// Gmail's Send: POST …/messages/send {raw}, the message as n8n's node
// fills it — its recipients as prepareEmailsInput reads them, the
// subject (an encoded word when not ASCII), the text trimmed with n8n's
// attribution when asked; with a sender name, the account's address read
// from its profile. The item is the API's answer.
func TestGmailMessageSend(t *testing.T) {
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/profile") {
			io.WriteString(w, `{"emailAddress": "me@x.org"}`)
			return
		}
		io.WriteString(w, `{"id": "18c2", "threadId": "18c2", "labelIds": ["SENT"]}`)
	}
	out, reqs := runFlow(t, "gmail_message_send", map[string]any{"send_to": "a@x.org, Bo <b@y.org>", "subject": "Grüße",
		"message": "  Hello\n", "email_type": "text", "attribution": true, "cc": "c@z.org", "sender_name": "Me"}, reply)
	wantItems(t, out, `[{"id": "18c2", "threadId": "18c2", "labelIds": ["SENT"]}]`)
	if len(reqs) != 2 || reqs[0].Path != "/gmail/v1/users/me/profile" || reqs[1].Method != "POST" || reqs[1].Path != "/gmail/v1/users/me/messages/send" {
		t.Fatalf("requests: %+v", reqs)
	}
	var body struct{ Raw string }
	json.Unmarshal([]byte(reqs[1].Body), &body)
	raw, err := base64.RawURLEncoding.DecodeString(body.Raw)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("%v:\n%s", err, raw)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	to, _ := msg.Header.AddressList("To")
	text, _ := io.ReadAll(base64.NewDecoder(base64.StdEncoding, msg.Body))
	got := fmt.Sprintf("From: %s\nTo: %v\nCc: %s\nSubject: %s\nType: %s\n%s", msg.Header.Get("From"), to, msg.Header.Get("Cc"), subject, msg.Header.Get("Content-Type"), text)
	want := "From: Me <me@x.org>\nTo: [<a@x.org> \"Bo\" <b@y.org>]\nCc: c@z.org\nSubject: Grüße\nType: text/plain; charset=utf-8\nHello\n\n---\nThis email was sent automatically with n8n\nhttps://n8n.io"
	if got != want {
		t.Errorf("the message:\n%s\nwant\n%s", got, want)
	}

	// An HTML message with the attribution: the body n8n's
	// prepareEmailBody gives without an instance ID (n8n 2.8.4's code run
	// with node on "  <p>Hi</p>\n").
	_, reqs = runFlow(t, "gmail_message_send", map[string]any{"send_to": "a@x.org", "message": "  <p>Hi</p>\n", "attribution": true}, reply)
	json.Unmarshal([]byte(reqs[len(reqs)-1].Body), &body)
	raw, _ = base64.RawURLEncoding.DecodeString(body.Raw)
	if msg, err = mail.ReadMessage(strings.NewReader(string(raw))); err != nil {
		t.Fatalf("%v:\n%s", err, raw)
	}
	text, _ = io.ReadAll(base64.NewDecoder(base64.StdEncoding, msg.Body))
	html := "\n\t\t\t<p>Hi</p>\n\t\t\t<br>\n\t\t\t<br>\n\t\t\t---\n\t\t\t<br>\n\t\t\t<em>This email was sent automatically with <a href=\"https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.gmail\" target=\"_blank\">n8n</a></em>\n\t\t\t"
	if got := msg.Header.Get("Content-Type") + "\n" + string(text); got != "text/html; charset=utf-8\n"+html {
		t.Errorf("the HTML message with the attribution:\n%q", got)
	}

	_, _, failed := tryFlow(t, "gmail_message_send", map[string]any{"send_to": "nobody"}, reply)
	if !strings.Contains(failed, "Invalid email address: the email address 'nobody' in the 'To' field isn't valid") {
		t.Errorf("an address without @: %s", failed)
	}
}

// Google Sheets' Append or Update Row (Map Each Column Manually): the
// rows matched updated with one values:batchUpdate, the others appended
// after the last row, under the header; the items are the rows mapped.
// The requests and items are those n8n's appendOrUpdate.operation gives
// on the same answers (n8n 2.8.4's code run with node).
func TestGoogleSheetsAppendOrUpdateRows(t *testing.T) {
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case !strings.Contains(r.URL.Path, "/values"):
			io.WriteString(w, `{"sheets": [{"properties": {"sheetId": 207843712, "title": "Session"}}]}`)
		case r.Method == "GET":
			io.WriteString(w, `{"values": [["SESSION", "STATE", "USER"], ["s1", "active", "u1"], ["s2", "active", "u2"]]}`)
		default:
			io.WriteString(w, `{}`)
		}
	}
	out, reqs := runFlow(t, "google_sheets_append_or_update_rows", map[string]any{"document_id": "1MCJ", "sheet": "207843712", "match_column": "SESSION",
		"schema": []string{"SESSION", "STATE", "USER"},
		"rows":   []map[string]any{{"STATE": "expire", "SESSION": "s2"}, {"STATE": "new", "SESSION": "s9"}}}, reply)
	wantRequests(t, reqs[1:],
		apiRequest{Method: "GET", Path: "/v4/spreadsheets/1MCJ/values/'Session'", Query: "dateTimeRenderOption=FORMATTED_STRING&valueRenderOption=FORMATTED_VALUE"},
		apiRequest{Method: "POST", Path: "/v4/spreadsheets/1MCJ/values:batchUpdate", Type: "application/json",
			Body: `{"data":[{"range":"Session!B3","values":[["expire"]]}],"valueInputOption":"USER_ENTERED"}`},
		apiRequest{Method: "POST", Path: "/v4/spreadsheets/1MCJ:batchUpdate", Type: "application/json",
			Body: `{"requests":[{"appendDimension":{"dimension":"ROWS","length":1,"sheetId":207843712}}]}`},
		apiRequest{Method: "PUT", Path: "/v4/spreadsheets/1MCJ/values/Session!4:4", Query: "valueInputOption=USER_ENTERED", Type: "application/json",
			Body: `{"range":"Session!4:4","values":[["s9","new",""]]}`})
	wantItems(t, out, `[{"STATE": "expire", "SESSION": "s2"}, {"STATE": "new", "SESSION": "s9"}]`)
}
