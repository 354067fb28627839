package n8n_test

import (
	"strings"
	"testing"
)

// codeItems is a Code node that returns items (JavaScript's array of
// their json).
func codeItems(js string) string {
	return `{"parameters": {"jsCode": ` + string(mustJSON("return "+js+".map(j => ({json: j}))")) + `}, "name": "Items", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [200, 0]}`
}

// Generate HTML Template replaces each {{ }} with String of its value, as
// n8n's html.replace does: an array joins with commas, and a $$ in a value
// is one $ (JavaScript's replacement patterns); an expression that throws
// is undefined, as the adapter evaluates it. The node is trimmed from
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0583_Wait_
// Splitout_Create_Webhook.json (executeOnce: the first item only).
func TestHTMLTemplateImported(t *testing.T) {
	node := `{"name": "HTML", "type": "n8n-nodes-base.html", "position": [2120, 1440], "parameters": {"html": "<table>\n    <tr> \n      {{ ['Podcast', 'Episode', 'Summary'].map(propname=>'<td><h4>'+propname+'</h4></td>').join('')  }}\n    </tr>\n    {{ $json.fields.map(ep=>{ return ` + "`" + `<tr><td>${ep.podcast}</td><td><a href=\"${ep.url}\">${ep.name}</a></td><td>${ep.summary}</td><td></td></tr>` + "`" + `} ) }}\n  </table><p>{{ $json.price }} {{ $json.none }} {{ $json.nil }} {{ $json.fields[0] }} {{ $json.nil.deep }}</p>\n<style>\ntr { \n     border: 1px solid #000;    \n }</style>\n"}, "executeOnce": true, "typeVersion": 1.2}`
	items := codeItems(`[{price: "$$5", nil: null, fields: [{podcast: "P", url: "u", name: "E1", summary: "S1"}, {podcast: "Q", url: "v", name: "E2", summary: "S2"}]}, {price: 1}]`)
	files, diags := importApp(t, appWorkflow(t, "pods", items, node))
	if len(diags) > 0 {
		t.Fatalf("diagnostics %v", diags)
	}
	out := runImported(t, files, "pods", nil, "")
	wantJSON(t, "items", out["html"], `[{"html": "<table>\n    <tr> \n      <td><h4>Podcast</h4></td><td><h4>Episode</h4></td><td><h4>Summary</h4></td>\n    </tr>\n    <tr><td>P</td><td><a href=\"u\">E1</a></td><td>S1</td><td></td></tr>,<tr><td>Q</td><td><a href=\"v\">E2</a></td><td>S2</td><td></td></tr>\n  </table><p>$5 undefined null [object Object] undefined</p>\n<style>\ntr { \n     border: 1px solid #000;    \n }</style>\n"}]`)
}

// A template without {{ }} is the text itself; one given as an expression,
// or with an expression that does not parse, is refused at its path.
func TestHTMLTemplateLiteralAndRefusals(t *testing.T) {
	node := `{"name": "Page", "type": "n8n-nodes-base.html", "position": [400, 0], "parameters": {"html": "<h1>Thanks for your response!</h1> ${x} %{y}"}, "typeVersion": 1}`
	files, diags := importApp(t, appWorkflow(t, "page", codeItems(`[{a: 1}, {a: 2}]`), node))
	if len(diags) > 0 {
		t.Fatalf("diagnostics %v", diags)
	}
	out := runImported(t, files, "page", nil, "")
	wantJSON(t, "items", out["page"], `[{"html": "<h1>Thanks for your response!</h1> ${x} %{y}"}, {"html": "<h1>Thanks for your response!</h1> ${x} %{y}"}]`)
	for _, c := range []struct{ html, want string }{
		{`={{ $json.a }}`, "error /nodes/2/parameters/html Unsupported template"},
		{`<p>{{ $json.a + }}</p>`, "error /nodes/2/parameters/html Invalid expression"},
	} {
		node := `{"name": "Page", "type": "n8n-nodes-base.html", "position": [400, 0], "parameters": {"html": ` + string(mustJSON(c.html)) + `}, "typeVersion": 1.2}`
		_, diags := importApp(t, appWorkflow(t, "page", codeItems(`[{a: 1}]`), node))
		if len(diags) == 0 || !strings.HasPrefix(diags[0], c.want) {
			t.Errorf("%s: diagnostics %v, want %s", c.html, diags, c.want)
		}
	}
}

// Convert to HTML Table is refused: n8n's columns are in the order of the
// items' fields, which the flow's objects do not keep (oxbshw+ultimate-n8n-
// ai-workflows/automation__1897_Webhook_Filter_Sync_Webhook.json).
func TestHTMLTableRefused(t *testing.T) {
	node := `{"name": "HTML", "type": "n8n-nodes-base.html", "position": [880, 0], "parameters": {"options": {"capitalize": true}, "operation": "convertToHtmlTable"}, "typeVersion": 1.2}`
	_, diags := importApp(t, appWorkflow(t, "table", codeItems(`[{first_name: "Ann", ok: true}]`), node))
	wantDiags(t, diags, "error /nodes/2/parameters/operation Unsupported operation")
}
