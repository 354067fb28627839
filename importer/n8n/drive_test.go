package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Google Drive's File/Folder → Search (the resource's default
// operation), for each item. The node of
// enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__Effortless_Email_Management_with_AI-Powered_Summarization_Review.json
// ("Get folder").
func TestGoogleDriveSearchImported(t *testing.T) {
	node := `{"id": "4e4b5ab4-0eb1-4eb7-a2b7-0d1a7e6b5a2e", "name": "Get folder", "type": "n8n-nodes-base.googleDrive", "position": [200, 0], "parameters": {"filter": {"driveId": {"__rl": true, "mode": "list", "value": "My Drive", "cachedResultUrl": "https://drive.google.com/drive/my-drive", "cachedResultName": "My Drive"}, "folderId": {"__rl": true, "mode": "id", "value": "=test-whatsapp"}}, "options": {}, "resource": "fileFolder"}, "credentials": {"googleDriveOAuth2Api": {"id": "1", "name": "Google Drive account"}}, "typeVersion": 3}`
	files, diags := importApp(t, appWorkflow(t, "folder", node))
	wantDiags(t, diags, "warning /nodes/1/credentials/googleDriveOAuth2Api OAuth2 access token")
	wantIn(t, files["folder.flow.hcl"], `  use       = "flow.google_drive_search"
  for_each  = [{}]
  filter    = true
  drive_id  = "My Drive"
  folder_id = "test-whatsapp"
  limit     = 50
}`)
	srv, reqs := standIn(t, func(r *http.Request) string { return `{"files": [{"id": "f1", "name": "menu.pdf"}]}` })
	out := runImported(t, files, "folder", map[string]string{"google_drive": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["get_folder"], `[{"id": "f1", "name": "menu.pdf"}]`)
	if len(*reqs) != 1 || !strings.Contains((*reqs)[0], "q=name+contains+%27%27+and+%27test-whatsapp%27+in+parents+and+trashed+%3D+false") {
		t.Errorf("requests: %q", *reqs)
	}

	// A folder by URL, and an option other than Fields, are refused.
	for _, c := range []struct{ from, to, at string }{
		{`"mode": "id", "value": "=test-whatsapp"`, `"mode": "url", "value": "https://drive.google.com/drive/folders/1"`, "/nodes/1/parameters/filter/folderId/mode"},
		{`"options": {}`, `"options": {"spaces": "drive"}`, "/nodes/1/parameters/options/spaces"},
	} {
		_, diags := importApp(t, appWorkflow(t, "folder", strings.Replace(node, c.from, c.to, 1)))
		wantDiags(t, diags, "error "+c.at+" Unsupported option")
	}
}
