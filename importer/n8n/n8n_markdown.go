package n8n

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The Markdown node runs on the n8n_markdown block: a js block whose
// source is the adapter n8n_markdown.js, on the npm packages n8n computes
// the node with (its packages argument: flowctl lock pins them, apply
// installs and bundles them), so the text is n8n's.

//go:embed n8n_markdown.js
var n8nMarkdownJS string

// libInput is an input of a library block: its name, type and
// description.
type libInput struct{ name, typ, desc string }

// libPackage is an npm package of a library block, at the exact version
// n8n (n8nLibVersion) has in its n8n-nodes-base's dependencies.
type libPackage struct{ name, version string }

// n8nLibVersion is the version of n8n whose packages the library blocks
// declare.
const n8nLibVersion = "2.8.4"

// libBlockFile is blocks/NAME.block.hcl holding the js block NAME whose
// source is the adapter src importing the packages pkgs, with the inputs
// and the one output (any) given.
func libBlockFile(name, desc, src string, pkgs []libPackage, inputs []libInput, output, outputDesc string) func() []byte {
	return sync.OnceValue(func() []byte {
		b := hclwrite.NewBlock("block", []string{name})
		body := b.Body()
		body.SetAttributeValue("description", cty.StringVal(desc))
		body.SetAttributeValue("runtime", cty.StringVal("js"))
		var ps []string
		for _, p := range pkgs {
			ps = append(ps, fmt.Sprintf("%q = %q", p.name, p.version))
		}
		body.SetAttributeRaw("packages", importer.Clone(importer.Code("{ "+strings.Join(ps, ", ")+" }")))
		for _, in := range inputs {
			ib := body.AppendNewBlock("input", []string{in.name}).Body()
			ib.SetAttributeRaw("type", importer.Clone(importer.Code(in.typ)))
			ib.SetAttributeValue("description", cty.StringVal(in.desc))
		}
		ob := body.AppendNewBlock("output", []string{output}).Body()
		ob.SetAttributeRaw("type", importer.Clone(importer.Code("any")))
		ob.SetAttributeValue("description", cty.StringVal(outputDesc))
		body.SetAttributeRaw("source", importer.Clone(importer.Template([]importer.TPart{{Lit: src}}, true)))
		header := []string{"Written by flowctl import for the flows imported from n8n; the same for every import.",
			"Its packages are the versions n8n " + n8nLibVersion + " computes the node with: flowctl lock pins them."}
		f := &importer.BlockFile{Name: name, Header: header, Blocks: []importer.Decl{{Block: b}}}
		out, d := lang.Format(f.Bytes(), name+".block.hcl")
		if d.HasErrors() {
			panic("the " + name + " block does not parse: " + d.Error())
		}
		return out
	})
}

var n8nMarkdownBlockText = libBlockFile("n8n_markdown", "n8n's Markdown node on n8n's node-html-markdown and showdown (written by flowctl import)",
	n8nMarkdownJS, []libPackage{{"lodash", "4.17.23"}, {"node-html-markdown", "1.2.0"}, {"showdown", "2.1.0"}}, []libInput{
		{"mode", "string", "htmlToMarkdown or markdownToHtml"},
		{"item", "any", "the json of the item"},
		{"text", "any", "the HTML or Markdown to convert"},
		{"destination", "any", "the key the result is set at (lodash's set path)"},
		{"options", "any", "the node's options"},
	}, "json", "the json of the item, the result set at the destination")

// useBlockFile adds the library block file name (text) to the flow's,
// once, and says that the flow is to be locked.
func (n *n8n) useBlockFile(name string, text func() []byte) {
	for _, b := range n.File.BlockFiles {
		if b.Name == name {
			return
		}
	}
	n.File.BlockFiles = append(n.File.BlockFiles, &importer.BlockFile{Name: name, Fixed: text})
	n.lockNeeded()
}

// markdownNode is the Markdown node: for each item a copy of its json with
// the HTML converted to Markdown (or the Markdown to HTML) set at the
// destination key. The options are given as they are to the libraries,
// which read them as n8n's node does; they must be literals.
func (n *n8n) markdownNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	mode := p.Text("mode")
	if mode == "" {
		mode = "htmlToMarkdown"
	}
	text := "html"
	switch mode {
	case "htmlToMarkdown":
	case "markdownToHtml":
		text = "markdown"
	default:
		n.Problem(node.where, p.Get("mode"), "Unsupported operation", fmt.Sprintf("the Markdown node's mode %q is not converted.", mode))
		return nil
	}
	opts := p.Get("options")
	if opts != nil && !literalJSON(opts) {
		n.Problem(node.where, opts, "Unsupported option", "an option given as an expression is not converted (the Markdown node's options are given as they are to its libraries).")
		return nil
	}
	s := n.scope(node, in, true)
	src := importer.Expr(importer.Str("")) // n8n's default
	if v := p.Get(text); v != nil {
		src = s.value(v, text)
	}
	dest := importer.Expr(importer.Str("data"))
	if v := p.Get("destinationKey"); v != nil {
		dest = s.value(v, "destinationKey")
	}
	options := importer.Code("{}")
	if opts != nil {
		options = importer.JsonLiteral(opts)
	}
	b, body := importer.NewStep(node.step, "n8n_markdown")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeValue("mode", cty.StringVal(mode))
	body.SetAttributeRaw("item", importer.Clone(importer.Code("each.value")))
	body.SetAttributeRaw("text", importer.Clone(src))
	body.SetAttributeRaw("destination", importer.Clone(dest))
	body.SetAttributeRaw("options", importer.Clone(options))
	n.dependsOn(body, in)
	s.flush()
	what := "the HTML of each item as Markdown"
	if mode == "markdownToHtml" {
		what = "the Markdown of each item as HTML"
	}
	n.Step(n.nodeComment(node)+": "+what+" (n8n's libraries)", b)
	n.useBlockFile("n8n_markdown", n8nMarkdownBlockText)
	return []n8nItems{pairedWith(importer.Join(importer.Ref("step", node.step), "[*].json"), in, nil)}
}

// literalJSON reports whether v holds no expression (a text that starts
// with =).
func literalJSON(v *importer.JV) bool {
	switch v.Kind {
	case 's':
		return !strings.HasPrefix(v.Str, "=")
	case 'o':
		for _, k := range v.Keys {
			if !literalJSON(v.Obj[k]) {
				return false
			}
		}
	case 'a':
		for _, e := range v.Arr {
			if !literalJSON(e) {
				return false
			}
		}
	}
	return true
}
