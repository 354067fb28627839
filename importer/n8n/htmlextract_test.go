package n8n_test

import (
	"strings"
	"testing"
)

// htmlPage is the page the extraction tests read.
const htmlPage = "<html><head><title> Hacker  News &amp; more </title></head><body><span class=\"pagetop\"><font>Stories from December 7, 2015</font></span>\n<div class=\"post-section\"><h2>A heading</h2><p>This is a long paragraph with a <a href=\"https://example.com/x\">link</a> and enough words to pass the eighty column limit of html-to-text's word wrap.</p><br><img src=\"i.png\"></div>\n<table><tr><td><span class=\"titleline\"><a href=\"https://a.io/1\">First &lt;story&gt;</a><span class=\"sitebit\"> (a.io)</span></span></td></tr>\n<tr><td><span class=\"titleline\"><a href=\"/item?id=2\">Second   story</a> <span>(self)</span></span></td></tr></table>\n<a href=\"https://b.io/2\" data-x=\"1\">  B  </a></body></html>"

// Extract HTML Content is an n8n_html step on the block of the adapter
// n8n_html.js and the packages n8n 2.8.4 computes it with (cheerio
// 1.0.0-rc.6, html-to-text 9.0.5): v1.2's text with skip selectors, as in
// enescingoz+awesome-n8n-templates/Other_Integrations_and_Use_Cases__
// Hacker_News_Throwback_Machine_-_See_What_Was_Hot_on_This_Day_Every_
// Year_.json; attributes as a list, as in oxbshw+ultimate-n8n-ai-
// workflows/workflows__ai-agents__data-integration__2393-save-n8n-cloud-
// invoices-received-in-gmail-in-google-drive__workflow.json; the HTML
// inside, as in enescingoz+awesome-n8n-templates/WordPress__Automate_
// Blog_Creation_in_Brand_Voice_with_AI.json. v1 (enescingoz+awesome-n8n-
// templates/AI_Research_RAG_and_Data_Analysis__Scrape_and_summarize_
// webpages_with_AI.json) and the HTML Extract node (oxbshw+ultimate-n8n-
// ai-workflows/workflows__ai-agents__0048_HTTP_Htmlextract_Create_
// Webhook.json) share the block. The values, n8n's, are checked against
// n8n by importer/n8nlive (the case html_markdown_xml).
func TestHTMLExtractImported(t *testing.T) {
	items := codeItems(`[{html: ` + string(mustJSON(htmlPage)) + `}]`)
	v12 := `{"name": "Extract", "type": "n8n-nodes-base.html", "position": [400, 0], "parameters": {"options": {}, "operation": "extractHtmlContent", "dataPropertyName": "=html", "extractionValues": {"values": [{"key": "=headlines", "cssSelector": ".titleline", "returnArray": true, "skipSelectors": "span"}, {"key": "date", "cssSelector": ".pagetop > font"}, {"key": "post", "cssSelector": ".post-section"}, {"key": "link", "attribute": "href", "cssSelector": "a", "returnArray": true, "returnValue": "attribute"}, {"key": "html", "cssSelector": ".post-section", "returnValue": "html"}, {"key": "none", "attribute": "href", "cssSelector": ".none", "returnValue": "attribute"}]}}, "typeVersion": 1.2}`
	v1 := `{"name": "Extract1", "type": "n8n-nodes-base.html", "position": [600, 0], "parameters": {"options": {"trimValues": true}, "operation": "extractHtmlContent", "dataPropertyName": "html", "extractionValues": {"values": [{"key": "title", "cssSelector": "title"}, {"key": "stories", "cssSelector": ".titleline", "returnArray": true}]}}, "typeVersion": 1}`
	old := `{"name": "Extract old", "type": "n8n-nodes-base.htmlExtract", "position": [800, 0], "parameters": {"options": {}, "dataPropertyName": "html", "extractionValues": {"values": [{"key": "title", "cssSelector": "title"}]}}, "typeVersion": 1}`
	files, next := importLib(t, appWorkflow(t, "extract", items, v12, v1, old))
	wantLibBlock(t, files, next, "n8n_html", "n8n_html.js", map[string]string{"cheerio": "1.0.0-rc.6", "html-to-text": "9.0.5"})
	flow := files["extract.flow.hcl"]
	for _, want := range []string{`use = "n8n_html"`, `node = "htmlExtract"`, `version = 1.2`, `skipSelectors = "span"`, `trimValues = true`} {
		if !strings.Contains(strings.Join(strings.Fields(flow), " "), want) {
			t.Errorf("the flow has no %q:\n%s", want, flow)
		}
	}
}

// HTML in binary data is refused at its parameter.
func TestHTMLExtractBinaryRefused(t *testing.T) {
	node := `{"name": "Extract", "type": "n8n-nodes-base.html", "position": [400, 0], "parameters": {"options": {}, "operation": "extractHtmlContent", "sourceData": "binary", "extractionValues": {"values": [{"key": "t", "cssSelector": "title"}]}}, "typeVersion": 1.2}`
	_, diags := importApp(t, appWorkflow(t, "extract", codeItems(`[{a: 1}]`), node))
	wantDiags(t, diags, "error /nodes/2/parameters/sourceData Binary data")
}
