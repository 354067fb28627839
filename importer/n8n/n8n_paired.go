package n8n

import (
	"fmt"
	"regexp"

	"github.com/dop251/goja/ast"
	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// How the items of the nodes flowctl import converts pair with their input
// items, where n8n's node code says so (pairedItem in its execute), so
// that $('Node').item follows them.

// perItemListNode runs a list node that makes items from each input item
// on its own (Split Out: every element of a field, n8n's pairedItem {item:
// i}) once for each input item: its items are those of every run, each
// paired with the item it was made from.
func (n *n8n) perItemListNode(node *n8nNode, in n8nItems, mode string, params importer.Expr, what string) []n8nItems {
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeValue("mode", cty.StringVal(mode))
	body.SetAttributeRaw("items", importer.Clone(importer.Code("[each.value]")))
	body.SetAttributeRaw("params", importer.Clone(params))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": "+what+", for each item", b)
	return []n8nItems{pairedWith(importer.Call("flatten", importer.Join(importer.Ref("step", node.step), "[*].items")), in, eachPaired(node.step))}
}

// eachPaired is, for the items of a step run for each input item, the
// index of the input item each comes from.
func eachPaired(step string) importer.Expr {
	return importer.Join("flatten([for k, r in ", importer.Ref("step", step), " : [for e in r.items : k]])")
}

// envRef translates $env.NAME and $env["NAME"] where the scope allows it
// (env): n8n's value of the environment variable NAME, as n8n gives it
// when N8N_BLOCK_ENV_ACCESS_IN_NODE is false (n8n 2 denies it by default);
// a secret read from that variable, which must be set (where n8n would
// give undefined, the run stops before it starts).
func (s *n8nScope) envRef(n ast.Expression) (importer.Expr, bool) {
	if !s.env {
		return nil, false
	}
	var name string
	var left ast.Expression
	switch m := n.(type) {
	case *ast.DotExpression:
		name, left = string(m.Identifier.Name), m.Left
	case *ast.BracketExpression:
		lit, ok := m.Member.(*ast.StringLiteral)
		if !ok {
			return nil, false
		}
		name, left = lit.Value.String(), m.Left
	default:
		return nil, false
	}
	id, ok := left.(*ast.Identifier)
	if !ok || id.Name != "$env" || !envName.MatchString(name) {
		return nil, false
	}
	sec := s.n.EnvSecret(name, fmt.Sprintf("the environment variable %s, which n8n node %q reads ($env.%s)", name, s.node.name, name))
	return importer.Ref("secret", sec), true
}

// envName is the name of an environment variable a secret can read.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pairedThroughAll follows the pairs of items that pair with all the items
// before them (cur's prev) back to the node named: n8n follows each and
// takes the one item they lead to; when they lead to several (or none)
// its execution fails, and so does the flow's run (an index into an empty
// list).
func pairedThroughAll(cur *n8nItems, name string, idx importer.Expr) (n8nItems, importer.Expr, *n8nNode) {
	depth := 1
	for p := cur.prev; p != nil; p = p.prev {
		if p.pairsAll {
			depth++
		}
	}
	j := fmt.Sprintf("all%d", depth) // each nested for has a name of its own
	items, sub, lost := pairedItemAt(cur.prev, name, importer.Code(j))
	if sub == nil {
		return n8nItems{}, nil, lost
	}
	all := importer.Join("distinct([for ", j, " in range(length(", cur.prev.e, ")) : ", sub, "])")
	return items, importer.Join("[for d in [", all, "] : d[0] if length(d) == 1][0]"), nil
}

// aggregatePairs are the pairs of Aggregate's one item: all the input
// items (n8n's pairedItem), unless fields to include or exclude leave
// some out (those whose fields are all left out), which the flow does
// not track.
func aggregatePairs(node *n8nNode, in n8nItems, out []n8nItems) []n8nItems {
	p := node.params
	set := func(name string) bool {
		v := p.Get(name)
		return v != nil && !(v.Kind == 's' && v.Str == "") && !(v.Kind == 'a' && len(v.Arr) == 0)
	}
	if p.Text("aggregate") == "aggregateAllItemData" && (set("fieldsToInclude") || set("fieldsToExclude")) {
		return out
	}
	for i := range out {
		prev := in
		out[i].prev, out[i].pairsAll = &prev, true
	}
	return out
}

// mergePairs are the pairs of a Merge's items with the items of its
// inputs. n8n gives every input item the pair {item: i, input: k} before
// the node runs; Append passes the items on with theirs, Combine by
// Position gives item i the pairs of item i of every input.
type mergePairs struct {
	node     *n8nNode
	ins      []n8nItems // the items of each input
	appended bool       // Append; else Combine by Position (without unpaired items)
	// edges are the connections the items of ins come from, when they
	// all come to one input (fanIn); else ins are those of each input.
	edges []n8nEdge
}

// mergePaired sets the pairs of a Merge's items out.
func (n *n8n) mergePaired(node *n8nNode, out n8nItems, appended bool) n8nItems {
	m := &mergePairs{node: node, appended: appended}
	for i := range max(int(node.params.Number(2, "numberInputs")), len(node.ins)) {
		in, ok := n.inputItems(node, i)
		if !ok {
			return out
		}
		m.ins = append(m.ins, in)
	}
	prev := m.ins[0]
	out.prev, out.merged = &prev, m
	return out
}

// follow is pairedItemAt through the Merge's items (idx is an index into
// them): n8n follows the pair through each input the node named is
// before, and takes the one item they lead to. An appended item comes
// from one input: one whose path does not lead to the node stops the run
// (n8n's execution fails on it too).
func (m *mergePairs) follow(name string, idx importer.Expr) (n8nItems, importer.Expr, *n8nNode) {
	var found *n8nItems
	var conds, subs []importer.Expr
	var start importer.Expr = importer.Code("0")
	for k := range m.ins {
		in := &m.ins[k]
		at, cond := idx, importer.Expr(nil)
		if m.appended {
			at = importer.Join("(", idx, ") - (", start, ")")
			cond = importer.Join("(", idx, ") >= ", start, " && (", idx, ") < ", start, " + length(", in.e, ")")
			start = importer.Join(start, " + length(", in.e, ")")
		}
		if m.edges != nil && !upTo(m.edges[k:k+1], name) || m.edges == nil && !before(m.node, k, name) {
			continue
		}
		items, sub, lost := pairedItemAt(in, name, at)
		if sub == nil {
			if lost == nil {
				lost = m.node
			}
			return n8nItems{}, nil, lost
		}
		if found != nil && string(found.e.Bytes()) != string(items.e.Bytes()) {
			return n8nItems{}, nil, m.node // another output of the node on each way
		}
		found = &items
		conds, subs = append(conds, cond), append(subs, sub)
	}
	if found == nil {
		return n8nItems{}, nil, nil
	}
	if m.appended {
		// An index into no list: the item comes from an input the node
		// named is not before.
		e := importer.Join("[for d in [", idx, "] : d if d < 0][0]")
		for i := len(subs) - 1; i >= 0; i-- {
			e = importer.Join("(", conds[i], " ? ", subs[i], " : ", e, ")")
		}
		return *found, e, nil
	}
	if len(subs) == 1 {
		return *found, subs[0], nil
	}
	return *found, importer.Join("[for d in [distinct(", importer.Tuple(subs), ")] : d[0] if length(d) == 1][0]"), nil
}

// before reports whether the node named is before input k of node.
func before(node *n8nNode, k int, name string) bool {
	if k >= len(node.ins) {
		return false
	}
	return upTo(node.ins[k], name)
}

// upTo reports whether the node named is one of the nodes the connections
// come from or before them.
func upTo(edges []n8nEdge, name string) bool {
	seen := map[*n8nNode]bool{}
	var up func(n *n8nNode) bool
	up = func(n *n8nNode) bool {
		if n.name == name {
			return true
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		for _, in := range n.ins {
			for _, e := range in {
				if up(e.node) {
					return true
				}
			}
		}
		return false
	}
	for _, e := range edges {
		if up(e.node) {
			return true
		}
	}
	return false
}
