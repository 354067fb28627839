package n8n_test

import (
	"testing"
)

// A PDF downloaded by an HTTP Request whose format is detected (the
// default) and read by Extract from File, as "Download CV" and "Extract
// from File" of enescingoz+awesome-n8n-templates/HR_and_Recruitment__CV_
// Screening_with_OpenAI.json: the download is a file (response base64)
// when the answer's type is one of n8n's binary types, and a document
// step reads each item's PDF from its base64, with a warning.
func TestBinaryPDF(t *testing.T) {
	flow, diags := importLines(t, chain(
		`"name": "Download CV", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://example.com/cv.pdf", "options": {}}`,
		`"name": "Extract from File", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {}, "operation": "pdf"}`))
	wantIn(t, flow,
		`response = "base64"`,
		`"application/pdf"`,
		`step "extract_from_file" { use = "document" for_each = local.download_cv_files content_base64 = each.value.data.data media_type = "application/pdf" }`,
		`extract_from_file = [for d in step.extract_from_file : { numpages = length(d.pages), numrender = length(d.pages), text = d.text }]`)
	wantDiags(t, diags, "warning /nodes/2/type PDF text read by flowctl")
}

// What the flow cannot read as n8n does is an error at its JSON path: a
// file the flow does not carry (it comes from a node that is not a file
// download or Convert to File), a binary field the items do not have, a
// file whose type n8n sniffs sent as a body, operations and options not
// converted, and a Respond to Webhook answering with a file's bytes.
func TestBinaryRefused(t *testing.T) {
	set := `"name": "Fields", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "a", "name": "value", "value": "aGk=", "type": "string"}]}, "options": {}}`
	download := `"name": "Get", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://example.com/a.pdf", "options": {"response": {"response": {"responseFormat": "file"}}}}`
	for _, c := range []struct {
		nodes []string
		want  string
	}{
		{[]string{set, `"name": "Read", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {}, "operation": "text"}`},
			"error /nodes/2/type Binary data"},
		{[]string{download, `"name": "Read", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {}, "operation": "text", "binaryPropertyName": "attachment_0"}`},
			"error /nodes/2/parameters/binaryPropertyName No binary field"},
		{[]string{download, `"name": "Read", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {}, "operation": "text", "binaryPropertyName": "={{ $json.name }}"}`},
			"error /nodes/2/parameters/binaryPropertyName Unsupported expression"},
		{[]string{download, `"name": "Read", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {}, "operation": "xlsx"}`},
			"error /nodes/2/parameters/operation Unsupported operation"},
		{[]string{download, `"name": "Read", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {"password": "E223706995"}, "operation": "pdf", "binaryPropertyName": "data"}`},
			"error /nodes/2/parameters/options/password Unsupported option"},
		{[]string{set, `"name": "To File", "type": "n8n-nodes-base.convertToFile", "typeVersion": 1.1, "parameters": {"options": {}, "operation": "toBinary", "sourceProperty": "value"}`,
			`"name": "Send", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://example.com/up", "method": "POST", "sendBody": true, "contentType": "binaryData", "inputDataFieldName": "data", "options": {}}`},
			"error /nodes/3/parameters/inputDataFieldName Binary data"},
		{[]string{set, `"name": "To File", "type": "n8n-nodes-base.convertToFile", "typeVersion": 1.1, "parameters": {"options": {}, "operation": "toJson"}`},
			"error /nodes/2/parameters/operation Unsupported operation"},
		{[]string{set, `"name": "To File", "type": "n8n-nodes-base.convertToFile", "typeVersion": 1.1, "parameters": {"options": {}, "operation": "toText", "sourceProperty": "={{ $json.data }}"}`},
			"error /nodes/2/parameters/sourceProperty Unsupported field name"},
		{[]string{download, `"name": "Respond", "type": "n8n-nodes-base.respondToWebhook", "typeVersion": 1.1, "parameters": {"options": {}, "respondWith": "binary"}`},
			"error /nodes/2/parameters/respondWith Unsupported response"},
	} {
		_, diags := importLines(t, chain(c.nodes...))
		found := false
		for _, d := range diags {
			found = found || d == c.want
		}
		if !found {
			t.Errorf("%s: diagnostics %v, want %s", c.nodes[len(c.nodes)-1][:40], diags, c.want)
		}
	}
}

// Execute Once takes the first item and its file.
func TestBinaryExecuteOnce(t *testing.T) {
	flow, _ := importLines(t, chain(
		`"name": "Get", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://example.com/a.txt", "options": {"response": {"response": {"responseFormat": "file"}}}}`,
		`"name": "Read", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "executeOnce": true, "parameters": {"options": {}, "operation": "text"}`))
	wantIn(t, flow, `read = [for f in slice(local.get_files, 0, min(1, length(local.get_files))) : {`)
}

// IF, Switch, Filter, Limit, No Operation and Wait pass their input items
// on, files and all: an IF between the download and Extract from File (as
// "Is PDF?" of oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__
// 0646_Extractfromfile_Form_Export_Webhook.json) keeps the files of the
// items it lets through.
func TestBinaryThroughIF(t *testing.T) {
	flow, diags := importLines(t, chain(
		`"name": "Get", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://example.com/a.txt", "options": {"response": {"response": {"responseFormat": "file"}}}}`,
		`"name": "Is PDF?", "type": "n8n-nodes-base.if", "typeVersion": 2, "parameters": {"options": {}, "conditions": {"options": {"version": 1, "leftValue": "", "caseSensitive": true, "typeValidation": "strict"}, "combinator": "and", "conditions": [{"id": "c1", "operator": {"type": "boolean", "operation": "true", "singleValue": true}, "leftValue": "={{ true }}", "rightValue": ""}]}}`,
		`"name": "Read", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {}, "operation": "text"}`))
	wantIn(t, flow, `read = [for f in [for k in [for i, item in local.get : i if`, `: (local.get_files)[k]] : {`)
	wantDiags(t, diags)
}

// Extract from File's CSV with the options of "Extract from File" of
// Zie619+n8n-workflows/workflows__Googleslides__1845_Googleslides_
// Extractfromfile_Create_Triggered.json (n8n's defaults, written out): an
// item for each row, its empty cells left out; another delimiter is
// refused.
func TestBinaryCSV(t *testing.T) {
	get := `"name": "Get", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "https://example.com/a.csv", "options": {"response": {"response": {"responseFormat": "file"}}}}`
	flow, diags := importLines(t, chain(get,
		`"name": "Extract from File", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {"encoding": "utf-8", "delimiter": ",", "headerRow": true}}`))
	wantIn(t, flow, `extract_from_file = flatten([for f in local.get_files : [for r in csvdecode([for t in [base64decode(f.data.data)] : length(regexall("\r?\n\r?\n[^\r\n]", t)) > 0 ? null : t][0]) : { for k, v in r : k => v if v != "" }]])`)
	wantDiags(t, diags)
	_, diags = importLines(t, chain(get,
		`"name": "Extract from File", "type": "n8n-nodes-base.extractFromFile", "typeVersion": 1, "parameters": {"options": {"delimiter": ";"}}`))
	wantDiags(t, diags, "error /nodes/2/parameters/options/delimiter Unsupported option")
}
