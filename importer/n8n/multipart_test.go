package n8n_test

import (
	"testing"
)

// A multipart-form-data body is refused where the flow would send
// something other than n8n: a file whose name the flow does not know (a
// download's: "File conversion to PDF" after "Download XLSX File" in
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__data-
// transformation__2304-convert-xlsx-to-pdf-using-convertapi__workflow.json),
// a method n8n sends no form with, a name repeated before version 4.2, a
// Content-Type of the node's own, a name that is an expression.
func TestHTTPMultipartRefused(t *testing.T) {
	download := `"name": "Download XLSX File", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://example.com/file.xlsx", "options": {"response": {"response": {"responseFormat": "file"}}}}`
	upload := func(version, more string) string {
		return `"name": "File conversion to PDF", "type": "n8n-nodes-base.httpRequest", "typeVersion": ` + version + `, "parameters": {"url": "https://v2.convertapi.com/convert/xlsx/to/pdf", "method": "POST", "options": {}, "sendBody": true, "contentType": "multipart-form-data"` + more + `}`
	}
	file := `, "bodyParameters": {"parameters": [{"name": "file", "parameterType": "formBinaryData", "inputDataFieldName": "data"}]}`
	fields := func(names ...string) string {
		s := `, "bodyParameters": {"parameters": [`
		for i, n := range names {
			if i > 0 {
				s += ", "
			}
			s += `{"name": "` + n + `", "value": "x"}`
		}
		return s + `]}`
	}
	for _, c := range []struct {
		src, want string
	}{
		{chain(download, upload("4.2", file)), "error /nodes/2/parameters/bodyParameters/parameters/0/inputDataFieldName Binary data"},
		{chain(upload("4.2", file)), "error /nodes/1/parameters/bodyParameters/parameters/0/inputDataFieldName Binary data"},
		{chain(upload("4.2", `, "method": "DELETE"`+fields("a"))), "error /nodes/1/parameters/method Unsupported body"},
		{chain(upload("4.1", fields("a", "b", "a"))), "error /nodes/1/parameters/bodyParameters/parameters/2/name Unsupported body"},
		{chain(upload("4.1", fields("a", "0"))), "error /nodes/1/parameters/bodyParameters/parameters/1/name Unsupported body"},
		{chain(upload("4.2", fields("a")+`, "sendHeaders": true, "headerParameters": {"parameters": [{"name": "Content-Type", "value": "multipart/form-data"}]}`)), "error /nodes/1/parameters/headerParameters/parameters/0/name Unsupported body"},
		{chain(upload("4.2", fields(`={{ $json.name }}`))), "error /nodes/1/parameters/bodyParameters/parameters/0/name Unsupported body"},
		{chain(upload("4.2", `, "bodyParameters": {"parameters": [{"name": "file", "parameterType": "formBinaryData", "inputDataFieldName": "={{ $json.field }}"}]}`)), "error /nodes/1/parameters/bodyParameters/parameters/0 Unsupported body"},
	} {
		_, diags := importLines(t, c.src)
		wantDiags(t, diags, c.want)
	}

	// Version 4.1 with distinct names that are not index-like is the
	// same order: converted.
	flow, diags := importLines(t, chain(upload("4.1", fields("a", "b"))))
	wantDiags(t, diags)
	wantIn(t, flow, `body_type = "multipart"`, `name = "a"`, `name = "b"`)
}
