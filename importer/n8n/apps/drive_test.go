package apps

import (
	"encoding/base64"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"
)

// driveAPI stands for the Drive API's files: f1 a JSON file, d1 a Google
// Docs document, exported as the query's mimeType asks.
func driveAPI(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/drive/v3/files/f1" && r.URL.Query().Get("alt") == "media":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"id": "T1059"}]`)
	case r.URL.Path == "/drive/v3/files/f1":
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		io.WriteString(w, `{"mimeType": "application/json", "name": "mitre.json"}`)
	case r.URL.Path == "/drive/v3/files/d1":
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		io.WriteString(w, `{"mimeType": "application/vnd.google-apps.document", "name": "Notes"}`)
	case r.URL.Path == "/drive/v3/files/d1/export":
		w.Header().Set("Content-Type", r.URL.Query().Get("mimeType"))
		io.WriteString(w, "Notes\r\n")
	default:
		http.NotFound(w, r)
	}
}

// Google Drive's File → Download: the file's mimeType and name, then its
// bytes (alt=media), or a Google file's export in the format of Google
// File Conversion (n8n's default for a document: Word); the item is the
// file, its type the answer's Content-Type (file/download.operation.js).
func TestGoogleDriveFileDownload(t *testing.T) {
	out, reqs := runFlow(t, "google_drive_file_download", map[string]any{"file_id": "f1"}, driveAPI)
	wantItems(t, out, `[{"data": "`+base64.StdEncoding.EncodeToString([]byte(`[{"id": "T1059"}]`))+`", "mimeType": "application/json"}]`)
	var got []string
	for _, r := range reqs {
		if r.Auth != "Bearer ya29.token" {
			t.Errorf("%s: authorization %q", r.Path, r.Auth)
		}
		got = append(got, r.Method+" "+r.Path+" "+queryKey(t, r.Query))
	}
	want := "GET /drive/v3/files/f1 fields=mimeType,name&supportsAllDrives=true&supportsTeamDrives=true\nGET /drive/v3/files/f1 alt=media&supportsAllDrives=true"
	if strings.Join(got, "\n") != want {
		t.Errorf("requests:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}

	// A Google Docs document: exported, by default as a Word document.
	out, reqs = runFlow(t, "google_drive_file_download", map[string]any{"file_id": "d1"}, driveAPI)
	word := "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	wantItems(t, out, `[{"data": "Tm90ZXMNCg==", "mimeType": "`+word+`"}]`)
	if len(reqs) != 2 || reqs[1].Path != "/drive/v3/files/d1/export" || queryKey(t, reqs[1].Query) != "mimeType="+word+"&supportsAllDrives=true" {
		t.Errorf("requests: %+v", reqs)
	}
	out, _ = runFlow(t, "google_drive_file_download", map[string]any{"file_id": "d1", "docs_to_format": "text/plain", "sheets_to_format": "text/csv"}, driveAPI)
	wantItems(t, out, `[{"data": "Tm90ZXMNCg==", "mimeType": "text/plain"}]`)

	// A file the API does not find fails the run, as n8n fails the node.
	if _, _, err := tryFlow(t, "google_drive_file_download", map[string]any{"file_id": "nope"}, driveAPI); !strings.Contains(err, "404") {
		t.Errorf("a missing file: %q", err)
	}
}

// Google Docs' Create, Get and Update (GoogleDocs.node.js v2): the
// requests n8n's node sends and the items it gives on the same answers.
func TestGoogleDocsDocument(t *testing.T) {
	out, reqs := runFlow(t, "google_docs_document_create", map[string]any{"title": "RFP response", "folder_id": "1y0I8"}, replyJSON(`{"kind": "drive#file", "id": "d1", "name": "RFP response", "mimeType": "application/vnd.google-apps.document"}`))
	wantItems(t, out, `[{"kind": "drive#file", "id": "d1", "name": "RFP response", "mimeType": "application/vnd.google-apps.document"}]`)
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/drive/v3/files", Type: "application/json", Body: `{"mimeType":"application/vnd.google-apps.document","name":"RFP response","parents":["1y0I8"]}`})
	_, reqs = runFlow(t, "google_docs_document_create", map[string]any{"title": "Notes", "folder_id": "default"}, replyJSON(`{"id": "d2"}`))
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/drive/v3/files", Type: "application/json", Body: `{"mimeType":"application/vnd.google-apps.document","name":"Notes"}`})

	doc := `{"documentId": "d1", "title": "Notes", "body": {"content": [{"endIndex": 1, "sectionBreak": {}}, {"paragraph": {"elements": [{"textRun": {"content": "Hello "}}, {"inlineObjectElement": {}}, {"textRun": {"content": "world\n"}}]}}, {"table": {}}, {"paragraph": {"elements": [{"textRun": {"content": "Bye\n"}}]}}]}}`
	out, reqs = runFlow(t, "google_docs_document_get", map[string]any{"document": "https://docs.google.com/document/d/d1/edit"}, replyJSON(doc))
	wantItems(t, out, `[{"documentId": "d1", "content": "Hello world\nBye\n"}]`)
	wantRequests(t, reqs, apiRequest{Method: "GET", Path: "/v1/documents/d1"})
	out, reqs = runFlow(t, "google_docs_document_get", map[string]any{"document": "d1", "simple": false}, replyJSON(doc))
	wantItems(t, out, "["+doc+"]")
	wantRequests(t, reqs, apiRequest{Method: "GET", Path: "/v1/documents/d1"})

	insert := map[string]any{"action": "insert", "text": "Title\n", "location": "endOfSegmentLocation", "segment_id": "", "index": 0, "replace_text": "", "match_case": false}
	out, reqs = runFlow(t, "google_docs_document_update", map[string]any{"document": "d1", "actions": []any{insert}}, replyJSON(`{"replies": [{}], "writeControl": {"requiredRevisionId": "r2"}, "documentId": "d1"}`))
	wantItems(t, out, `[{"documentId": "d1"}]`)
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/v1/documents/d1:batchUpdate", Type: "application/json", Body: `{"requests":[{"insertText":{"endOfSegmentLocation":{"segmentId":""},"text":"Title\n"}}]}`})
	at := map[string]any{"action": "insert", "text": "x", "location": "location", "segment_id": "kix.h1", "index": 3, "replace_text": "", "match_case": false}
	replace := map[string]any{"action": "replaceAll", "text": "{{name}}", "location": "", "segment_id": "", "index": 0, "replace_text": "Ann", "match_case": true}
	out, reqs = runFlow(t, "google_docs_document_update", map[string]any{"document": "d1", "actions": []any{replace, at}, "write_control": map[string]any{"targetRevisionId": "r1"}},
		replyJSON(`{"replies": [{"replaceAllText": {"occurrencesChanged": 2}}, {}], "documentId": "d1"}`))
	wantItems(t, out, `[{"occurrencesChanged": 2, "documentId": "d1"}]`)
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/v1/documents/d1:batchUpdate", Type: "application/json",
		Body: `{"requests":[{"replaceAllText":{"containsText":{"matchCase":true,"text":"{{name}}"},"replaceText":"Ann"}},{"insertText":{"location":{"index":3,"segmentId":"kix.h1"},"text":"x"}}],"writeControl":{"targetRevisionId":"r1"}}`})
	out, _ = runFlow(t, "google_docs_document_update", map[string]any{"document": "d1", "simple": false, "actions": []any{insert}}, replyJSON(`{"replies": [{}], "documentId": "d1"}`))
	wantItems(t, out, `[{"replies": [{}], "documentId": "d1"}]`)
}

// Google Drive's File → Share, Move, Copy and Create From Text
// (file/*.operation.js): the requests n8n's node sends and its items on
// the same answers.
func TestGoogleDriveFileOperations(t *testing.T) {
	out, reqs := runFlow(t, "google_drive_file_share", map[string]any{"file_id": "f1", "permission": map[string]any{"role": "writer", "type": "anyone", "allowFileDiscovery": true}, "options": map[string]any{"sendNotificationEmail": false}},
		replyJSON(`{"kind": "drive#permission", "id": "anyoneWithLink", "type": "anyone", "role": "writer"}`))
	wantItems(t, out, `[{"kind": "drive#permission", "id": "anyoneWithLink", "type": "anyone", "role": "writer"}]`)
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/drive/v3/files/f1/permissions", Query: "sendNotificationEmail=false&supportsAllDrives=true", Type: "application/json", Body: `{"allowFileDiscovery":true,"role":"writer","type":"anyone"}`})

	common := "corpora=allDrives&includeItemsFromAllDrives=true&spaces=appDataFolder%2C+drive&supportsAllDrives=true"
	move := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == "GET" {
			io.WriteString(w, `{"parents": ["p1", "p2"]}`)
			return
		}
		io.WriteString(w, `{"kind": "drive#file", "id": "f1", "name": "a.txt", "mimeType": "text/plain"}`)
	}
	out, reqs = runFlow(t, "google_drive_file_move", map[string]any{"file_id": "f1", "folder_id": "root", "drive_id": "0AAax"}, move)
	wantItems(t, out, `[{"kind": "drive#file", "id": "f1", "name": "a.txt", "mimeType": "text/plain"}]`)
	if len(reqs) != 2 || reqs[0].Query != common+"&fields=parents" && queryKey(t, reqs[0].Query) != queryKey(t, common+"&fields=parents") ||
		reqs[1].Method != "PATCH" || queryKey(t, reqs[1].Query) != queryKey(t, common+"&addParents=0AAax&removeParents=p1,p2") || reqs[1].Body != "" {
		t.Errorf("requests: %+v", reqs)
	}
	_, reqs = runFlow(t, "google_drive_file_move", map[string]any{"file_id": "f1", "folder_id": "fo1"}, move)
	if queryKey(t, reqs[1].Query) != queryKey(t, common+"&addParents=fo1&removeParents=p1,p2") {
		t.Errorf("requests: %+v", reqs)
	}

	out, reqs = runFlow(t, "google_drive_file_copy", map[string]any{"file_id": "f1", "name": "Chosen filename", "parents": []string{}}, replyJSON(`{"id": "f2", "name": "Chosen filename"}`))
	wantItems(t, out, `[{"id": "f2", "name": "Chosen filename"}]`)
	if len(reqs) != 1 || reqs[0].Path != "/drive/v3/files/f1/copy" || queryKey(t, reqs[0].Query) != queryKey(t, common) || reqs[0].Body != `{"copyRequiresWriterPermission":false,"name":"Chosen filename","parents":[]}` {
		t.Errorf("requests: %+v", reqs)
	}

	create := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind": "drive#file", "id": "t1", "name": "Untitled", "mimeType": "text/plain"}`)
	}
	out, reqs = runFlow(t, "google_drive_file_create_from_text", map[string]any{"content": "héllo\n", "folder_id": "root", "drive_id": "My Drive"}, create)
	wantItems(t, out, `[{"id": "t1"}]`)
	if len(reqs) != 2 {
		t.Fatalf("requests: %+v", reqs)
	}
	up := reqs[0]
	_, params, err := mime.ParseMediaType(up.Type)
	if err != nil || !strings.HasPrefix(up.Type, "multipart/related; boundary=") || up.Path != "/upload/drive/v3/files" || queryKey(t, up.Query) != "supportsAllDrives=true&uploadType=multipart" {
		t.Fatalf("upload: %+v", up)
	}
	b := params["boundary"]
	want := "--" + b + "\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n" + `{"mimeType":"text/plain","name":"Untitled","parents":["root"]}` + "\r\n--" + b +
		"\r\nContent-Disposition: form-data; name=\"data\"\r\nContent-Type: text/plain\r\n\r\nhéllo\n\r\n--" + b + "--\r\n"
	if up.Body != want {
		t.Errorf("upload body:\n%q\nwant\n%q", up.Body, want)
	}
	if r := reqs[1]; r.Method != "PATCH" || r.Path != "/drive/v3/files/t1" || queryKey(t, r.Query) != queryKey(t, common+"&addParents=root") || r.Body != `{"mimeType":"text/plain","name":"Untitled"}` {
		t.Errorf("patch: %+v", r)
	}
}
