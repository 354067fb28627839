package n8n_test

import (
	"testing"
)

// The XML node is refused, at its mode or its type: n8n computes it with
// xml2js 0.6.2, which needs Node's built-in modules (events, timers; its
// sax, stream), which a js block's packages cannot have (flowctl lock
// refuses the package). XML to JSON with n8n's defaults (Zie619+n8n-
// workflows/workflows__Splitout__0452_Splitout_Webhook_Create_
// Webhook.json), with options (oxbshw+ultimate-n8n-ai-workflows/
// workflows__1143_Splitout_Filter_Automation_Webhook.json) and JSON to XML
// (oxbshw+ultimate-n8n-ai-workflows/workflows__api-webhooks__119-webhook-
// returning-xml__workflow.json).
func TestXMLRefused(t *testing.T) {
	for params, want := range map[string]string{
		`{"options": {}}`: "error /nodes/2/type Library needs Node",
		`{"options": {"trim": true, "normalize": true, "mergeAttrs": true, "ignoreAttrs": true, "normalizeTags": true}}`: "error /nodes/2/type Library needs Node",
		`{"mode": "jsonToxml", "options": {}}`: "error /nodes/2/parameters/mode Library needs Node",
	} {
		node := `{"name": "XML", "type": "n8n-nodes-base.xml", "position": [400, 0], "parameters": ` + params + `, "typeVersion": 1}`
		_, diags := importApp(t, appWorkflow(t, "xml", codeItems(`[{a: 1}]`), node))
		wantDiags(t, diags, want)
	}
}
