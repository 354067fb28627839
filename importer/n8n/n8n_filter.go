package n8n

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// IF v2 and Filter v2: a condition for each item, as n8n's filter
// parameter evaluates it (n8n-workflow's executeFilter): string, number,
// boolean, array and object operators, joined by and or or. The items
// pass through a for expression: IF's two outputs are the items for which
// the conditions hold and the others.

func (n *n8n) ifNode(node *n8nNode, in n8nItems) []n8nItems {
	if node.version < 2 {
		return n.ifV1(node, in)
	}
	return n.conditionNode(node, in, "IF", func(cond importer.Expr) (importer.Expr, string) {
		return importer.Object([]importer.Member{
			{Name: "when_true", Value: importer.Join("[for i, item in ", in.e, " : item if ", cond, "]")},
			{Name: "when_false", Value: importer.Join("[for i, item in ", in.e, " : item if !", importer.Paren(cond), "]")},
		}), "its items split by the conditions (when_true is output true, when_false output false)"
	}, "when_true", "when_false")
}

func (n *n8n) filterNode(node *n8nNode, in n8nItems) []n8nItems {
	return n.conditionNode(node, in, "Filter", func(cond importer.Expr) (importer.Expr, string) {
		return importer.Join("[for i, item in ", in.e, " : item if ", cond, "]"), "the items for which the conditions hold"
	})
}

// conditionNode writes the value step of IF or Filter: value makes its
// value from the condition over item and i; outputs name its outputs'
// attributes (none: the value is the one output).
func (n *n8n) conditionNode(node *n8nNode, in n8nItems, kind string, value func(cond importer.Expr) (importer.Expr, string), outputs ...string) []n8nItems {
	if n.tooOld(node, kind, 2) {
		return nil
	}
	s := n.scope(node, in, true)
	cond, ok := n.conditions(node, s.forItem())
	if !ok {
		return nil
	}
	v, what := value(cond)
	b, body := importer.NewStep(node.step, "value")
	body.SetAttributeRaw("value", importer.Clone(v))
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": "+what, b)
	// Each item kept pairs with the input item it is.
	kept := importer.Join("[for i, item in ", in.e, " : i if ", cond, "]")
	if len(outputs) == 0 {
		return []n8nItems{pairedWith(importer.Ref("step", node.step, "value"), in, kept)}
	}
	var out []n8nItems
	for i, o := range outputs {
		if i == 1 {
			kept = importer.Join("[for i, item in ", in.e, " : i if !", importer.Paren(cond), "]")
		}
		out = append(out, pairedWith(importer.Ref("step", node.step, "value", o), in, kept))
	}
	return out
}

// conditions is the HCL of the node's conditions, over item and i.
func (n *n8n) conditions(node *n8nNode, s *n8nScope) (importer.Expr, bool) {
	return n.conditionsOf(node, s, node.params.Get("conditions"))
}

// conditionsOf is the HCL of a filter parameter c, over item and i.
func (n *n8n) conditionsOf(node *n8nNode, s *n8nScope, c *importer.JV) (importer.Expr, bool) {
	p := node.params
	caseSensitive := c.Boolean(true, "options", "caseSensitive")
	if p.Boolean(false, "options", "ignoreCase") {
		caseSensitive = false
	}
	op := " && "
	switch comb := c.Text("combinator"); comb {
	case "", "and":
	case "or":
		op = " || "
	default:
		n.Problem(node.where, c.Get("combinator"), "Unsupported combinator", fmt.Sprintf("%q is neither and nor or.", comb))
		return nil, false
	}
	list := c.Items("conditions")
	if len(list) == 0 {
		return importer.Code(strconv.FormatBool(op == " && ")), true
	}
	var out importer.Expr
	for i, cond := range list {
		e, ok := n.condition(node, s, cond, i, caseSensitive)
		if !ok {
			return nil, false
		}
		if i > 0 {
			out = append(out, importer.Code(op)...)
		}
		if len(list) > 1 {
			e = importer.Paren(e)
		}
		out = append(out, e...)
	}
	return out, true
}

// condition is one condition: left operator right.
func (n *n8n) condition(node *n8nNode, s *n8nScope, c *importer.JV, i int, caseSensitive bool) (importer.Expr, bool) {
	typ, op := c.Text("operator", "type"), c.Text("operator", "operation")
	left := s.value(c.Get("leftValue"), fmt.Sprintf("condition %d left", i))
	right := func() importer.Expr {
		return n.rightValue(s, c.Get("rightValue"), typ, fmt.Sprintf("condition %d right", i))
	}
	not := func(e importer.Expr) importer.Expr { return importer.Join("!", importer.Paren(e)) }
	switch op {
	case "exists":
		return importer.Join("try(", left, ", null) != null"), true
	case "notExists":
		return importer.Join("try(", left, ", null) == null"), true
	}
	switch typ {
	case "string":
		l, r := left, importer.Expr(nil)
		if op != "empty" && op != "notEmpty" {
			r = right()
		}
		if !caseSensitive {
			l = importer.Call("lower", l)
			if r != nil && op != "regex" && op != "notRegex" {
				r = importer.Call("lower", r)
			}
		}
		switch op {
		case "empty":
			return importer.Join("coalesce(try(", left, ", null), \"\") == \"\""), true
		case "notEmpty":
			return importer.Join("coalesce(try(", left, ", null), \"\") != \"\""), true
		case "equals":
			return importer.Join(l, " == ", r), true
		case "notEquals":
			return importer.Join(l, " != ", r), true
		case "contains":
			return importer.Call("strcontains", l, r), true
		case "notContains":
			return not(importer.Call("strcontains", l, r)), true
		case "startsWith":
			return importer.Call("startswith", l, r), true
		case "notStartsWith":
			return not(importer.Call("startswith", l, r)), true
		case "endsWith":
			return importer.Call("endswith", l, r), true
		case "notEndsWith":
			return not(importer.Call("endswith", l, r)), true
		case "regex", "notRegex":
			pat, ok := n.regexPattern(node, c.Get("rightValue"), r, caseSensitive)
			if !ok {
				return nil, false
			}
			e := importer.Call("can", importer.Call("regex", pat, l))
			if op == "notRegex" {
				e = not(e)
			}
			return e, true
		}
	case "number":
		ops := map[string]string{"equals": "==", "notEquals": "!=", "gt": ">", "lt": "<", "gte": ">=", "lte": "<="}
		if o, ok := ops[op]; ok {
			return importer.Join(importer.Paren(left), " "+o+" ", importer.Paren(right())), true
		}
		switch op {
		case "empty":
			return importer.Join("try(", left, ", null) == null"), true
		case "notEmpty":
			return importer.Join("try(", left, ", null) != null"), true
		}
	case "boolean":
		switch op {
		case "true":
			return importer.Join("tobool(", left, ") == true"), true
		case "false":
			return importer.Join("tobool(", left, ") == false"), true
		case "equals":
			return importer.Join("tobool(", left, ") == tobool(", right(), ")"), true
		case "notEquals":
			return importer.Join("tobool(", left, ") != tobool(", right(), ")"), true
		case "empty":
			return importer.Join("try(", left, ", null) == null"), true
		case "notEmpty":
			return importer.Join("try(", left, ", null) != null"), true
		}
	case "array":
		length := importer.Join("try(length(", left, "), 0)")
		ops := map[string]string{"lengthEquals": "==", "lengthNotEquals": "!=", "lengthGt": ">", "lengthLt": "<", "lengthGte": ">=", "lengthLte": "<="}
		if o, ok := ops[op]; ok {
			return importer.Join(length, " "+o+" ", importer.Paren(n.rightValue(s, c.Get("rightValue"), "number", fmt.Sprintf("condition %d right", i)))), true
		}
		switch op {
		case "contains":
			return importer.Call("contains", left, right()), true
		case "notContains":
			return not(importer.Call("contains", left, right())), true
		case "empty":
			return importer.Join(length, " == 0"), true
		case "notEmpty":
			return importer.Join(length, " != 0"), true
		}
	case "object":
		switch op {
		case "empty":
			return importer.Join("try(length(", left, "), 0) == 0"), true
		case "notEmpty":
			return importer.Join("try(length(", left, "), 0) != 0"), true
		}
	}
	n.Problem(node.where, c.Get("operator"), "Unsupported condition",
		fmt.Sprintf("the %s operator %q is not converted (string, number, boolean, array and object comparisons are; dates are not).", typ, op))
	return nil, false
}

// rightValue is a condition's right value, converted to the operator's
// type when it is a literal (n8n's loose validation reads "18" as 18).
func (n *n8n) rightValue(s *n8nScope, v *importer.JV, typ, path string) importer.Expr {
	if v != nil && v.Kind == 's' && !strings.HasPrefix(v.Str, "=") {
		switch typ {
		case "number":
			if f, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64); err == nil {
				return importer.Code(strconv.FormatFloat(f, 'f', -1, 64))
			}
		case "boolean":
			if b, err := strconv.ParseBool(strings.ToLower(v.Str)); err == nil {
				return importer.Code(strconv.FormatBool(b))
			}
		}
	}
	return s.value(v, path)
}

// regexPattern is the RE2 pattern of a JavaScript regular expression
// written as /pattern/flags or as a plain pattern.
func (n *n8n) regexPattern(node *n8nNode, v *importer.JV, r importer.Expr, caseSensitive bool) (importer.Expr, bool) {
	if v == nil || v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
		return r, true
	}
	pat := v.Str
	if m := regexp.MustCompile(`^/(.*?)/([gimusy]*)$`).FindStringSubmatch(pat); m != nil {
		pat = m[1]
		flags := ""
		for _, f := range m[2] {
			switch f {
			case 'i', 'm', 's':
				flags += string(f)
			}
		}
		if flags != "" {
			pat = "(?" + flags + ")" + pat
		}
	}
	if _, err := regexp.Compile(pat); err != nil {
		n.Problem(node.where, v, "Unsupported regular expression",
			fmt.Sprintf("the pattern is JavaScript that RE2 (HCL's regex) does not read: %v.", err))
		return nil, false
	}
	return importer.Str(pat), true
}
