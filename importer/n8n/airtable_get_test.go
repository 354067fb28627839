package n8n_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Airtable's Get as the corpus has it, the record of each item by its ID
// (oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0394_HTTP_Spreadsheetfile_Automate_Triggered.json,
// "Get File ID"; its base and table written out here): GET
// /v0/BASE/TABLE/ID for each item, the item the record's id and
// createdTime with its fields.
func TestAirtableGetImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {id: 'rec1'}}, {json: {id: 'rec2'}}]"}, "name": "New Upload", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "577fb3b7", "name": "Get File ID", "type": "n8n-nodes-base.airtable", "position": [1120, 1120], "parameters": {"id": "={{ $node[\"New Upload\"].json[\"id\"] }}", "base": {"__rl": true, "mode": "id", "value": "appX"}, "table": {"__rl": true, "mode": "id", "value": "tblY"}, "options": {}, "operation": "get"}, "credentials": {"airtableTokenApi": {"id": "b1TkvXJM6AdmupUh", "name": "Airtable Personal Access Token account"}}, "typeVersion": 2}`
	files, diags := importApp(t, appWorkflow(t, "get", item, node))
	wantDiags(t, diags)
	wantIn(t, files["get.flow.hcl"], `  use      = "flow.airtable_record_get"`, `  id       = step.new_upload.items[each.key].id`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		id := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		return `{"id": "` + id + `", "createdTime": "2026-01-01T00:00:00.000Z", "fields": {"Name": "File ` + id + `", "id": "own"}}`
	})
	out := runImported(t, files, "get", map[string]string{"airtable": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["get_file_id"], `[{"id": "own", "createdTime": "2026-01-01T00:00:00.000Z", "Name": "File rec1"}, {"id": "own", "createdTime": "2026-01-01T00:00:00.000Z", "Name": "File rec2"}]`)
	slices.Sort(*reqs) // the items' calls run side by side
	wantJSON(t, "requests", *reqs, `["GET /v0/appX/tblY/rec1", "GET /v0/appX/tblY/rec2"]`)

	bad := strings.Replace(node, `"options": {}`, `"options": {"downloadFields": ["File"]}`, 1)
	_, diags = importApp(t, appWorkflow(t, "bad", item, bad))
	wantDiags(t, diags, "error /nodes/2/parameters/options/downloadFields Unsupported option")
}
