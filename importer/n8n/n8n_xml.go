package n8n

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// The XML node (Xml.node.js): XML to JSON runs on the n8n_xml block, the
// adapter n8n_xml.js on xml2js 0.6.2, the version n8n computes it with
// (flowctl lock gives xml2js Node's events and timers by their npm
// polyfills; sax's optional stream is left out, as sax expects). JSON to
// XML is refused: xml2js writes the elements in the order of the item's
// fields, which a flow's objects do not keep (their keys are sorted).

//go:embed n8n_xml.js
var n8nXMLJS string

var n8nXMLBlockText = libBlockFile("n8n_xml", "n8n's XML node's XML to JSON on n8n's xml2js (written by flowctl import)",
	n8nXMLJS, []libPackage{{"xml2js", "0.6.2"}}, []libInput{
		{"item", "any", "the json of the item"},
		{"property", "string", "the JSON property the XML is in"},
		{"options", "any", "the node's options"},
	}, "json", "the json the XML parses to")

// xmlNode converts the XML node by its mode.
func (n *n8n) xmlNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	switch mode := p.Text("mode"); mode {
	case "", "xmlToJson":
	case "jsonToxml":
		n.Problem(node.where, p.Get("mode"), "Unsupported operation", "JSON to XML: xml2js writes the elements in the order of the item's fields, which a flow's objects do not keep (their keys are sorted).")
		return nil
	default:
		n.Problem(node.where, p.Get("mode"), "Unsupported operation", fmt.Sprintf("the XML node's mode %q is not converted.", mode))
		return nil
	}
	opts := p.Get("options")
	if opts != nil && !literalJSON(opts) {
		n.Problem(node.where, opts, "Unsupported option", "an option given as an expression is not converted (the XML node's options are given as they are to xml2js).")
		return nil
	}
	// n8n reads the property's name on the first item and the property
	// as item.json[name]: a literal name is converted.
	property := "data"
	if v := p.Get("dataPropertyName"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported option", "the JSON property is an expression, which is not converted; the name of a field of the item is.")
			return nil
		}
		property = v.Str
	}
	options := importer.Code("{}")
	if opts != nil {
		options = importer.JsonLiteral(opts)
	}
	b, body := importer.NewStep(node.step, "n8n_xml")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("item", importer.Clone(importer.Code("each.value")))
	body.SetAttributeValue("property", cty.StringVal(property))
	body.SetAttributeRaw("options", importer.Clone(options))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": the XML of each item as JSON (n8n's xml2js)", b)
	n.useBlockFile("n8n_xml", n8nXMLBlockText)
	return []n8nItems{pairedWith(importer.Join(importer.Ref("step", node.step), "[*].json"), in, nil)}
}
