package n8n_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/importer/n8n/apps"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
)

// pollWorkflow is a workflow whose trigger is the polling node trigger,
// then the nodes in a chain.
func pollWorkflow(t *testing.T, trigger string, nodes ...string) []byte {
	t.Helper()
	all := append([]string{trigger}, nodes...)
	conns := map[string]any{}
	for i := range all[:len(all)-1] {
		var from, to struct{ Name string }
		if json.Unmarshal([]byte(all[i]), &from) != nil || json.Unmarshal([]byte(all[i+1]), &to) != nil {
			t.Fatalf("%s", all[i])
		}
		conns[from.Name] = map[string]any{"main": [][]map[string]any{{{"node": to.Name, "type": "main", "index": 0}}}}
	}
	return []byte(`{"name": "poll", "nodes": [` + strings.Join(all, ",\n") + `], "connections": ` + string(mustJSON(conns)) + `}`)
}

// runs runs an imported flow n times in one directory, so that its
// memories are kept from a run to the next; before each run, before(i).
func runs(t *testing.T, files map[string]string, flow string, secrets map[string]string, api string, n int, before func(i int)) {
	t.Helper()
	dir := t.TempDir()
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
	for i := range n {
		before(i)
		vals, diags := prog.ResolveInputs(nil)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		res, err := runtime.Apply(context.Background(), prog, runtime.Options{Inputs: vals, Store: st, Executors: ex, Secrets: secrets})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != runtime.StatusOK {
			t.Fatalf("run %d %s: %s", i+1, res.Status, res.Diagnostics.Error())
		}
	}
}

// The Gmail Trigger, Simplify on, then a Gmail node that marks each
// message read; the nodes of
// Zie619+n8n-workflows/workflows__Gmail__0319_Gmail_Googlecalendartool_Send_Triggered.json
// ("Gmail Trigger", "Mark as read", its message the item's). A schedule
// for its poll time, a memory of what n8n keeps, the poll's step; three
// runs: the first lists nothing (after the time now) and marks nothing,
// the second lists a message received after the kept time and marks it,
// the third lists it again and marks nothing.
func TestGmailTriggerImported(t *testing.T) {
	trigger := `{"id": "a7d0a8b5-5c5b-4e2a-9f1b-3c1f0a7d2e11", "name": "Gmail Trigger", "type": "n8n-nodes-base.gmailTrigger", "position": [-340, -660], "parameters": {"filters": {"readStatus": "unread", "includeSpamTrash": false}, "pollTimes": {"item": [{"mode": "everyMinute"}]}}, "credentials": {"gmailOAuth2": {"id": "Sf5Gfl9NiFTNXFWb", "name": "Gmail account"}}, "typeVersion": 1.2}`
	mark := `{"id": "47e07b6c-d432-4111-b33e-56d6c305c40c", "name": "Mark as read", "type": "n8n-nodes-base.gmail", "position": [940, -480], "parameters": {"messageId": "={{ $json.id }}", "operation": "markAsRead"}, "credentials": {"gmailOAuth2": {"id": "Sf5Gfl9NiFTNXFWb", "name": "Gmail account"}}, "typeVersion": 2.1}`
	files, diags := importApp(t, pollWorkflow(t, trigger, mark))
	wantDiags(t, diags, "warning /nodes/0/parameters Schedule in UTC", "warning /nodes/0/credentials/gmailOAuth2 OAuth2 access token")
	wantIn(t, files["poll.flow.hcl"], `memory "gmail_trigger_state" {
  type        = any
  default     = null
  value       = step.gmail_trigger[0].state
`)
	wantIn(t, files["poll.flow.hcl"], `schedule "gmail_trigger_1" {
  cron = "* * * * *"
}`)
	wantIn(t, files["poll.flow.hcl"], `  use                = "flow.gmail_message_poll"
  for_each           = [{}]
  read_status        = "unread"
  include_spam_trash = false
  drafts             = false
  state              = memory.gmail_trigger_state
}`)
	if files["blocks/poll_clock.block.hcl"] == "" {
		t.Errorf("the clock's block is not written: %v", keys(files))
	}
	listed := ""
	srv, reqs := standIn(t, func(r *http.Request) string {
		switch r.URL.Path {
		case "/gmail/v1/users/me/messages":
			return listed
		case "/gmail/v1/users/me/messages/m1":
			return `{"id": "m1", "threadId": "t1", "labelIds": ["INBOX", "UNREAD"], "snippet": "hi", "payload": {"headers": [{"name": "Subject", "value": "Meet?"}]}, "internalDate": "1700000100000"}`
		case "/gmail/v1/users/me/labels":
			return `{"labels": [{"id": "INBOX", "name": "INBOX"}, {"id": "UNREAD", "name": "UNREAD"}]}`
		}
		return `{"id": "m1", "labelIds": ["INBOX"]}` // markAsRead
	})
	var first string
	runs(t, files, "poll", map[string]string{"gmail": "ya29.token"}, srv.URL, 3, func(i int) {
		switch i {
		case 0:
			listed = `{"resultSizeEstimate": 0}`
		case 1:
			if len(*reqs) != 1 {
				t.Fatalf("the first poll: %q", *reqs)
			}
			first = (*reqs)[0]
			*reqs = nil
			listed = `{"messages": [{"id": "m1", "threadId": "t1"}]}`
		case 2:
			var marked []string
			for _, r := range *reqs {
				if strings.HasPrefix(r, "POST ") {
					marked = append(marked, r)
				}
			}
			if len(marked) != 1 || !strings.HasPrefix(marked[0], "POST /gmail/v1/users/me/messages/m1/modify") {
				t.Errorf("the second poll marks %q", marked)
			}
			// The second poll asks after the time the first kept.
			u, _ := url.Parse(strings.Fields((*reqs)[0])[1])
			f, _ := url.Parse(strings.Fields(first)[1])
			if q := u.Query().Get("q"); q != f.Query().Get("q") || !strings.HasPrefix(q, "is:unread after:") {
				t.Errorf("the second poll's query %q, the first's %q", q, f.Query().Get("q"))
			}
			*reqs = nil
		}
	})
	for _, r := range *reqs {
		if strings.HasPrefix(r, "POST ") {
			t.Errorf("the third poll marks again: %q", *reqs)
		}
	}
	if len(*reqs) == 0 || !strings.Contains((*reqs)[0], "q=is%3Aunread+after%3A1700000100") && !strings.Contains((*reqs)[0], "q=is%3Aunread%20after%3A1700000100") {
		t.Errorf("the third poll: %q", *reqs)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The Google Drive Trigger, File Created in a folder; the node of
// Zie619+n8n-workflows/workflows__Code__1865_Code_HTTP_Create_Webhook.json
// ("New Video?"). Its folder by URL is the URL's ID (n8n's extractId).
// Simplify off on the Gmail Trigger (the raw message parsed by
// mailparser), and Watch Folder Updated, are refused at their paths.
func TestGoogleDriveTriggerImported(t *testing.T) {
	trigger := `{"id": "0b6a0d0e-7a52-4d3f-9a6f-2f0c7b1e9d10", "name": "New Video?", "type": "n8n-nodes-base.googleDriveTrigger", "position": [0, 0], "parameters": {"event": "fileCreated", "options": {}, "pollTimes": {"item": [{"mode": "everyMinute"}]}, "triggerOn": "specificFolder", "folderToWatch": {"__rl": true, "mode": "id", "value": "1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR"}}, "credentials": {"googleDriveOAuth2Api": {"id": "1", "name": "Google Drive account"}}, "typeVersion": 1}`
	files, diags := importApp(t, pollWorkflow(t, trigger))
	wantDiags(t, diags, "warning /nodes/0/parameters Schedule in UTC", "warning /nodes/0/credentials/googleDriveOAuth2Api OAuth2 access token")
	wantIn(t, files["poll.flow.hcl"], `  use      = "flow.google_drive_file_poll"
  for_each = [{}]
  folder   = "1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR"
  event    = "fileCreated"
  state    = memory.new_video_state
}`)
	byURL := strings.Replace(trigger, `"mode": "id", "value": "1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR"`, `"mode": "url", "value": "https://drive.google.com/drive/folders/1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR"`, 1)
	files, _ = importApp(t, pollWorkflow(t, strings.Replace(byURL, `"options": {}`, `"options": {"fileType": "application/pdf"}`, 1)))
	wantIn(t, files["poll.flow.hcl"], `  folder    = "1EOMCzVDif4XnqCloYvhBNZdx7gyRNpTR"
  event     = "fileCreated"
  file_type = "application/pdf"
`)

	for _, c := range []struct{ node, at string }{
		{strings.Replace(trigger, `"event": "fileCreated"`, `"event": "watchFolderUpdated"`, 1), "/nodes/0/parameters/event Unsupported option"},
		{strings.Replace(trigger, `"triggerOn": "specificFolder"`, `"triggerOn": "specificFile"`, 1), "/nodes/0/parameters/triggerOn Unsupported option"},
		// Zie619+n8n-workflows/workflows__Aggregate__0472_Aggregate_Gmail_Create_Triggered.json
		{`{"id": "1", "name": "Gmail Trigger", "type": "n8n-nodes-base.gmailTrigger", "position": [0, 0], "parameters": {"simple": false, "filters": {}, "options": {}, "pollTimes": {"item": [{"mode": "everyMinute"}]}}, "credentials": {"gmailOAuth2": {"id": "1", "name": "Gmail account"}}, "typeVersion": 1.2}`, "/nodes/0/parameters/simple Unsupported option"},
	} {
		_, diags := importApp(t, pollWorkflow(t, c.node))
		found := false
		for _, d := range diags {
			found = found || d == "error "+c.at
		}
		if !found {
			t.Errorf("%s: %q", c.at, diags)
		}
	}
}

// The Airtable Trigger on the field created_at, then an Airtable node
// that gets each record; the nodes of
// oxbshw+ultimate-n8n-ai-workflows/workflows__1261_Airtabletool_Stickynote_Automation_Triggered.json
// ("Airtable Trigger: New Record", "Get Airtable Record Data", its
// record the item's). Two runs: the first finds nothing and gets
// nothing, the second finds a record created after the time the first
// kept and gets it. Download Attachments and the Fields option are
// refused; a credential that is none of the node's is refused.
func TestAirtableTriggerImported(t *testing.T) {
	trigger := `{"id": "ddc9159e-0da7-4844-84c5-eca981b9d52f", "name": "Airtable Trigger: New Record", "type": "n8n-nodes-base.airtableTrigger", "position": [-360, -120], "parameters": {"baseId": {"__rl": true, "mode": "id", "value": "appXvZviYORVbPEaS"}, "tableId": {"__rl": true, "mode": "id", "value": "tblxsKj5PtumCR9um"}, "pollTimes": {"item": [{"mode": "everyMinute"}]}, "triggerField": "created_at", "authentication": "airtableTokenApi", "additionalFields": {}}, "credentials": {"airtableTokenApi": {"id": "pMphGrxsDsELetHZ", "name": "Airtable account"}}, "typeVersion": 1}`
	get := `{"id": "2", "name": "Get Airtable Record Data", "type": "n8n-nodes-base.airtable", "position": [0, 0], "parameters": {"id": "={{ $json.id }}", "base": {"__rl": true, "mode": "id", "value": "appXvZviYORVbPEaS"}, "table": {"__rl": true, "mode": "id", "value": "tblxsKj5PtumCR9um"}, "options": {}}, "credentials": {"airtableTokenApi": {"id": "pMphGrxsDsELetHZ", "name": "Airtable account"}}, "typeVersion": 2.1}`
	files, diags := importApp(t, pollWorkflow(t, trigger, get))
	wantDiags(t, diags, "warning /nodes/0/parameters Schedule in UTC")
	wantIn(t, files["poll.flow.hcl"], `  use           = "flow.airtable_record_poll"
  for_each      = [{}]
  base          = "appXvZviYORVbPEaS"
  table         = "tblxsKj5PtumCR9um"
  trigger_field = "created_at"
  state         = memory.airtable_trigger_new_record_state
}`)
	records := `{"records": []}`
	srv, reqs := standIn(t, func(r *http.Request) string {
		if strings.HasSuffix(r.URL.Path, "/rec1") {
			return `{"id": "rec1", "createdTime": "2024-06-14T10:00:10.000Z", "fields": {"Name": "a"}}`
		}
		return records
	})
	var first string
	runs(t, files, "poll", map[string]string{"airtable": "ya29.token"}, srv.URL, 2, func(i int) {
		if i == 1 {
			if len(*reqs) != 1 {
				t.Fatalf("the first poll: %q", *reqs)
			}
			first, *reqs = (*reqs)[0], nil
			records = `{"records": [{"id": "rec1", "createdTime": "2024-06-14T10:00:10.000Z", "fields": {"Name": "a", "created_at": "2024-06-14T10:00:10.000Z"}}]}`
		}
	})
	u, _ := url.Parse(strings.Fields(first)[1])
	kept := u.Query().Get("filterByFormula")
	if len(*reqs) != 2 || !strings.Contains((*reqs)[0], url.QueryEscape(kept)) && !strings.Contains((*reqs)[0], strings.ReplaceAll(url.QueryEscape(kept), "+", "%20")) ||
		!strings.HasPrefix((*reqs)[1], "GET /v0/appXvZviYORVbPEaS/tblxsKj5PtumCR9um/rec1") {
		t.Errorf("the second poll: %q; the first asked %q", *reqs, kept)
	}

	for _, c := range []struct{ from, to, at string }{
		{`"additionalFields": {}`, `"additionalFields": {"fields": "Name,Notes"}`, "/nodes/0/parameters/additionalFields/fields Unsupported option"},
		{`"additionalFields": {}`, `"additionalFields": {}, "downloadAttachments": true`, "/nodes/0/parameters/downloadAttachments Unsupported option"},
		// Zie619+n8n-workflows/workflows__Linkedin__1951_Linkedin_Webhook_Automation_Webhook.json
		{`"authentication": "airtableTokenApi"`, `"authentication": "{{ $credentials.airtableOAuth2Api }}"`, "/nodes/0/parameters/authentication Unsupported credential"},
	} {
		_, diags := importApp(t, pollWorkflow(t, strings.Replace(trigger, c.from, c.to, 1)))
		found := false
		for _, d := range diags {
			found = found || d == "error "+c.at
		}
		if !found {
			t.Errorf("%s: %q", c.at, diags)
		}
	}
}

// The Google Sheets Trigger, Row Added; the node of
// oxbshw+ultimate-n8n-ai-workflows/automation__1618_Openai_GoogleSheets_Create_Triggered.json
// ("Check for new entries"), its own credential a secret of its own.
// Row Updated, and the Data Location on Sheet option, are refused.
func TestGoogleSheetsTriggerImported(t *testing.T) {
	trigger := `{"id": "1", "name": "Check for new entries", "type": "n8n-nodes-base.googleSheetsTrigger", "position": [0, 0], "parameters": {"event": "rowAdded", "options": {}, "pollTimes": {"item": [{"mode": "everyMinute"}]}, "sheetName": {"__rl": true, "mode": "list", "value": 72739218, "cachedResultUrl": "https://docs.google.com/spreadsheets/d/1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs/edit#gid=72739218", "cachedResultName": "Form Responses 1"}, "documentId": {"__rl": true, "mode": "list", "value": "1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs", "cachedResultUrl": "https://docs.google.com/spreadsheets/d/1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs/edit?usp=drivesdk", "cachedResultName": "Join Community (Responses)"}}, "credentials": {"googleSheetsTriggerOAuth2Api": {"id": "m33qCYf9eEvSgo0x", "name": "Google Sheets Trigger"}}, "typeVersion": 1}`
	files, diags := importApp(t, pollWorkflow(t, trigger))
	wantDiags(t, diags, "warning /nodes/0/parameters Schedule in UTC", "warning /nodes/0/credentials/googleSheetsTriggerOAuth2Api OAuth2 access token")
	wantIn(t, files["poll.flow.hcl"], `secret "google_sheets_trigger" {`)
	wantIn(t, files["poll.flow.hcl"], `  use         = "flow.google_sheets_row_poll"
  for_each    = [{}]
  document_id = "1jk8ZbfOMObvHGGImc0sBJTZB_hracO4jRqfbryMgzEs"
  sheet       = "72739218"
  state       = memory.check_for_new_entries_state
}`)
	if files["blocks/google_sheets_trigger_rows.block.hcl"] == "" || files["blocks/google_sheets_sheet.block.hcl"] == "" {
		t.Errorf("the flow's blocks are not written: %v", keys(files))
	}
	for _, c := range []struct{ from, to, at string }{
		{`"event": "rowAdded"`, `"event": "rowUpdate"`, "/nodes/0/parameters/event Unsupported option"},
		{`"options": {}`, `"options": {"dataLocationOnSheet": {"values": {"rangeDefinition": "specifyRange"}}}`, "/nodes/0/parameters/options/dataLocationOnSheet Unsupported option"},
	} {
		_, diags := importApp(t, pollWorkflow(t, strings.Replace(trigger, c.from, c.to, 1)))
		found := false
		for _, d := range diags {
			found = found || d == "error "+c.at
		}
		if !found {
			t.Errorf("%s: %q", c.at, diags)
		}
	}
}
