package n8n

import (
	"fmt"
	"strconv"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// switchNode is Switch v3 in rules mode: a value step whose attributes
// output_0, output_1… are the items each rule's conditions hold for (the
// first rule that holds, or every one with All Matching Outputs), and
// fallback the items no rule holds for when the fallback output is an
// extra one (a fallback to an output adds them to it; none drops them),
// as n8n's Switch routes each item.
func (n *n8n) switchNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if node.version < 3 {
		return n.switchV1(node, in)
	}
	if m := p.Text("mode"); m != "" && m != "rules" {
		n.Problem(node.where, p.Get("mode"), "Unsupported mode", fmt.Sprintf("Switch's %s mode is not converted; its rules mode is.", m))
		return nil
	}
	s := n.scope(node, in, true)
	rules := p.Items("rules", "values")
	var conds []importer.Expr
	for _, r := range rules {
		c, ok := n.conditionsOf(node, s.forItem(), r.Get("conditions"))
		if !ok {
			return nil
		}
		conds = append(conds, c)
	}
	all := p.Boolean(false, "options", "allMatchingOutputs")
	fallbackTo := -1 // the output that takes the items no rule holds for
	extra := false
	switch fb := p.Get("options", "fallbackOutput"); {
	case fb == nil || fb.Kind == 's' && fb.Str == "none":
	case fb.Kind == 's' && fb.Str == "extra":
		extra = true
	case fb.Kind == 'n':
		k, err := strconv.Atoi(fb.Num)
		if err != nil || k < 0 || k >= len(rules) {
			n.Problem(node.where, fb, "Unsupported option", fmt.Sprintf("the fallback output %s is none of the rules' outputs.", fb.Num))
			return nil
		}
		fallbackTo = k
	default:
		n.Problem(node.where, fb, "Unsupported option", "the fallback output is none, extra or an output's index.")
		return nil
	}
	var parens []importer.Expr
	for _, c := range conds {
		parens = append(parens, importer.Paren(c))
	}
	none := importer.Code("true")
	if len(conds) > 0 {
		none = importer.Join("!(", joinExprs(parens, " || "), ")")
	}
	test := func(k int) importer.Expr {
		t := conds[k]
		if !all && k > 0 {
			t = parens[k]
			for _, earlier := range parens[:k] {
				t = importer.Join(t, " && !", earlier)
			}
		}
		if k == fallbackTo {
			t = importer.Join(importer.Paren(t), " || ", none)
		}
		return t
	}
	var tests []importer.Expr
	var names []string
	for k := range conds {
		tests = append(tests, test(k))
		names = append(names, fmt.Sprintf("output_%d", k))
	}
	if extra {
		tests = append(tests, none)
		names = append(names, "fallback")
	}
	var ms []importer.Member
	for k, t := range tests {
		ms = append(ms, importer.Member{Name: names[k], Value: importer.Join("[for i, item in ", in.e, " : item if ", t, "]")})
	}
	b, body := importer.NewStep(node.step, "value")
	body.SetAttributeRaw("value", importer.Clone(importer.Object(ms)))
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": its items routed by its rules (output_N is output N)", b)
	var out []n8nItems
	for k, t := range tests {
		// Each item routed pairs with the input item it is.
		out = append(out, pairedWith(importer.Ref("step", node.step, "value", names[k]), in, importer.Join("[for i, item in ", in.e, " : i if ", t, "]")))
	}
	return out
}

func joinExprs(es []importer.Expr, sep string) importer.Expr {
	var out importer.Expr
	for i, e := range es {
		if i > 0 {
			out = append(out, importer.Code(sep)...)
		}
		out = append(out, e...)
	}
	return out
}

// stopAndErrorNode is Stop and Error: a step of the n8n_code block that
// fails with the node's message (or its error object, as JSON) when items
// come to it, as n8n fails the workflow; it does not run when none do.
func (n *n8n) stopAndErrorNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, false)
	var message importer.Expr
	if p.Text("errorType") == "errorObject" {
		message = importer.Call("jsonencode", s.value(p.Get("errorObject"), "errorObject"))
	} else {
		message = s.textValue(p.Get("errorMessage"), "errorMessage")
	}
	s.flush()
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeRaw("when", importer.Clone(importer.Join("length(", in.e, ") > 0")))
	body.SetAttributeValue("mode", cty.StringVal("stopAndError"))
	body.SetAttributeRaw("params", importer.Clone(importer.Object([]importer.Member{{Name: "message", Value: message}})))
	body.SetAttributeValue("cache", cty.False)
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": fails with its message", b)
	return []n8nItems{{e: importer.Code("[]")}}
}
