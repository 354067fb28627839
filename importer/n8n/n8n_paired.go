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
func (n *n8n) perItemListNode(node *n8nNode, in n8nItems, mode string, what string) []n8nItems {
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeValue("mode", cty.StringVal(mode))
	body.SetAttributeRaw("items", importer.Clone(importer.Code("[each.value]")))
	body.SetAttributeRaw("params", importer.Clone(importer.JsonLiteral(node.params)))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": "+what+", for each item", b)
	return []n8nItems{pairedWith(importer.Call("flatten", importer.Join(importer.Ref("step", node.step), "[*].items")), in, eachPaired(node.step))}
}

// eachPaired is, for the items of a step run for each input item, the
// index of the input item each comes from.
func eachPaired(step string) importer.Expr {
	return importer.Join("flatten([for k, r in ", importer.Ref("step", step), " : [for e in r.items : k]])")
}

// inPairs is the pairedItem n8n's items in carry, as the n8n_code block
// takes it (its input inpairs): for each item the index of the item it
// comes from in the items before; -1 where the flow does not know it;
// nil (the input's default, null) for a trigger's items, whose pairs
// lead to n8n's one start item: a Code node returning them gets n8n's
// default pairs, the same.
func inPairs(in n8nItems) importer.Expr {
	switch {
	case in.unpaired:
		return importer.Join("[for x in ", in.e, " : -1]")
	case in.paired != nil:
		return in.paired
	case in.prev != nil:
		return importer.Join("range(length(", in.e, "))")
	}
	return nil
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
