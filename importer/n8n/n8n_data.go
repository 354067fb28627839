package n8n

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// duplicate reports (with a warning) a node that is a copy of one read
// before it: n8n keys its nodes by name, the last of a name winning, so a
// copy changes nothing.
func (n *n8n) duplicate(node *n8nNode) bool {
	first := n.byName[node.name]
	if first == nil || !sameNode(first.j, node.j) {
		return false
	}
	n.Warn(node.where, node.j, "Duplicate node", fmt.Sprintf("the workflow holds node %q twice, the same but for its id and position; n8n runs one, as does the flow.", node.name))
	return true
}

// sameNode reports whether two nodes' JSON is the same but for their id
// and position (a node pasted twice into a workflow's JSON).
func sameNode(a, b *importer.JV) bool {
	return sameJSON(a, b, map[string]bool{"id": true, "position": true})
}

// sameJSON compares two JSON values (objects by their keys, in any
// order), leaving out skip's keys at the top.
func sameJSON(a, b *importer.JV, skip map[string]bool) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case 's':
		return a.Str == b.Str
	case 'n':
		return a.Num == b.Num
	case 'b':
		return a.Bool == b.Bool
	case 'a':
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !sameJSON(a.Arr[i], b.Arr[i], nil) {
				return false
			}
		}
		return true
	case 'o':
		count := func(v *importer.JV) int {
			c := 0
			for _, k := range v.Keys {
				if !skip[k] {
					c++
				}
			}
			return c
		}
		if count(a) != count(b) {
			return false
		}
		for _, k := range a.Keys {
			if skip[k] {
				continue
			}
			if bv := b.Obj[k]; bv == nil || !sameJSON(a.Obj[k], bv, nil) {
				return false
			}
		}
		return true
	}
	return true
}

// legacyUnsupported are the names of the legacy Function nodes' sandbox
// that the n8n_code block does not give (the workflow's static data, the
// node's parameters, n8n's helpers, binary data).
var legacyUnsupported = regexp.MustCompile(`\b(getWorkflowStaticData|getNodeParameter|helpers|getBinaryData|setBinaryData|getBinaryDataAsync|setBinaryDataAsync|binary)\b`)

// functionNode is the legacy Function node: its code runs once over all
// the items (n8n_code's mode "function"): items (a copy of each, with its
// index), $item(i) and the names of item 0 ($json, $node, $items…); what
// it returns becomes items as n8n's normalizeItems reads it.
func (n *n8n) functionNode(node *n8nNode, in n8nItems) []n8nItems {
	return n.legacyCode(node, in, false)
}

// functionItemNode is the legacy Function Item node: its code runs for
// each item (for_each), item a copy of the item's json, and returns the
// item's new json.
func (n *n8n) functionItemNode(node *n8nNode, in n8nItems) []n8nItems {
	return n.legacyCode(node, in, true)
}

func (n *n8n) legacyCode(node *n8nNode, in n8nItems, each bool) []n8nItems {
	p := node.params
	at := p.Get("functionCode")
	if at == nil || at.Kind != 's' {
		n.Problem(node.where, p, "Unsupported code", "the node has no functionCode: n8n runs its template code, which flowctl import does not write.")
		return nil
	}
	src := at.Str
	code := jsCodeText(src) // what the code names, not its strings' words
	bad := unsupportedN8NName.FindString(code)
	if bad == "" {
		bad = legacyUnsupported.FindString(code)
	}
	if bad == "" && strings.Contains(code, "require(") {
		bad = "require"
	}
	if bad != "" {
		n.Problem(node.where, at, "Unsupported code",
			fmt.Sprintf("the code uses %s, which goja's n8n adapter does not have (it has items, item, $item(i), $input, $json, $('Node'), $node, $items, $workflow.name and JavaScript's built-ins).", bad))
		return nil
	}
	nodes, pairs, ok := n.referencedNodes(node, in, []codeSrc{{src, at}})
	if !ok || !n.checkCode(node, at, src, codeWrap) {
		return nil
	}
	mode, what := "function", "JavaScript, once for all items"
	if each {
		mode, what = "functionItem", "JavaScript, for each item"
	}
	b, body := n.codeStep(node.step, mode, in, each, nodes, pairs)
	n.retry(node, body)
	body.SetAttributeRaw("code", importer.Clone(importer.Template([]importer.TPart{{Lit: src}}, true)))
	n.Step(n.nodeComment(node)+": "+what, b)
	if each {
		// One item for each item, paired with it.
		return []n8nItems{pairedWith(importer.Call("flatten", importer.Join(importer.Ref("step", node.step), "[*].items")), in, nil)}
	}
	return []n8nItems{{e: importer.Ref("step", node.step, "items")}}
}

// removeDuplicatesNode is Remove Duplicates v1 and v2's Remove Items
// Repeated Within Current Input (n8n_code's mode "removeDuplicates"); the
// items seen in earlier runs (n8n's deduplication store) are not
// converted.
func (n *n8n) removeDuplicatesNode(node *n8nNode, in n8nItems) []n8nItems {
	if op := node.params.Text("operation"); op != "" && op != "removeDuplicateInputItems" {
		n.Problem(node.where, node.params.Get("operation"), "Unsupported operation",
			fmt.Sprintf("Remove Duplicates' %q keeps what earlier runs saw in n8n's database; flowctl import converts removing the items repeated within the input.", op))
		return nil
	}
	return n.versionedList(node, in, "removeDuplicates", "the first of each set of equal items")
}

// renameKeysNode is Rename Keys: each item's keys renamed (n8n_code's
// mode "renameKeys"), item i from item i.
func (n *n8n) renameKeysNode(node *n8nNode, in n8nItems) []n8nItems {
	out := n.versionedList(node, in, "renameKeys", "each item with its keys renamed")
	if out == nil {
		return nil
	}
	return []n8nItems{pairedWith(out[0].e, in, nil)}
}

// summarizeNode is Summarize v1 and v1.1 (n8n_code's mode "summarize"):
// the fields' aggregations, for all items or for each group the split
// fields make.
func (n *n8n) summarizeNode(node *n8nNode, in n8nItems) []n8nItems {
	return summarizePairs(node, in, n.versionedList(node, in, "summarize", "the fields summarized"))
}

// versionedList is listNode with the node's version in its parameters
// (__version), for rules that changed between versions.
func (n *n8n) versionedList(node *n8nNode, in n8nItems, mode, what string) []n8nItems {
	if node.params.Kind != 'o' {
		n.Problem(node.where, node.params, "Invalid value", "the node's parameters are not an object; n8n fails on it too.")
		return nil
	}
	if n.expressionParams(node) {
		return nil
	}
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeValue("mode", cty.StringVal(mode))
	body.SetAttributeRaw("items", importer.Clone(in.e))
	body.SetAttributeRaw("params", importer.Clone(versionedParams(node)))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": "+what, b)
	return []n8nItems{{e: importer.Ref("step", node.step, "items")}}
}

// itemListsNode is Item Lists, the node before Split Out, Aggregate, Sort,
// Remove Duplicates and Summarize: its operations that are those nodes'
// (v3's Split Out Items, Remove Duplicates and Sort; Split Out Items of v1
// and v2 too, with the checks they make).
func (n *n8n) itemListsNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	op := p.Text("operation")
	if op == "" {
		op = "splitOutItems"
	}
	if node.version < 3 && op != "splitOutItems" {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version", fmt.Sprintf("Item Lists v3 is converted (and Split Out Items of v1 and v2); this node's %q is v%s.", op, strconv.FormatFloat(node.version, 'f', -1, 64)))
		return nil
	}
	switch op {
	case "splitOutItems":
		field := p.Text("fieldToSplitOut")
		if node.version < 3 && (p.Text("include") == "selectedOtherFields" || strings.HasPrefix(field, "$json.") || (node.version < 2 && strings.Contains(field, ","))) {
			n.Problem(node.where, p, "Unsupported option", "Item Lists before v3 names the fields to include, and the field to split out, otherwise than v3; flowctl import converts its split out of fields without $json., commas (v1) or Selected Other Fields.")
			return nil
		}
		// Each item from the input item it was split out of (n8n's
		// pairedItem {item: i}, in every version).
		if node.params.Kind != 'o' {
			n.Problem(node.where, node.params, "Invalid value", "the node's parameters are not an object; n8n fails on it too.")
			return nil
		}
		if n.expressionParams(node) {
			return nil
		}
		return n.perItemListNode(node, in, "itemListsSplitOut", versionedParams(node), "an item for each element of "+strconv.Quote(field))
	case "removeDuplicates":
		return n.versionedList(node, in, "removeDuplicates", "the first of each set of equal items")
	case "sort":
		if p.Text("type") == "code" && !n.checkCode(node, p.Get("code"), p.Text("code"), sortWrap) {
			return nil
		}
		return n.versionedList(node, in, "sort", "the items in order")
	}
	n.Problem(node.where, p.Get("operation"), "Unsupported operation", fmt.Sprintf("Item Lists' %q is not converted: Split Out Items, Remove Duplicates and Sort are.", op))
	return nil
}

// binaryNodes are the nodes that read or make n8n's binary data (files
// an item carries beside its json) that the flow does not convert
// (n8n_binary.go converts the others), and the nodes that use files on
// the n8n host; each is refused with why.
var binaryNodes = map[string]string{
	"moveBinaryData":  "Convert to/from Binary Data moves values between the item's json and its binary data",
	"spreadsheetFile": "Spreadsheet File reads or writes a spreadsheet as binary data",
	"compression":     "Compression zips or unzips binary data",
}

// hostFileNodes read or write files on the n8n host's disk.
var hostFileNodes = map[string]string{
	"readWriteFile":   "Read/Write Files from Disk",
	"readBinaryFile":  "Read Binary File",
	"readBinaryFiles": "Read Binary Files",
	"writeBinaryFile": "Write Binary File",
}

// registerFileNodes adds the nodes of binaryNodes and hostFileNodes to
// n8nNodeTypes, each refused by fileNode.
func registerFileNodes() {
	for typ := range binaryNodes {
		n8nNodeTypes[typ] = (*n8n).fileNode
	}
	for typ := range hostFileNodes {
		n8nNodeTypes[typ] = (*n8n).fileNode
	}
}

// fileNode refuses a node of binaryNodes or hostFileNodes, saying why.
func (n *n8n) fileNode(node *n8nNode, _ n8nItems) []n8nItems {
	if what, ok := hostFileNodes[node.typ]; ok {
		n.Problem(node.where, node.j.Get("type"), "Files on the n8n host",
			what+" reads or writes files on the disk of the n8n host, as binary data; a flow has no such host: it reads text and documents relative to itself (the file and document blocks) and its items carry json only.")
		return nil
	}
	n.Problem(node.where, node.j.Get("type"), "Binary data",
		binaryNodes[node.typ]+"; the flow carries files only from an HTTP Request's download or Convert to File to Extract from File or an HTTP Request's binary body, and reads documents with the document block.")
	return nil
}

// compareDatasetsNode is Compare Datasets v2.2 and v2.3 (n8n_code's mode
// "compareDatasets"): its four outputs are the items in A only, the same
// in both, different, and in B only. Fuzzy comparison is not converted.
func (n *n8n) compareDatasetsNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	if node.version < 2.2 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version", "Compare Datasets v2.2 and v2.3 are converted; this node is an older version.")
		return nil
	}
	if p.Boolean(false, "fuzzyCompare") || p.Boolean(false, "options", "fuzzyCompare") {
		n.Problem(node.where, p.Get("fuzzyCompare"), "Unsupported option", "Compare Datasets' fuzzy comparison is not converted.")
		return nil
	}
	if p.Kind != 'o' {
		n.Problem(node.where, p, "Invalid value", "the node's parameters are not an object; n8n fails on it too.")
		return nil
	}
	if p.Text("resolve") == "mix" && strings.TrimSpace(p.Text("exceptWhenMix")) != "" {
		n.Problem(node.where, p.Get("exceptWhenMix"), "Unsupported option",
			"a Mix that takes fields from the other version sets them on n8n's input items in place, which the other nodes taking the same items then see; flowctl import does not convert it.")
		return nil
	}
	if n.expressionParams(node) {
		return nil
	}
	lists, deps, _, ok := n.twoInputs(node)
	if !ok {
		return nil
	}
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeValue("mode", cty.StringVal("compareDatasets"))
	params := *p
	params.Keys = append(slices.Clip(params.Keys), "__version", "inputs")
	params.Obj = maps.Clone(params.Obj)
	params.Obj["__version"] = &importer.JV{Kind: 'n', Num: strconv.FormatFloat(node.version, 'f', -1, 64)}
	members := []importer.Member{}
	for _, k := range params.Keys[:len(params.Keys)-1] {
		members = append(members, importer.Member{Name: k, Value: importer.JsonLiteral(params.Obj[k])})
	}
	members = append(members, importer.Member{Name: "inputs", Value: importer.Tuple(lists)})
	body.SetAttributeRaw("params", importer.Clone(importer.Object(members)))
	n.dependsOn(body, n8nItems{deps: deps})
	n.Step(n.nodeComment(node)+": the items in A only, the same, different, and in B only", b)
	var outs []n8nItems
	for i := range 4 {
		outs = append(outs, n8nItems{e: importer.Index(importer.Ref("step", node.step, "items"), i)})
	}
	return outs
}

// twoInputs are the items of a node's two inputs (a Merge's, a Compare
// Datasets'): their lists, the steps they depend on, and the items.
func (n *n8n) twoInputs(node *n8nNode) (lists []importer.Expr, deps []string, ins []n8nItems, ok bool) {
	for i := range 2 {
		in, ok := n.inputItems(node, i)
		if !ok {
			return nil, nil, nil, false
		}
		lists = append(lists, in.e)
		deps = append(deps, in.deps...)
		ins = append(ins, in)
	}
	return lists, deps, ins, true
}
