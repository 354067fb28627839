package n8n

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// Extract HTML Content (the HTML node) and the older HTML Extract node run
// on the n8n_html block: the adapter n8n_html.js on the npm packages n8n
// computes them with, cheerio and html-to-text (as n8n_markdown.go's
// library blocks).

//go:embed n8n_html.js
var n8nHTMLJS string

var n8nHTMLBlockText = libBlockFile("n8n_html", "n8n's HTML node's Extract HTML Content and HTML Extract node on n8n's cheerio and html-to-text (written by flowctl import)",
	n8nHTMLJS, []libPackage{{"cheerio", "1.0.0-rc.6"}, {"html-to-text", "9.0.5"}}, []libInput{
		{"node", "string", "html (the HTML node) or htmlExtract (the HTML Extract node)"},
		{"version", "number", "the node's version"},
		{"item", "any", "the json of the item"},
		{"property", "string", "the JSON property the HTML is in"},
		{"extraction", "any", "the extraction values"},
		{"options", "any", "the node's options"},
	}, "items", "the json of the items made of the item's HTML (one for each HTML text)")

// htmlExtractNode is the HTML Extract node (before the HTML node).
func (n *n8n) htmlExtractNode(node *n8nNode, in n8nItems) []n8nItems {
	return n.htmlExtract(node, in, node.version)
}

// htmlExtract is Extract HTML Content: for each item, an item for each
// HTML text of its property (a text or a list of them), with the values
// the CSS selectors find, computed by n8n's own libraries. The HTML in
// binary data is not converted; the options must be literals.
func (n *n8n) htmlExtract(node *n8nNode, in n8nItems, version float64) []n8nItems {
	p := node.params
	kind := "html"
	if node.typ == "htmlExtract" {
		kind = "htmlExtract"
	}
	if src := p.Text("sourceData"); src != "" && src != "json" {
		n.Problem(node.where, p.Get("sourceData"), "Binary data", fmt.Sprintf("the HTML in binary data (source data %q) is not converted; HTML in a JSON property is.", src))
		return nil
	}
	opts := p.Get("options")
	if opts != nil && !literalJSON(opts) {
		n.Problem(node.where, opts, "Unsupported option", "an option given as an expression is not converted.")
		return nil
	}
	s := n.scope(node, in, true)
	// The property's name, a literal (or an expression without {{ }}).
	// n8n reads it with lodash's get: a path, with . or [, is not
	// converted.
	property := "data"
	if v := p.Get("dataPropertyName"); v != nil {
		name := v.Str
		if v.Kind == 's' && strings.HasPrefix(name, "=") && !strings.Contains(name, "{{") {
			name = name[1:]
		}
		if v.Kind != 's' || strings.HasPrefix(name, "=") || strings.ContainsAny(name, ".[") {
			n.Problem(node.where, v, "Unsupported option", "the JSON property is an expression or a path (with . or [), which is not converted; the name of a field of the item is.")
			return nil
		}
		property = name
	}
	var extraction importer.Expr
	ev := p.Get("extractionValues")
	switch {
	case ev == nil && kind == "html" && version > 1:
		// n8n's default: one value of all fields' defaults.
		extraction = importer.Code(`{values = [{key = "", cssSelector = "", returnValue = "text", attribute = "", skipSelectors = "", returnArray = false}]}`)
	case ev == nil:
		extraction = importer.Code("{}")
	default:
		values := ev.Get("values")
		if ev.Kind != 'o' || values == nil || values.Kind != 'a' {
			n.Problem(node.where, ev, "Unsupported option", "the extraction values are not a list of values.")
			return nil
		}
		var list []importer.Expr
		for i, e := range values.Arr {
			if e.Kind != 'o' {
				n.Problem(node.where, e, "Unsupported option", "an extraction value is not an object.")
				return nil
			}
			fields := map[string]importer.Expr{"key": importer.Str(""), "cssSelector": importer.Str(""), "returnValue": importer.Str("text"), "attribute": importer.Str(""), "skipSelectors": importer.Str(""), "returnArray": importer.Code("false")}
			for _, k := range e.Keys {
				if _, ok := fields[k]; !ok {
					n.Problem(node.where, e.Obj[k], "Unsupported option", fmt.Sprintf("the extraction value's %q is not converted.", k))
					return nil
				}
				fields[k] = s.value(e.Obj[k], fmt.Sprintf("value_%d_%s", i+1, k))
			}
			var ms []importer.Member
			for _, k := range []string{"key", "cssSelector", "returnValue", "attribute", "skipSelectors", "returnArray"} {
				ms = append(ms, importer.Member{Name: k, Value: fields[k]})
			}
			list = append(list, importer.Object(ms))
		}
		extraction = importer.Object([]importer.Member{{Name: "values", Value: importer.Tuple(list)}})
	}
	options := importer.Code("{}")
	if opts != nil {
		options = importer.JsonLiteral(opts)
	}
	b, body := importer.NewStep(node.step, "n8n_html")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeValue("node", cty.StringVal(kind))
	body.SetAttributeValue("version", cty.NumberFloatVal(version))
	body.SetAttributeRaw("item", importer.Clone(importer.Code("each.value")))
	body.SetAttributeValue("property", cty.StringVal(property))
	body.SetAttributeRaw("extraction", importer.Clone(extraction))
	body.SetAttributeRaw("options", importer.Clone(options))
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": the values the CSS selectors find in each item's HTML (n8n's cheerio)", b)
	n.useBlockFile("n8n_html", n8nHTMLBlockText)
	return []n8nItems{pairedWith(importer.Call("flatten", importer.Join(importer.Ref("step", node.step), "[*].items")), in, eachPaired(node.step))}
}
