package n8n

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The Code node and the steps that evaluate expressions run on the
// n8n_code block: goja, in the sandbox, with n8n_code.js as the adapter
// that gives the code n8n's names ($input, $json, items, $('Node')).

//go:embed n8n_code.js
var n8nCodeJS string

// n8nLegacyJS goes on after n8n_code.js: the legacy Function nodes and
// the list nodes that followed them.
//
//go:embed n8n_code_legacy.js
var n8nLegacyJS string

// The rest of the adapter, in files of their own: Split Out and
// Aggregate; Merge's modes, the Schedule Trigger and the first versions
// of IF, Switch and Merge; Compare Datasets.
var (
	//go:embed n8n_code_lists.js
	n8nListsJS string
	//go:embed n8n_code_nodes.js
	n8nNodesJS string
	//go:embed n8n_code_compare.js
	n8nCompareJS string
)

// n8nAdapterJS is the n8n_code block's whole source.
var n8nAdapterJS = n8nCodeJS + n8nListsJS + n8nNodesJS + n8nLegacyJS + n8nCompareJS + n8nTimeJS

// n8nCodeBlockFile is blocks/n8n.block.hcl, which holds the n8n_code
// block. Its text is made once.
func n8nCodeBlockFile() *importer.BlockFile {
	return &importer.BlockFile{Name: "n8n", Fixed: n8nCodeBlockText}
}

var n8nCodeBlockText = sync.OnceValue(func() []byte {
	b := n8nCodeBlock()
	out, d := lang.Format(b.Bytes(), "n8n.block.hcl")
	if d.HasErrors() {
		panic("the n8n_code block does not parse: " + d.Error())
	}
	return out
})

// blockInput appends an input of a block the import writes.
func blockInput(body *hclwrite.Body, name, typ string, def importer.Expr, desc string) {
	ib := body.AppendNewBlock("input", []string{name}).Body()
	ib.SetAttributeRaw("type", importer.Clone(importer.Code(typ)))
	if def != nil {
		ib.SetAttributeRaw("default", importer.Clone(def))
	}
	ib.SetAttributeValue("description", cty.StringVal(desc))
}

// blockOutput appends an output of type any of a block the import
// writes, and returns its body.
func blockOutput(body *hclwrite.Body, name, desc string) *hclwrite.Body {
	ob := body.AppendNewBlock("output", []string{name}).Body()
	ob.SetAttributeRaw("type", importer.Clone(importer.Code("any")))
	ob.SetAttributeValue("description", cty.StringVal(desc))
	return ob
}

func n8nCodeBlock() *importer.BlockFile {
	b := hclwrite.NewBlock("block", []string{"n8n_code"})
	body := b.Body()
	body.SetAttributeValue("description", cty.StringVal("n8n's Code node, expressions and list nodes, on goja (written by flowctl import)"))
	body.SetAttributeValue("runtime", cty.StringVal("js"))
	input := func(name, typ string, def importer.Expr, desc string) { blockInput(body, name, typ, def, desc) }
	input("mode", "string", nil, "runOnceForAllItems, runOnceForEachItem, expressions, splitOut, aggregate, sort, scheduleTrigger, stopAndError, combineByPosition, combineAll, ifV1, switchV1, mergeV1, combineByFields, function, functionItem, removeDuplicates or renameKeys")
	input("code", "string", importer.Str(""), "the Code node's JavaScript")
	input("expressions", "map(string)", importer.Code("{}"), "n8n expressions to evaluate, by name")
	input("params", "any", importer.Code("{}"), "the parameters of a list node")
	input("items", "any", importer.Code("[]"), "the json of the input items")
	input("index", "number", importer.Code("0"), "the index of the current item")
	input("nodes", "any", importer.Code("{}"), "the json of the items of the nodes the code names, by node name")
	input("pairs", "any", importer.Code("{}"), "for each node the code names with .item, the index of each input item's paired item in that node's items")
	input("workflow", "string", importer.Str(""), "the workflow's name ($workflow.name)")
	input("zone", "any", importer.Code("null"), "the workflow's timezone for $now and $today, when it is not UTC: its name and offsets")
	for _, o := range [][2]string{{"items", "the json of the output items"}, {"values", "the values of the expressions, by name"}, {"pairs", "for the Code node run once for all items, the index of the input item each output item pairs with (null: none n8n follows)"}} {
		// Each mode gives items or values; the others are null.
		blockOutput(body, o[0], o[1]).SetAttributeValue("optional", cty.True)
	}
	body.SetAttributeRaw("source", importer.Clone(importer.Template([]importer.TPart{{Lit: n8nAdapterJS}}, true)))
	return &importer.BlockFile{
		Name:   "n8n",
		Header: []string{"Written by flowctl import for the flows imported from n8n; the same for every import."},
		Blocks: []importer.Decl{{Block: b}},
	}
}

// codeNode is the Code node (v1 and v2, JavaScript): run once for all items, or
// once for each item (for_each).
func (n *n8n) codeNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	// Code v1 runs JavaScript whatever its (hidden) language says.
	if lang := p.Text("language"); node.version >= 2 && lang == "python" {
		return n.pythonCodeNode(node, in)
	} else if node.version >= 2 && lang != "" && lang != "javaScript" {
		n.Problem(node.where, p.Get("language"), "Unsupported language", "Code nodes in "+lang+" (n8n 2's native Python runner) are not converted; JavaScript ones run on goja, Python ones (n8n 1's Pyodide) in a python block.")
		return nil
	}
	mode := p.Text("mode")
	if mode == "" {
		mode = "runOnceForAllItems"
	}
	src := p.Text("jsCode")
	nodes, pairs, ok := n.referencedNodes(node, in, []codeSrc{{src, p.Get("jsCode")}})
	if !ok {
		return nil
	}
	// What the code names, not the words of its strings and comments.
	if code := jsCodeText(src); unsupportedN8NName.MatchString(code) || strings.Contains(code, "require(") || strings.Contains(code, "$helpers") || strings.Contains(code, "this.helpers") {
		bad := unsupportedN8NName.FindString(code)
		if bad == "" {
			bad = "require or helpers"
		}
		n.Problem(node.where, p.Get("jsCode"), "Unsupported code",
			fmt.Sprintf("the code uses %s, which goja's n8n adapter does not have (it has $input, $json, items, item, $('Node'), $node, $itemIndex, $workflow.name and JavaScript's built-ins).", bad))
		return nil
	}
	if !n.checkCode(node, p.Get("jsCode"), src, codeWrap) {
		return nil
	}
	each := mode == "runOnceForEachItem"
	b, body := n.codeStep(node.step, mode, in, each, nodes, pairs)
	n.retry(node, body)
	// The code gains a final newline in a heredoc; it means the same.
	body.SetAttributeRaw("code", importer.Clone(importer.Template([]importer.TPart{{Lit: src}}, true)))
	what := "run once for all items"
	if each {
		what = "run once for each item"
	}
	n.Step(n.nodeComment(node)+": JavaScript, "+what, b)
	if each {
		// An item (or none) for each item, which n8n pairs with it.
		return []n8nItems{pairedWith(importer.Call("flatten", importer.Join(importer.Ref("step", node.step), "[*].items")), in, eachPaired(node.step))}
	}
	// The pairs n8n gives the items the code returns (pairsOf in
	// n8n_code.js).
	return []n8nItems{pairedWith(importer.Ref("step", node.step, "items"), in, importer.Ref("step", node.step, "pairs"))}
}

// nodeRef finds the nodes code names: $('Name'), $("Name"), $node["Name"],
// $node.Name, $items("Name").
var nodeRef = regexp.MustCompile(`\$\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\)|\$node\[\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]|\$node\.([A-Za-z_$][\w$]*)|\$items\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")`)

// codeSrc is JavaScript (code, or an expression) and where it is.
type codeSrc struct {
	src string
	at  *importer.JV
}

// referencedNodes are the items of the nodes srcs name, as an object by
// name (nil when none), and for those named with .item, the index of each
// input item's paired item in their items (n8n's pairedItem, followed
// back through the nodes between): a problem when the flow cannot follow
// it, never an item by position.
func (n *n8n) referencedNodes(node *n8nNode, in n8nItems, srcs []codeSrc) (nodes, pairs importer.Expr, ok bool) {
	seen := map[string]bool{}
	var ms, ps []importer.Member
	for _, c := range srcs {
		for _, m := range nodeRef.FindAllStringSubmatch(c.src, -1) {
			name := refName(m)
			if seen[name] {
				continue
			}
			seen[name] = true
			other := n.byName[name]
			if other == nil || !other.conv || len(other.items) == 0 {
				n.Problem(node.where, c.at, "Unknown node",
					fmt.Sprintf("the code names node %q, which is not a node that runs before this one.", name))
				return nil, nil, false
			}
			items, ok := outputOf(&in, name)
			if !ok {
				items = other.items[0]
			}
			ms = append(ms, importer.Member{Name: name, Value: items.e})
		}
		if strings.Contains(c.src, "$(") && len(ms) < strings.Count(c.src, "$(") {
			for _, m := range regexp.MustCompile(`\$\(\s*[^'"\s]`).FindAllString(c.src, 1) {
				n.Problem(node.where, c.at, "Unsupported node reference",
					fmt.Sprintf("%s…: the code names a node with something other than a string literal, which flowctl import cannot follow.", m))
				return nil, nil, false
			}
		}
	}
	paired := map[string]bool{}
	for _, c := range srcs {
		for _, m := range itemRef.FindAllStringSubmatch(c.src, -1) {
			name := refName(m)
			if paired[name] {
				continue
			}
			paired[name] = true
			_, idx, lost := pairedItemAt(&in, name, importer.Code("i"))
			if idx == nil {
				why := fmt.Sprintf("%q is not before this node on the way its items come", name)
				switch {
				case lost != nil && lost.gap:
					why = fmt.Sprintf("node %q (%s) on the way is not converted", lost.name, lost.typ)
				case lost != nil:
					why = fmt.Sprintf("node %q (%s) on the way makes its items in a way the flow does not pair with its input's", lost.name, lost.typ)
				}
				n.Problem(node.where, c.at, "Paired item not followed",
					fmt.Sprintf("$('%s').item is the item of %q this item descends from (n8n's paired item); the flow cannot follow it back there: %s. Use .first(), .last() or .all()[N].", name, name, why))
				return nil, nil, false
			}
			ps = append(ps, importer.Member{Name: name, Value: importer.Join("[for i, _ in ", in.e, " : ", idx, "]")})
		}
	}
	if len(ms) > 0 {
		nodes = importer.Object(ms)
	}
	if len(ps) > 0 {
		pairs = importer.Object(ps)
	}
	return nodes, pairs, true
}

// refName is the node name a match of nodeRef or itemRef holds.
func refName(m []string) string {
	name := ""
	for _, g := range m[1:] {
		if g != "" {
			name = g
		}
	}
	return strings.NewReplacer(`\'`, `'`, `\"`, `"`, `\\`, `\`).Replace(name)
}

// itemRef finds $('Name').item (not .itemMatching) in code.
var itemRef = regexp.MustCompile(`\$\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\)\s*\.\s*item\b`)

// flush writes the step that evaluates the node's JavaScript expressions,
// before the node's own step.
func (s *n8nScope) flush() {
	if len(s.js.members) == 0 {
		return
	}
	n := s.n
	var srcs []codeSrc
	for i, src := range s.js.src {
		srcs = append(srcs, codeSrc{src, s.js.at[i]})
	}
	nodes, pairs, ok := n.referencedNodes(s.node, s.input, srcs)
	if !ok {
		return
	}
	b, body := n.codeStep(s.js.step, "expressions", s.input, s.perItem, nodes, pairs)
	body.SetAttributeRaw("expressions", importer.Clone(importer.Object(s.js.members)))
	if z := s.zoneInput(srcs); z != nil { // n8n_time.go
		body.SetAttributeRaw("zone", importer.Clone(z))
	}
	n.Step(n.nodeComment(s.node)+": its JavaScript expressions, evaluated by goja as n8n evaluates them", b)
}

// codeStep starts a step of the n8n_code block over the items of in (for
// each of them when each), with the items of the nodes it names. It is
// not cached: code may read the time or random numbers, as n8n runs it
// every time.
func (n *n8n) codeStep(name, mode string, in n8nItems, each bool, nodes, pairs importer.Expr) (*hclwrite.Block, *hclwrite.Body) {
	n.code = true
	return n.adapterStep(name, "n8n_code", mode, in, each, nodes, pairs)
}

// adapterStep is a step of an adapter block (n8n_code, n8n_python) over
// the items in: once, or for each item (each), with the items of the nodes
// the code names and their pairs.
func (n *n8n) adapterStep(name, block, mode string, in n8nItems, each bool, nodes, pairs importer.Expr) (*hclwrite.Block, *hclwrite.Body) {
	b, body := importer.NewStep(name, block)
	if each {
		body.SetAttributeRaw("for_each", importer.Clone(in.e))
	}
	body.SetAttributeValue("mode", cty.StringVal(mode))
	body.SetAttributeRaw("items", importer.Clone(in.e))
	if each {
		body.SetAttributeRaw("index", importer.Clone(importer.Code("each.key")))
	}
	if nodes != nil {
		body.SetAttributeRaw("nodes", importer.Clone(nodes))
	}
	if pairs != nil {
		body.SetAttributeRaw("pairs", importer.Clone(pairs))
	}
	if n.workflow != "" {
		body.SetAttributeRaw("workflow", importer.Clone(importer.Str(n.workflow)))
	}
	body.SetAttributeValue("cache", cty.False)
	n.dependsOn(body, in)
	return b, body
}
