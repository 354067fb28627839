package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// A Google app node with a service account's credential (googleApi):
// its secret is an access token of the service account, sent as an
// OAuth2 credential's is. The node "Google Sheets - Get RSS Feed url
// followed" of
// enescingoz+awesome-n8n-templates/Slack__AI-Powered_Information_Monitoring_with_OpenAI_Google_Sheets_Jina_AI_and_Slack.json;
// the same node on an OAuth2 credential too is the app's second
// credential.
func TestGoogleServiceAccountImported(t *testing.T) {
	node := `{"id": "b472f924-81d9-4b99-8620-d95b286800c5", "name": "Google Sheets - Get RSS Feed url followed", "type": "n8n-nodes-base.googleSheets", "position": [260, 120], "parameters": {"options": {}, "sheetName": {"__rl": true, "mode": "list", "value": "gid=0", "cachedResultUrl": "https://docs.google.com/spreadsheets/d/1F2FzWt9FMkA5V5i9d_hBJRahLDvxs3DQBOLkLYowXbY/edit#gid=0", "cachedResultName": "rss_feed"}, "documentId": {"__rl": true, "mode": "list", "value": "1F2FzWt9FMkA5V5i9d_hBJRahLDvxs3DQBOLkLYowXbY", "cachedResultUrl": "https://docs.google.com/spreadsheets/d/1F2FzWt9FMkA5V5i9d_hBJRahLDvxs3DQBOLkLYowXbY/edit?usp=drivesdk", "cachedResultName": "Template - AI-Powered Information Monitoring"}, "authentication": "serviceAccount"}, "credentials": {"googleApi": {"id": "", "name": "Google Sheets account"}}, "executeOnce": true, "typeVersion": 4.5}`
	files, diags := importApp(t, appWorkflow(t, "rss", node))
	wantDiags(t, diags, "warning /nodes/1/credentials/googleApi Service account access token")
	wantIn(t, files["rss.flow.hcl"], `use         = "flow.google_sheets_read_rows"`, `document_id = "1F2FzWt9FMkA5V5i9d_hBJRahLDvxs3DQBOLkLYowXbY"`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		if strings.Contains(r.URL.Path, "/values/") {
			return `{"values": [["url"], ["https://blog.example.org/feed"]]}`
		}
		return `{"sheets": [{"properties": {"sheetId": 0, "title": "rss_feed"}}]}`
	})
	out := runImported(t, files, "rss", map[string]string{"google_sheets": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["google_sheets_get_rss_feed_url_followed"], `[{"row_number": 2, "url": "https://blog.example.org/feed"}]`)
	if len(*reqs) != 2 || strings.Contains(strings.Join(*reqs, "\n"), "(no token)") {
		t.Errorf("requests: %q", *reqs)
	}

	oauth := strings.Replace(strings.Replace(node, `, "authentication": "serviceAccount"`, "", 1), `"googleApi": {"id": ""`, `"googleSheetsOAuth2Api": {"id": "g1"`, 1)
	_, diags = importApp(t, appWorkflow(t, "rss", node, strings.Replace(oauth, `"name": "Google Sheets - Get RSS Feed url followed"`, `"name": "Again"`, 1)))
	wantDiags(t, diags, "warning /nodes/1/credentials/googleApi Service account access token", "error /nodes/2/credentials/googleSheetsOAuth2Api Several credentials of one app")
}
