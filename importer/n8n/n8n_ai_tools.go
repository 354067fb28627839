package n8n

import (
	"encoding/json"
	"fmt"
	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The tools an agent (or the OpenAI node) may call: each tool sub-node
// becomes an entry of the llm step's tools, a block of the flow that the
// model calls by its name.

// aiTools converts each tool sub-node into what the step's tools list
// holds.
var aiTools map[string]func(n *n8n, root, tool *n8nNode) (importer.Expr, bool)

func init() {
	aiTools = map[string]func(n *n8n, root, tool *n8nNode) (importer.Expr, bool){
		"toolCode":        (*n8n).codeTool,
		"toolThink":       (*n8n).thinkTool,
		"toolVectorStore": (*n8n).vectorStoreTool,
		"toolHttpRequest": (*n8n).httpTool,
		"toolCalculator":  (*n8n).calculatorTool,
		"toolWikipedia":   (*n8n).wikipediaTool,
		"toolWorkflow":    (*n8n).workflowTool,
	}
	for store := range vectorStores {
		aiTools[store] = (*n8n).vectorRetrieveTool
	}
}

// unsupportedTools say why a tool is not converted, where more than its
// type can say.
var unsupportedTools = map[string]string{
	"toolSerpApi": "Its answer is what langchain's SerpAPI tool picks out of Google's results (an answer box, a snippet…), for which flowctl has no block: an HTTP Request Tool on https://serpapi.com/search gives the model the results themselves.",
}

// tools converts the tools on a root's ai_tool input. A tool it cannot
// convert is an error at the tool, and its entry a block that fails with
// that error when the model calls it (what --partial writes): the root
// converts without it.
func (n *n8n) tools(root *n8nNode) ([]importer.Expr, bool) {
	var out []importer.Expr
	for _, t := range root.subNodes("ai_tool") {
		if t.disabled {
			continue
		}
		errs := n.errorCount()
		conv := aiTools[strings.TrimPrefix(t.fullType, langchainPrefix)]
		if !strings.HasPrefix(t.fullType, langchainPrefix) {
			conv = nil
			if appToolBase(t) != "" {
				conv = (*n8n).appTool
			}
		}
		if conv == nil {
			why := unsupportedTools[strings.TrimPrefix(t.fullType, langchainPrefix)]
			if why != "" {
				why = " " + why
			}
			msg := n.Problem(t.where, t.j.Get("type"), "Unsupported tool",
				fmt.Sprintf("flowctl import converts the tools %s into blocks and flows an llm step calls, and the nodes %s as tools (TYPETool); not %s.%s", strings.Join(importer.SortedKeys(aiTools), ", "), strings.Join(importer.SortedKeys(appToolBases), ", "), t.fullType, why))
			out = append(out, n.standInTool(root, t, msg))
			n.standIns += n.errorCount() - errs
			continue
		}
		blocks := len(n.File.Blocks)
		e, good := conv(n, root, t)
		if !good {
			n.File.Blocks = n.File.Blocks[:blocks]
			out = append(out, n.standInTool(root, t, n.lastError()))
			n.standIns += n.errorCount() - errs
			continue
		}
		t.conv = true
		out = append(out, e)
	}
	return out, true
}

// lastError is the message of the last error reported.
func (n *n8n) lastError() string {
	for i := len(n.Diags) - 1; i >= 0; i-- {
		if d := n.Diags[i]; d.Severity == hcl.DiagError {
			return d.Summary + ": " + d.Detail
		}
	}
	return "flowctl import could not convert this tool"
}

// standInTool is the block of a tool that is not converted: the model
// sees it under the tool's name, and calling it fails with msg.
func (n *n8n) standInTool(root, node *n8nNode, msg string) importer.Expr {
	block := n.toolBlockName(toolName(node))
	b := hclwrite.NewBlock("block", []string{block})
	body := b.Body()
	body.SetAttributeValue("runtime", cty.StringVal("js"))
	desc := node.params.Text("toolDescription")
	if desc == "" {
		desc = node.params.Text("description")
	}
	if desc != "" && !strings.HasPrefix(desc, "=") {
		body.SetAttributeValue("description", cty.StringVal(desc))
	}
	ib := body.AppendNewBlock("input", []string{"input"}).Body()
	ib.SetAttributeRaw("type", importer.Clone(importer.Code("any")))
	ib.SetAttributeRaw("default", importer.Clone(importer.Code("null")))
	ob := body.AppendNewBlock("output", []string{"response"}).Body()
	ob.SetAttributeRaw("type", importer.Clone(importer.Code("string")))
	quoted, _ := json.Marshal(msg)
	body.SetAttributeRaw("source", importer.Clone(importer.Template([]importer.TPart{{Lit: "function execute(input) { throw new Error(" + string(quoted) + ") }"}}, true)))
	n.File.Blocks = append(n.File.Blocks, importer.Decl{Comment: []string{n.nodeComment(node) + ": a tool of " + fmt.Sprintf("%q", root.name) + " — not converted"}, Block: b})
	return importer.Ref("block", block)
}

// toolBlockName is the name of a tool's block: the tool's name as the
// model sees it, in snake_case, none of the blocks the flow has.
func (n *n8n) toolBlockName(name string) string {
	n.Reserve("block", "http", "llm", "scrape", "file", "document", "chunk", "embed", "value", "mcp", "sleep", "approval",
		"vector_upsert", "vector_delete", "vector_search", "n8n_code", "not_converted")
	return n.Name("block", name, "tool")
}

// toolName is n8n's name of a tool node (nodeNameToToolName).
func toolName(node *n8nNode) string {
	var b strings.Builder
	under := false
	for _, r := range node.name {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	return b.String()
}

// codeTool is the Code Tool: a js block running the tool's JavaScript
// with query (the model's text, or its object when the tool has a
// schema), returning its result as the response text.
func (n *n8n) codeTool(root, node *n8nNode) (importer.Expr, bool) {
	p := node.params
	if lang := p.Text("language"); lang != "" && lang != "javaScript" {
		n.Problem(node.where, p.Get("language"), "Unsupported language", "a Code Tool in Python is not converted; JavaScript runs in a js block.")
		return nil, false
	}
	name := toolName(node)
	if node.version <= 1.1 {
		name = p.Text("name")
	}
	src := p.Text("jsCode")
	if p.Get("jsCode") == nil {
		src = "// Example: convert the incoming query to uppercase and return it\nreturn query.toUpperCase()"
	}
	if !n.checkCode(node, p.Get("jsCode"), src, toolWrap) {
		return nil, false
	}
	bad := toolCodeNames.FindString(src)
	if bad == "" && (strings.Contains(src, "require(") || strings.Contains(src, "this.helpers")) {
		bad = "require or helpers"
	}
	if bad != "" {
		n.Problem(node.where, p.Get("jsCode"), "Unsupported code",
			fmt.Sprintf("the tool's code uses %s, which its js block does not have (it has query and JavaScript's built-ins).", strings.TrimSpace(bad)))
		return nil, false
	}
	block := n.toolBlockName(name)
	b := hclwrite.NewBlock("block", []string{block})
	body := b.Body()
	body.SetAttributeValue("runtime", cty.StringVal("js"))
	if d := p.Get("description"); d != nil && d.Kind == 's' && !strings.HasPrefix(d.Str, "=") {
		body.SetAttributeValue("description", cty.StringVal(d.Str))
	}
	query := "input.input"
	if p.Boolean(false, "specifyInputSchema") {
		var schema *importer.JV
		example := p.Text("schemaType") != "manual"
		key := "jsonSchemaExample"
		if !example {
			key = "inputSchema"
		}
		raw := p.Get(key)
		if raw == nil {
			n.Problem(node.where, p, "Missing schema", "the tool specifies an input schema and has none.")
			return nil, false
		}
		if schema = n.parseJSONParam(node, raw, raw.Str); schema == nil {
			return nil, false
		}
		fields, why := objectFields(schema, example, node.version >= 1.3)
		if why != "" {
			n.Problem(node.where, raw, "Unsupported schema", "the schema "+why+": its properties are the inputs of the tool's block.")
			return nil, false
		}
		for _, f := range fields {
			ib := body.AppendNewBlock("input", []string{f.name}).Body()
			ib.SetAttributeRaw("type", importer.Clone(importer.Code(f.typ)))
			if f.description != "" {
				ib.SetAttributeValue("description", cty.StringVal(f.description))
			}
			if !f.required {
				ib.SetAttributeRaw("default", importer.Clone(importer.Code("null")))
			}
		}
		query = "input"
	} else {
		ib := body.AppendNewBlock("input", []string{"input"}).Body()
		ib.SetAttributeRaw("type", importer.Clone(importer.Code("string")))
	}
	ob := body.AppendNewBlock("output", []string{"response"}).Body()
	ob.SetAttributeRaw("type", importer.Clone(importer.Code("string")))
	body.SetAttributeRaw("source", importer.Clone(importer.Template([]importer.TPart{{Lit: toolSource(query, src)}}, true)))
	n.File.Blocks = append(n.File.Blocks, importer.Decl{Comment: []string{n.nodeComment(node) + ": a tool of " + fmt.Sprintf("%q", root.name)}, Block: b})
	if block != name {
		n.Warn(node.where, node.j.Get("name"), "Tool renamed", fmt.Sprintf("the model calls the tool %s, the name of its block; n8n calls it %s.", block, name))
	}
	return importer.Ref("block", block), true
}

// toolCodeNames finds n8n's names ($('Node'), $input, $json, $now…) in a
// Code Tool's code: the tool's block runs it on query alone.
var toolCodeNames = regexp.MustCompile(`(^|[^\w$])\$(\(|[A-Za-z_]\w*)`)

// toolWrap is a Code Tool's code as n8n runs it, for the syntax check.
var toolWrap = jsWrap{"(async function (query) {\n", "\n})"}

// toolSource is a Code Tool's block source: n8n's code in an async
// function of query, whose number result becomes text and whose other
// non-text result is an error, as n8n's tool says it.
func toolSource(query, src string) string {
	return "async function execute(input) {\n" +
		"  const query = " + query + ";\n" +
		"  let response = await (async function () {\n" + src + "\n  })();\n" +
		"  if (typeof response === \"number\") response = response.toString();\n" +
		"  if (typeof response !== \"string\") throw new Error(\"Wrong output type returned: the response property should be a string, but it is an \" + typeof response);\n" +
		"  return { response: response };\n" +
		"}\n"
}

// thinkTool is the Think Tool: the model's thought, given back.
func (n *n8n) thinkTool(root, node *n8nNode) (importer.Expr, bool) {
	name := toolName(node)
	if node.version == 1 {
		name = "thinking_tool"
	}
	block := n.toolBlockName(name)
	b := hclwrite.NewBlock("block", []string{block})
	body := b.Body()
	body.SetAttributeValue("runtime", cty.StringVal("js"))
	desc := node.params.Text("description")
	if desc == "" {
		desc = "Use the tool to think about something. It will not obtain new information or change the database, but just append the thought to the log. Use it when complex reasoning or some cache memory is needed."
	}
	body.SetAttributeValue("description", cty.StringVal(desc))
	ib := body.AppendNewBlock("input", []string{"input"}).Body()
	ib.SetAttributeRaw("type", importer.Clone(importer.Code("string")))
	ob := body.AppendNewBlock("output", []string{"response"}).Body()
	ob.SetAttributeRaw("type", importer.Clone(importer.Code("string")))
	body.SetAttributeValue("source", cty.StringVal("function execute(input) { return { response: input.input } }"))
	n.File.Blocks = append(n.File.Blocks, importer.Decl{Comment: []string{n.nodeComment(node) + ": a tool of " + fmt.Sprintf("%q", root.name)}, Block: b})
	return importer.Ref("block", block), true
}
