package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Google Drive's File → Download gives each item the file as its binary
// data, which the node after it reads. The nodes "Pull Mitre Data From
// Gdrive" and "Extract from File" of
// enescingoz+awesome-n8n-templates/Other_Integrations_and_Use_Cases__Automate_SIEM_Alert_Enrichment_with_MITRE_ATT_CK_Qdrant_Zendesk_in_n8n.json.
func TestGoogleDriveDownloadImported(t *testing.T) {
	drive := `{"id": "3aeb973d-22e5-4eaf-8fe8-fae3447909e1", "name": "Pull Mitre Data From Gdrive", "type": "n8n-nodes-base.googleDrive", "position": [-1140, 1220], "parameters": {"fileId": {"__rl": true, "mode": "list", "value": "1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d", "cachedResultUrl": "https://drive.google.com/file/d/1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d/view?usp=drivesdk", "cachedResultName": "cleaned_mitre_attack_data.json"}, "options": {}, "operation": "download"}, "credentials": {"googleDriveOAuth2Api": {"id": "AVa7MXBLiB9NYjuO", "name": "Angel Gdrive"}}, "typeVersion": 3}`
	extract := `{"id": "695fba89-8f42-47c3-9d86-73f4ea0e72df", "name": "Extract from File", "type": "n8n-nodes-base.extractFromFile", "position": [-920, 1220], "parameters": {"options": {}, "operation": "fromJson"}, "typeVersion": 1}`
	reply := func(r *http.Request) string {
		switch {
		case r.URL.Query().Get("alt") == "media":
			return `[{"id": "T1059", "name": "Command and Scripting Interpreter"}]`
		case strings.HasSuffix(r.URL.Path, "/export"):
			return `{"exported": "` + r.URL.Query().Get("mimeType") + `"}`
		case strings.HasPrefix(r.URL.Path, "/drive/v3/files/1J"):
			return `{"mimeType": "application/vnd.google-apps.document", "name": "Assistente"}`
		}
		return `{"mimeType": "application/json", "name": "cleaned_mitre_attack_data.json"}`
	}
	files, diags := importApp(t, appWorkflow(t, "mitre", drive, extract))
	wantDiags(t, diags, "warning /nodes/1/credentials/googleDriveOAuth2Api OAuth2 access token")
	wantIn(t, files["mitre.flow.hcl"], `use      = "flow.google_drive_file_download"`, `file_id  = "1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d"`)
	srv, reqs := standIn(t, reply)
	out := runImported(t, files, "mitre", map[string]string{"google_drive": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["extract_from_file"], `[{"data": [{"id": "T1059", "name": "Command and Scripting Interpreter"}]}]`)
	if strings.Join(*reqs, "\n") != "GET /drive/v3/files/1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d?fields=mimeType%2Cname&supportsAllDrives=true&supportsTeamDrives=true\nGET /drive/v3/files/1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d?alt=media&supportsAllDrives=true" {
		t.Errorf("requests:\n%s", strings.Join(*reqs, "\n"))
	}

	// The file by its URL: the ID n8n's pattern finds in it.
	byURL := strings.Replace(drive, `"mode": "list", "value": "1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d"`, `"mode": "url", "value": "https://drive.google.com/file/d/1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d/view?usp=drivesdk"`, 1)
	files, _ = importApp(t, appWorkflow(t, "mitre", byURL, extract))
	*reqs = nil
	out = runImported(t, files, "mitre", map[string]string{"google_drive": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["extract_from_file"], `[{"data": [{"id": "T1059", "name": "Command and Scripting Interpreter"}]}]`)
	if len(*reqs) != 2 || !strings.HasPrefix((*reqs)[1], "GET /drive/v3/files/1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d?") {
		t.Errorf("requests: %q", *reqs)
	}
	// A URL the pattern does not match: refused when the node gives it,
	// the run fails when an expression does, as n8n fails the node.
	_, diags = importApp(t, appWorkflow(t, "mitre", strings.Replace(byURL, "/file/d/", "/open?id=", 1), extract))
	wantDiags(t, diags, "error /nodes/1/parameters/fileId/value Unsupported option", "error /nodes/2/type Binary data")
	item := `{"parameters": {"jsCode": "return [{json: {url: 'https://drive.google.com/open?id=1oW'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	exprURL := strings.Replace(byURL, `"value": "https://drive.google.com/file/d/1oWBLO5AlIqbgo9mKD1hNtx92HdC6O28d/view?usp=drivesdk"`, `"value": "={{ $json.url }}"`, 1)
	files, _ = importApp(t, appWorkflow(t, "mitre", item, exprURL, extract))
	wantIn(t, files["mitre.flow.hcl"], `file_id  = regex("https:\\/\\/(?:drive|docs)\\.google\\.com(?:\\/.*|)\\/d\\/([0-9a-zA-Z\\-_]+)(?:\\/.*|)", each.value.url)[0]`)
	if _, failed := runImportedErr(t, files, "mitre", map[string]string{"google_drive": "ya29.token"}, srv.URL); !strings.Contains(failed, "regex") {
		t.Errorf("a URL without an ID: %q", failed)
	}

	// A Google Docs document exported as a PDF, in the binary field the
	// option names. The node "Google Drive" of
	// enescingoz+awesome-n8n-templates/Google_Drive_and_Google_Sheets__Build_an_OpenAI_Assistant_with_Google_Drive_Integration.json.
	doc := `{"id": "1d8fe39a-c7b9-4c38-9dc6-0fbce63151ba", "name": "Google Drive", "type": "n8n-nodes-base.googleDrive", "position": [480, 380], "parameters": {"fileId": {"__rl": true, "mode": "list", "value": "1JG7ru_jBcWu5fvgG3ayKjXVXHVy67CTqLwNITqsSwh8", "cachedResultUrl": "https://docs.google.com/document/d/1JG7ru_jBcWu5fvgG3ayKjXVXHVy67CTqLwNITqsSwh8/edit?usp=drivesdk", "cachedResultName": "[TEST] Assistente Agenzia viaggi"}, "options": {"binaryPropertyName": "data.pdf", "googleFileConversion": {"conversion": {"docsToFormat": "application/pdf"}}}, "operation": "download"}, "credentials": {"googleDriveOAuth2Api": {"id": "HEy5EuZkgPZVEa9w", "name": "Google Drive account"}}, "typeVersion": 3}`
	text := `{"name": "Text", "type": "n8n-nodes-base.extractFromFile", "position": [700, 380], "parameters": {"operation": "text", "binaryPropertyName": "data.pdf", "options": {}}, "typeVersion": 1}`
	files, diags = importApp(t, appWorkflow(t, "doc", doc, text))
	wantDiags(t, diags, "warning /nodes/1/credentials/googleDriveOAuth2Api OAuth2 access token")
	out = runImported(t, files, "doc", map[string]string{"google_drive": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["text"], `[{"data": "{\"exported\": \"application/pdf\"}"}]`)

	// A field that is an expression, and an option not converted, are
	// refused at their JSON path.
	for _, c := range []struct{ from, to, at, summary string }{
		{`"binaryPropertyName": "data.pdf"`, `"binaryPropertyName": "={{ $json.field }}"`, "/nodes/1/parameters/options/binaryPropertyName", "Unsupported expression"},
		{`"docsToFormat": "application/pdf"`, `"pdfToFormat": "application/pdf"`, "/nodes/1/parameters/options/googleFileConversion/conversion/pdfToFormat", "Unsupported option"},
	} {
		_, diags := importApp(t, appWorkflow(t, "doc", strings.Replace(doc, c.from, c.to, 1)))
		wantDiags(t, diags, "error "+c.at+" "+c.summary)
	}
}
