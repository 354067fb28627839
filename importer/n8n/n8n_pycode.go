package n8n

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The Code node in Python, as n8n 1.x runs it (PythonSandbox on Pyodide):
// an n8n_python block (a python block, CPython in flowctl's sandbox) runs
// the code as the body of a function whose globals are n8n's context with
// $ spelled _ — _input (all, first, last, item), _json, _('Node') (all,
// first, last, item), items or item, _itemIndex, _runIndex, _workflow —
// the items read through proxies as Pyodide's JsProxy reads JavaScript
// objects (attributes and keys alike, .to_py()), and what it returns made
// items as n8n makes them (n8n_python.py). What Pyodide has and the block
// does not is refused: modules outside the python blocks' standard
// library allowlist (numpy, micropip…), await, the context's other names.

//go:embed n8n_python.py
var n8nPythonSource string

// pyImport finds a Python import statement's modules: import a, b as c;
// from a import b, (c).
var pyImport = regexp.MustCompile(`(?m)^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([^)\n#]*)|import[ \t]+([^\n#;]+))`)

// pyUnsupported are the names of n8n's Python context the block does not
// give (n8n's $now, $env… spelled _), Pyodide's await, and items
// following pairs n8n's way the flow does not know (itemMatching).
var pyUnsupported = regexp.MustCompile(`\b_(now|today|env|jmespath|vars|secrets|execution|prevNode|getWorkflowStaticData|evaluateExpression|getNodeParameter|binary|node|items|position|mode|parameter|self|fromAI|agentInfo)\b|\bawait\b|\.itemMatching\b|\bpyodide\b|\bjs\b\.`)

// pyNodeCall is _( at the start of a name: n8n's $( in Python.
var pyNodeCall = regexp.MustCompile(`\b_\(`)

// pythonCodeNode converts a Code node whose language is python.
func (n *n8n) pythonCodeNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	src := p.Text("pythonCode")
	at := p.Get("pythonCode")
	if at == nil {
		at = p
	}
	for _, m := range pyImport.FindAllStringSubmatch(src, -1) {
		if m[1] != "" {
			var names []string
			for _, s := range strings.Split(m[2], ",") {
				if f := strings.Fields(s); len(f) > 0 {
					names = append(names, f[0])
				}
			}
			if !pyrun.Allowed(m[1], names) {
				n.pyRefuse(node, at, "from "+m[1]+" import "+strings.TrimSpace(m[2]))
				return nil
			}
			continue
		}
		for _, s := range strings.Split(m[3], ",") {
			if f := strings.Fields(s); len(f) > 0 && !pyrun.Allowed(f[0], nil) {
				n.pyRefuse(node, at, "import "+f[0])
				return nil
			}
		}
	}
	if !n.pyCheck(node, at, src) {
		return nil
	}
	if bad := pyUnsupported.FindString(src); bad != "" {
		n.Problem(node.where, at, "Unsupported code",
			fmt.Sprintf("the code uses %s, which the n8n_python block does not have (it has _input, _json, items or item, _('Node') with all, first, last and item, _itemIndex, _runIndex, _workflow.name and the python blocks' modules).", strings.TrimSuffix(bad, ".")))
		return nil
	}
	// The node references are $('Node')'s, spelled _('Node').
	nodes, pairs, ok := n.referencedNodes(node, in, []codeSrc{{pyNodeCall.ReplaceAllString(src, "$$("), at}})
	if !ok {
		return nil
	}
	mode := p.Text("mode")
	if mode == "" {
		mode = "runOnceForAllItems"
	}
	each := mode == "runOnceForEachItem"
	n.python = true
	b, body := n.adapterStep(node.step, "n8n_python", mode, in, each, nodes, pairs)
	n.retry(node, body)
	body.SetAttributeRaw("code", importer.Clone(importer.Template([]importer.TPart{{Lit: src}}, true)))
	what := "run once for all items"
	if each {
		what = "run once for each item"
	}
	n.Step(n.nodeComment(node)+": Python, "+what, b)
	if each {
		return []n8nItems{pairedWith(importer.Call("flatten", importer.Join(importer.Ref("step", node.step), "[*].items")), in, eachPaired(node.step))}
	}
	return []n8nItems{pairedWith(importer.Ref("step", node.step, "items"), in, importer.Ref("step", node.step, "pairs"))}
}

// pyCheck checks the code as validate checks a python block's, with
// CPython's parser (pyrun.Check): its syntax in the function n8n makes of
// it, and its imports. Without an interpreter the flow's own check says
// so.
func (n *n8n) pyCheck(node *n8nNode, at *importer.JV, src string) bool {
	wrapped := "def __main():\n" + indentPy(src) + "\ndef execute(input, ctx):\n  pass\n"
	for _, d := range pyrun.Check([]*lang.BlockDef{{Name: node.name, Runtime: lang.RuntimePython, Source: wrapped}}) {
		if d.Severity != hcl.DiagError || d.Summary == pyrun.NotFoundSummary {
			continue
		}
		why := strings.TrimPrefix(d.Detail, fmt.Sprintf("Block %q: ", node.name))
		why = pyLine.ReplaceAllStringFunc(why, func(m string) string {
			k, _ := strconv.Atoi(pyLine.FindStringSubmatch(m)[1])
			return fmt.Sprintf("line %d", k-1)
		})
		if d.Summary == "Invalid Python" {
			n.Problem(node.where, at, "Invalid Python", strings.TrimSuffix(why, ".")+": n8n fails the node on it too.")
		} else {
			n.Problem(node.where, at, "Unsupported code", "the Python code is not one a python block runs: "+d.Summary+": "+why)
		}
		return false
	}
	return true
}

// pyLine finds the line a check's message gives.
var pyLine = regexp.MustCompile(`line (\d+)`)

// indentPy is the code as n8n puts it in its function: each line indented
// by two spaces.
func indentPy(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

func (n *n8n) pyRefuse(node *n8nNode, at *importer.JV, stmt string) {
	n.Problem(node.where, at, "Unsupported code",
		fmt.Sprintf("the code has %q: a flowctl python block imports only the standard library modules of its allowlist (docs/language.md), where n8n's Pyodide has more and loads packages.", stmt))
}

// n8nPythonBlockFile is the n8n_python block: n8n's Python Code node.
func n8nPythonBlockFile() *importer.BlockFile {
	b := hclwrite.NewBlock("block", []string{"n8n_python"})
	body := b.Body()
	body.SetAttributeValue("description", cty.StringVal("n8n's Code node in Python, as n8n's Pyodide runs it (written by flowctl import)"))
	body.SetAttributeValue("runtime", cty.StringVal("python"))
	input := func(name, typ string, def importer.Expr, desc string) { blockInput(body, name, typ, def, desc) }
	input("mode", "string", nil, "runOnceForAllItems or runOnceForEachItem")
	input("code", "string", nil, "the Code node's Python")
	input("items", "any", importer.Code("[]"), "the json of the input items")
	input("index", "number", importer.Code("0"), "the index of the current item")
	input("nodes", "any", importer.Code("{}"), "the json of the items of the nodes the code names, by node name")
	input("pairs", "any", importer.Code("{}"), "for each node the code names with .item, the index of each input item's paired item in that node's items")
	input("workflow", "string", importer.Str(""), "the workflow's name (_workflow.name)")
	for _, o := range [][2]string{{"items", "the json of the output items"}, {"pairs", "the index of the input item each output item pairs with (null: none n8n follows)"}} {
		blockOutput(body, o[0], o[1])
	}
	body.SetAttributeRaw("source", importer.Clone(importer.Template([]importer.TPart{{Lit: n8nPythonSource}}, true)))
	return &importer.BlockFile{
		Name:   "n8n_python",
		Header: []string{"Written by flowctl import for the flows imported from n8n; the same for every import."},
		Blocks: []importer.Decl{{Block: b}},
	}
}
