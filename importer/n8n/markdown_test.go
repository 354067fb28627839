package n8n_test

import (
	"strings"
	"testing"
)

// The Markdown node is an n8n_markdown step on the block of the adapter
// n8n_markdown.js and the packages n8n 2.8.4 computes the node with
// (node-html-markdown 1.2.0, showdown 2.1.0, lodash 4.17.23): HTML to
// Markdown, as in Zie619+n8n-workflows/workflows__Markdown__1571_
// Markdown_Stickynote_Send.json, into "data"; Markdown to HTML with the
// options of oxbshw+ultimate-n8n-ai-workflows/automation__1822_Baserow_
// Stickynote_Automation_Webhook.json and Zie619+n8n-workflows/workflows__
// Stopanderror__0719_Stopanderror_Splitout_Create_Webhook.json, into a
// nested destination key. The three share the block, and import says to
// lock the flow once. The values, n8n's, are checked against n8n by
// importer/n8nlive (the case html_markdown_xml), where the packages are
// installed.
func TestMarkdownImported(t *testing.T) {
	items := codeItems(`[{textHtml: "<b>x</b>", text: "# x"}]`)
	toMD := `{"name": "Markdown", "type": "n8n-nodes-base.markdown", "position": [400, 0], "parameters": {"html": "={{ $json.textHtml }}", "options": {}}, "typeVersion": 1}`
	tables := `{"name": "Tables", "type": "n8n-nodes-base.markdown", "position": [600, 0], "parameters": {"mode": "markdownToHtml", "options": {"tables": true}, "markdown": "={{ $json.text }}", "destinationKey": "out.html"}, "typeVersion": 1}`
	emoji := `{"name": "Emoji", "type": "n8n-nodes-base.markdown", "position": [800, 0], "parameters": {"mode": "markdownToHtml", "options": {"emoji": true, "simpleLineBreaks": true, "backslashEscapesHTMLTags": true}, "markdown": "={{ $json.text }}", "destinationKey": "emoji"}, "typeVersion": 1}`
	files, next := importLib(t, appWorkflow(t, "md", items, toMD, tables, emoji))
	wantLibBlock(t, files, next, "n8n_markdown", "n8n_markdown.js", map[string]string{"node-html-markdown": "1.2.0", "showdown": "2.1.0", "lodash": "4.17.23"})
	for _, want := range []string{`use = "n8n_markdown"`, `mode = "markdownToHtml"`, `destination = "out.html"`, "emoji = true"} {
		if !strings.Contains(strings.Join(strings.Fields(files["md.flow.hcl"]), " "), want) {
			t.Errorf("the flow has no %q:\n%s", want, files["md.flow.hcl"])
		}
	}
}
