package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Google Drive's File → Create From Text, Copy, Move and Share, for
// each item, in a chain. The nodes "Google Drive" (its name without
// $now) of Zie619+n8n-workflows/workflows__Telegram__1185_Telegram_Wait_Automate_Webhook.json,
// "Find & Copy Docx Template" and "Make file shareable publically
// (optional)" (the file the copy, $json.id) of
// oxbshw+ultimate-n8n-ai-workflows/workflows__data-integration__2501-replace-images-in-google-docs-documents-and-download-as-pdf-docx__workflow.json
// and "Move to the correct folder1" of
// Zie619+n8n-workflows/workflows__Extractfromfile__1764_Extractfromfile_HTTP_Automation_Webhook.json,
// all with one credential.
func TestGoogleDriveFileOpsImported(t *testing.T) {
	cred := `"credentials": {"googleDriveOAuth2Api": {"id": "UhdXGYLTAJbsa0xX", "name": "Google Drive account"}}`
	item := `{"parameters": {"jsCode": "return [{json: {output: 'An avatar'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	text := `{"id": "fccedfde-c5aa-4237-9d1c-feb9ebabf4f3", "name": "Google Drive", "type": "n8n-nodes-base.googleDrive", "position": [120, -780], "parameters": {"name": "=Nostr Chatbot - Avatar", "content": "={{ $json.output }}", "driveId": {"__rl": true, "mode": "list", "value": "My Drive"}, "options": {}, "folderId": {"__rl": true, "mode": "list", "value": "root", "cachedResultName": "/ (Root folder)"}, "operation": "createFromText"}, ` + cred + `, "typeVersion": 3}`
	copy := `{"id": "d33a913a-2d98-4922-ba8d-5d325b114572", "name": "Find & Copy Docx Template", "type": "n8n-nodes-base.googleDrive", "position": [660, 5220], "parameters": {"name": "Chosen filename", "fileId": {"__rl": true, "mode": "list", "value": "1RQAX2CszNqw79gZxeocEZU0-KquTq3RQc2-5Uv1mgd0", "cachedResultUrl": "https://docs.google.com/document/d/1RQAX2CszNqw79gZxeocEZU0-KquTq3RQc2-5Uv1mgd0/edit?usp=drivesdk", "cachedResultName": "Marketing Plan (template)"}, "options": {}, "operation": "copy"}, ` + cred + `, "typeVersion": 3}`
	move := `{"id": "ce6a6a4c-17ba-4cf7-b07a-97b9d8d80844", "name": "Move to the correct folder1", "type": "n8n-nodes-base.googleDrive", "position": [580, 0], "parameters": {"fileId": {"__rl": true, "mode": "id", "value": "={{ $json.id }}"}, "driveId": {"__rl": true, "mode": "list", "value": "My Drive", "cachedResultUrl": "{{ $env.WEBHOOK_URL }}", "cachedResultName": "My Drive"}, "folderId": {"__rl": true, "mode": "list", "value": "1fCWCdqrFP3WrjjLc-gJtxMaiaF5lh8Ko", "cachedResultUrl": "", "cachedResultName": "2025"}, "operation": "move"}, ` + cred + `, "typeVersion": 3}`
	share := `{"id": "60325192-4730-4410-ae33-9127ff8cc5f7", "name": "Make file shareable publically (optional)", "type": "n8n-nodes-base.googleDrive", "position": [1360, 5220], "parameters": {"fileId": {"__rl": true, "mode": "id", "value": "={{ $json.id }}"}, "options": {}, "operation": "share", "permissionsUi": {"permissionsValues": {"role": "writer", "type": "anyone"}}}, ` + cred + `, "typeVersion": 3}`
	files, diags := importApp(t, appWorkflow(t, "ops", item, text, copy, move, share))
	wantDiags(t, diags, "warning /nodes/2/credentials/googleDriveOAuth2Api OAuth2 access token")
	srv, reqs := standIn(t, func(r *http.Request) string {
		switch {
		case r.URL.Path == "/upload/drive/v3/files":
			return `{"id": "t1", "name": "Untitled"}`
		case strings.HasSuffix(r.URL.Path, "/copy"):
			return `{"kind": "drive#file", "id": "c1", "name": "Chosen filename"}`
		case strings.HasSuffix(r.URL.Path, "/permissions"):
			return `{"kind": "drive#permission", "id": "anyoneWithLink", "type": "anyone", "role": "writer", "allowFileDiscovery": false}`
		case r.Method == "GET":
			return `{"parents": ["root0"]}`
		}
		return `{"kind": "drive#file", "id": "` + strings.TrimPrefix(r.URL.Path, "/drive/v3/files/") + `", "name": "x"}`
	})
	out := runImported(t, files, "ops", map[string]string{"google_drive": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["make_file_shareable_publically_optional"], `[{"kind": "drive#permission", "id": "anyoneWithLink", "type": "anyone", "role": "writer", "allowFileDiscovery": false}]`)
	got := strings.Join(*reqs, "\n")
	for _, want := range []string{
		`PATCH /drive/v3/files/t1?addParents=root&corpora=allDrives&includeItemsFromAllDrives=true&spaces=appDataFolder%2C+drive&supportsAllDrives=true {"mimeType":"text/plain","name":"Nostr Chatbot - Avatar"}`,
		`POST /drive/v3/files/1RQAX2CszNqw79gZxeocEZU0-KquTq3RQc2-5Uv1mgd0/copy?corpora=allDrives&includeItemsFromAllDrives=true&spaces=appDataFolder%2C+drive&supportsAllDrives=true {"copyRequiresWriterPermission":false,"name":"Chosen filename","parents":[]}`,
		`GET /drive/v3/files/c1?corpora=allDrives&fields=parents&includeItemsFromAllDrives=true&spaces=appDataFolder%2C+drive&supportsAllDrives=true`,
		`PATCH /drive/v3/files/c1?addParents=1fCWCdqrFP3WrjjLc-gJtxMaiaF5lh8Ko&corpora=allDrives&includeItemsFromAllDrives=true&removeParents=root0&spaces=appDataFolder%2C+drive&supportsAllDrives=true`,
		`POST /drive/v3/files/c1/permissions?supportsAllDrives=true {"allowFileDiscovery":false,"role":"writer","type":"anyone"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no request %s in\n%s", want, got)
		}
	}
	if !strings.Contains(got, "POST /upload/drive/v3/files?supportsAllDrives=true&uploadType=multipart --") || !strings.Contains(got, "name=\"data\"\r\nContent-Type: text/plain\r\n\r\nAn avatar\r\n") {
		t.Errorf("the upload lacks the text:\n%s", got)
	}

	// Copy's empty name is "Copy of" the file's; its file by URL, another
	// option, are refused.
	files, _ = importApp(t, appWorkflow(t, "ops", strings.Replace(copy, `"name": "Chosen filename"`, `"name": ""`, 1)))
	wantIn(t, files["ops.flow.hcl"], `name     = "Copy of Marketing Plan (template)"`)
	for _, c := range []struct{ node, from, to, at, summary string }{
		{copy, `"mode": "list"`, `"mode": "url"`, "/nodes/1/parameters/fileId/mode", "Unsupported option"},
		{text, `"options": {}`, `"options": {"ocrLanguage": "en"}`, "/nodes/1/parameters/options/ocrLanguage", "Unsupported option"},
		{share, `"type": "anyone"`, `"type": "={{ $json.type }}"`, "/nodes/1/parameters/permissionsUi/permissionsValues/type", "Unsupported expression"},
	} {
		_, diags := importApp(t, appWorkflow(t, "ops", strings.Replace(c.node, c.from, c.to, 1)))
		wantDiags(t, diags, "error "+c.at+" "+c.summary)
	}
}

// Google Drive's Folder → Create, for each item. The node "Create
// Folder" of Zie619+n8n-workflows/workflows__Form__0733_Form_Code_Create_Triggered.json,
// its name the item's ($json for the form's item).
func TestGoogleDriveFolderCreateImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {folderName: 'Acme'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "e413cdc8-8424-41d3-8791-e036392a16ac", "name": "Create Folder", "type": "n8n-nodes-base.googleDrive", "position": [1680, 100], "parameters": {"name": "={{ $json.folderName }}", "driveId": {"__rl": true, "mode": "list", "value": "My Drive"}, "options": {}, "folderId": {"__rl": true, "mode": "list", "value": "17sGS9HdmAtgpd5rC1sVuiIUGyw2hq9IY", "cachedResultUrl": "{{ $env.WEBHOOK_URL }}", "cachedResultName": "n8n"}, "resource": "folder"}, "credentials": {"googleDriveOAuth2Api": {"id": "2SIFnsVfdw9nx9I4", "name": "Google Drive account"}}, "typeVersion": 3}`
	files, diags := importApp(t, appWorkflow(t, "folder", item, node))
	wantDiags(t, diags, "warning /nodes/2/credentials/googleDriveOAuth2Api OAuth2 access token")
	srv, reqs := standIn(t, func(r *http.Request) string {
		return `{"kind": "drive#file", "id": "fo2", "name": "Acme", "mimeType": "application/vnd.google-apps.folder"}`
	})
	out := runImported(t, files, "folder", map[string]string{"google_drive": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["create_folder"], `[{"kind": "drive#file", "id": "fo2", "name": "Acme", "mimeType": "application/vnd.google-apps.folder"}]`)
	wantJSON(t, "requests", *reqs, `["POST /drive/v3/files?corpora=allDrives&includeItemsFromAllDrives=true&spaces=appDataFolder%2C+drive&supportsAllDrives=true {\"mimeType\":\"application/vnd.google-apps.folder\",\"name\":\"Acme\",\"parents\":[\"17sGS9HdmAtgpd5rC1sVuiIUGyw2hq9IY\"]}"]`)

	_, diags = importApp(t, appWorkflow(t, "folder", item, strings.Replace(node, `"options": {}`, `"options": {"parentFolder": "x"}`, 1)))
	wantDiags(t, diags, "error /nodes/2/parameters/options/parentFolder Unsupported option")
}
