package n8n

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja/parser"
	"github.com/flowctl/flowctl/importer"
)

// The HTML node (n8n-nodes-base.html, Html.node.js). Its Generate HTML
// Template is JavaScript over each item, which goja runs as n8n does (in
// the n8n_code block's expressions); Extract HTML Content is cheerio's, in
// n8n_htmlextract.go. Convert to HTML Table is refused: its columns are in
// the order of the items' fields, which the flow's objects do not keep.

// htmlNode converts the HTML node by its operation.
func (n *n8n) htmlNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	switch op := p.Text("operation"); op {
	case "", "generateHtmlTemplate":
		return n.htmlTemplate(node, in)
	case "convertToHtmlTable":
		n.Problem(node.where, p.Get("operation"), "Unsupported operation", "Convert to HTML Table: n8n makes the columns in the order of the items' fields, which a flow's objects do not keep (their keys are sorted).")
		return nil
	case "extractHtmlContent":
		return n.htmlExtract(node, in, node.version)
	default:
		n.Problem(node.where, p.Get("operation"), "Unsupported operation", fmt.Sprintf("the HTML node's operation %q is not converted.", op))
		return nil
	}
}

// htmlResolvable is n8n's getResolvables (utils/utilities.js): each
// {{ … }} of a template, the shortest.
var htmlResolvable = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// jsString is s as a JavaScript string literal without { or }, so that
// it can stand inside a {{ }} expression.
func jsString(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.NewReplacer("{", `\u007b`, "}", `\u007d`).Replace(strings.TrimSuffix(b.String(), "\n"))
}

// htmlTemplate is Generate HTML Template: for each item {html}, the
// template with each {{ … }} replaced in turn, as n8n does it:
// html.replace(resolvable, value), the value the expression "={{ … }}"
// gives (String of it, and the replacement's $ patterns as JavaScript
// has them). goja evaluates the whole of it in one expression.
func (n *n8n) htmlTemplate(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	v := p.Get("html")
	html := htmlPlaceholder
	if v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported template", "an HTML Template given as an expression is evaluated twice by n8n (the expression, then the {{ }} in its value), which is not converted.")
			return nil
		}
		html = v.Str
	}
	s := n.scope(node, in, true)
	var value importer.Expr
	found := htmlResolvable.FindAllString(html, -1)
	if len(found) == 0 {
		value = importer.Template(n.HideCredentials([]importer.TPart{{Lit: html}}, fmt.Sprintf("n8n node %q", node.name)), false)
	} else {
		var js strings.Builder
		js.WriteString("={{ (function () { var h = " + jsString(html) + "\n")
		for _, r := range found {
			code := r[2 : len(r)-2]
			if strings.Contains(code, "{{") {
				n.Problem(node.where, v, "Unsupported template", fmt.Sprintf("%s: an expression with {{ inside is not converted.", r))
				return nil
			}
			if _, err := parser.ParseFile(nil, "", "("+code+"\n)", 0); err != nil {
				n.Problem(node.where, v, "Invalid expression", fmt.Sprintf("%s: %v (n8n fails on it).", r, err))
				return nil
			}
			// As the adapter's evaluate: an error of the code gives undefined.
			js.WriteString("h = h.replace(" + jsString(r) + ", (function () { try { return (" + code + "\n) } catch (e) { if (e instanceof AdapterError) { throw e } return undefined } })())\n")
		}
		js.WriteString("return h })() }}")
		at := *v
		at.Str = js.String()
		value = s.goja(&at, "html")
	}
	b, body := importer.NewStep(node.step, "value")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("value", importer.Clone(importer.Object([]importer.Member{{Name: "html", Value: value}})))
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": each item's HTML, its template's {{ }} replaced", b)
	return []n8nItems{pairedWith(importer.Join(importer.Ref("step", node.step), "[*].value"), in, nil)}
}

// htmlPlaceholder is the HTML node's default template (placeholder.js).
const htmlPlaceholder = `<!DOCTYPE html>

<html>
<head>
  <meta charset="UTF-8" />
  <title>My HTML document</title>
</head>
<body>
  <div class="container">
    <h1>This is an H1 heading</h1>
    <h2>This is an H2 heading</h2>
    <p>This is a paragraph</p>
  </div>
</body>
</html>

<style>
.container {
  background-color: #ffffff;
  text-align: center;
  padding: 16px;
  border-radius: 8px;
}

h1 {
  color: #ff6d5a;
  font-size: 24px;
  font-weight: bold;
  padding: 8px;
}

h2 {
  color: #909399;
  font-size: 18px;
  font-weight: bold;
  padding: 8px;
}
</style>

<script>
console.log("Hello World!");
</script>`
