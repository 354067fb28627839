package n8n

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// A Default Data Loader's text splitting: the chunks n8n makes, as a step
// of the flow makes them. n8n's Token Splitter cuts windows of cl100k_base
// tokens, as the chunk block's tokens do; its character splitters (and
// the loader's simple mode) are langchain's, whose chunks are made by
// n8n_splitter.js, langchain's own code, in a js block of the flow.

//go:embed n8n_splitter.js
var splitterJS string

// splitting is how a loader's documents are split: by chunk's tokens
// (tokens > 0), or by langchain's character splitters.
type splitting struct {
	tokens, overlap int
	// The character splitters' parameters: the sizes in characters
	// (UTF-16 code units), the separators, whether the separator is kept
	// at the start of the split after it, and whether the splitter is the
	// recursive one.
	size, charOverlap int
	separators        []string
	keep, recursive   bool
}

// splitter is a loader's text splitting.
func (n *n8n) splitter(loader *n8nNode) (splitting, bool) {
	subs := loader.subNodes("ai_textSplitter")
	if len(subs) == 0 {
		if loader.version >= 1.1 && loader.params.Text("textSplittingMode") != "custom" {
			// new RecursiveCharacterTextSplitter({chunkSize: 1000, chunkOverlap: 200}):
			// langchain's separators, kept.
			return splitting{size: 1000, charOverlap: 200, separators: []string{"\n\n", "\n", " ", ""}, keep: true, recursive: true}, true
		}
		n.Problem(loader.where, loader.j, "Missing text splitter", "the loader needs a text splitter on its Text Splitter input, as n8n does.")
		return splitting{}, false
	}
	sp := subs[0]
	short := strings.TrimPrefix(sp.fullType, langchainPrefix)
	if strings.HasPrefix(short, "textSplitter") && !n.splitterValid(sp) {
		return splitting{}, false
	}
	p := sp.params
	for _, k := range []string{"chunkSize", "chunkOverlap", "separator"} {
		if v := p.Get(k); v != nil && (v.Kind == 's' && strings.HasPrefix(v.Str, "=")) {
			n.Problem(sp.where, v, "Unsupported expression", fmt.Sprintf("the splitter's %s is converted when it is written out.", k))
			return splitting{}, false
		}
	}
	size := int(p.Number(1000, "chunkSize"))
	overlap := int(p.Number(0, "chunkOverlap"))
	switch short {
	case "textSplitterTokenSplitter":
		sp.conv = true
		return splitting{tokens: max(size, 1), overlap: min(overlap, max(size-1, 0))}, true
	case "textSplitterRecursiveCharacterTextSplitter":
		if c := p.Get("options", "splitCode"); c != nil {
			n.Problem(sp.where, c, "Unsupported option", fmt.Sprintf("splitting code (%s) cuts at the language's own separators; the splitter without Split Code is converted.", c.Str))
			return splitting{}, false
		}
		sp.conv = true
		return splitting{size: size, charOverlap: overlap, separators: []string{"\n\n", "\n", " ", ""}, recursive: true}, true
	case "textSplitterCharacterTextSplitter":
		sp.conv = true
		return splitting{size: size, charOverlap: overlap, separators: []string{p.Text("separator")}}, true
	}
	n.Problem(sp.where, sp.j.Get("type"), "Unsupported text splitter", fmt.Sprintf("the token and character text splitters are converted; not %s.", sp.fullType))
	return splitting{}, false
}

// chunkStep writes the step named name that splits text for each of in's
// items; each of its instances has chunks, each with its text.
func (n *n8n) chunkStep(name string, sp splitting, in n8nItems, text importer.Expr, comment string) {
	if sp.tokens > 0 {
		b, body := importer.NewStep(name, "chunk")
		body.SetAttributeRaw("for_each", importer.Clone(in.e))
		body.SetAttributeRaw("text", importer.Clone(text))
		body.SetAttributeRaw("max_tokens", importer.Clone(importer.Code(strconv.Itoa(sp.tokens))))
		body.SetAttributeRaw("overlap", importer.Clone(importer.Code(strconv.Itoa(sp.overlap))))
		body.SetAttributeValue("by", cty.StringVal("tokens"))
		n.dependsOn(body, in)
		n.Step(comment, b)
		return
	}
	b, body := importer.NewStep(name, n.textSplitterBlock())
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("text", importer.Clone(text))
	body.SetAttributeRaw("chunk_size", importer.Clone(importer.Code(strconv.Itoa(sp.size))))
	body.SetAttributeRaw("chunk_overlap", importer.Clone(importer.Code(strconv.Itoa(sp.charOverlap))))
	var seps []cty.Value
	for _, s := range sp.separators {
		seps = append(seps, cty.StringVal(s))
	}
	body.SetAttributeValue("separators", cty.ListVal(seps))
	body.SetAttributeValue("keep_separator", cty.BoolVal(sp.keep))
	body.SetAttributeValue("recursive", cty.BoolVal(sp.recursive))
	n.dependsOn(body, in)
	n.Step(comment, b)
}

// textSplitterBlock declares, once, the js block of langchain's character
// text splitters, and returns its name.
func (n *n8n) textSplitterBlock() string {
	if n.splitterBlock != "" {
		return n.splitterBlock
	}
	n.splitterBlock = n.toolBlockName("text_splitter")
	b := hclwrite.NewBlock("block", []string{n.splitterBlock})
	body := b.Body()
	body.SetAttributeValue("runtime", cty.StringVal("js"))
	body.SetAttributeValue("description", cty.StringVal("langchain's CharacterTextSplitter and RecursiveCharacterTextSplitter, as n8n splits documents"))
	for _, in := range [][2]string{{"text", "string"}, {"chunk_size", "number"}, {"chunk_overlap", "number"}, {"separators", "list(string)"}, {"keep_separator", "bool"}, {"recursive", "bool"}} {
		body.AppendNewBlock("input", []string{in[0]}).Body().SetAttributeRaw("type", importer.Clone(importer.Code(in[1])))
	}
	body.AppendNewBlock("output", []string{"chunks"}).Body().SetAttributeRaw("type", importer.Clone(importer.Code("list(object({ text = string }))")))
	body.SetAttributeRaw("source", importer.Clone(importer.Template([]importer.TPart{{Lit: splitterJS}}, true)))
	n.File.Blocks = append(n.File.Blocks, importer.Decl{Comment: []string{"langchain's character text splitters, which n8n's text splitter nodes are (its code, @langchain/textsplitters 1.0.1)"}, Block: b})
	return n.splitterBlock
}
