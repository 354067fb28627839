package n8n_test

import (
	"strings"
	"testing"
)

// XML to JSON is an n8n_xml step on the block of the adapter n8n_xml.js and
// xml2js 0.6.2, the version n8n 2.8.4 computes it with: n8n's defaults
// (Zie619+n8n-workflows/workflows__Splitout__0452_Splitout_Webhook_Create_
// Webhook.json) and options (oxbshw+ultimate-n8n-ai-workflows/
// workflows__1143_Splitout_Filter_Automation_Webhook.json), sharing the
// block. The values, n8n's, are checked against n8n by importer/n8nlive
// (the case html_markdown_xml).
func TestXMLImported(t *testing.T) {
	items := codeItems(`[{data: "<a x=\"1\"><b>t</b></a>", body: "<r/>"}]`)
	plain := `{"name": "XML", "type": "n8n-nodes-base.xml", "position": [400, 0], "parameters": {"options": {}}, "typeVersion": 1}`
	opts := `{"name": "XML1", "type": "n8n-nodes-base.xml", "position": [600, 0], "parameters": {"dataPropertyName": "body", "options": {"trim": true, "normalize": true, "mergeAttrs": true, "ignoreAttrs": true, "normalizeTags": true}}, "typeVersion": 1}`
	files, next := importLib(t, appWorkflow(t, "xml", items, plain, opts))
	wantLibBlock(t, files, next, "n8n_xml", "n8n_xml.js", map[string]string{"xml2js": "0.6.2"})
	flow := strings.Join(strings.Fields(files["xml.flow.hcl"]), " ")
	for _, want := range []string{`use = "n8n_xml"`, `property = "data"`, `property = "body"`, "normalizeTags = true"} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow has no %q:\n%s", want, files["xml.flow.hcl"])
		}
	}
}

// JSON to XML is refused at its mode: xml2js writes the elements in the
// order of the item's fields, which a flow's objects do not keep
// (oxbshw+ultimate-n8n-ai-workflows/workflows__api-webhooks__119-webhook-
// returning-xml__workflow.json); so is a property named by an expression.
func TestXMLRefused(t *testing.T) {
	for params, want := range map[string]string{
		`{"mode": "jsonToxml", "options": {}}`:                  "error /nodes/2/parameters/mode Unsupported operation",
		`{"dataPropertyName": "={{ $json.k }}", "options": {}}`: "error /nodes/2/parameters/dataPropertyName Unsupported option",
		`{"options": {"trim": "={{ true }}"}}`:                  "error /nodes/2/parameters/options Unsupported option",
	} {
		node := `{"name": "XML", "type": "n8n-nodes-base.xml", "position": [400, 0], "parameters": ` + params + `, "typeVersion": 1}`
		_, diags := importApp(t, appWorkflow(t, "xml", codeItems(`[{a: 1}]`), node))
		wantDiags(t, diags, want)
	}
}
