package n8n

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// The older versions of n8n's core nodes, from n8n's code of each
// (n8n-nodes-base's nodes/Set/v1, nodes/If/V1, nodes/HttpRequest/V1..V3,
// nodes/Merge/v1, nodes/Switch/V1..V2). Where an old version means what
// the current one means, its parameters are read into the current shape
// and converted by the same code; where it differs, what it does is
// converted here.

// setV1 is Edit Fields (Set) v1 and v2 (n8n's SetV1): for each item its
// json (none with Keep Only Set) with the boolean values set, then the
// number values, then the string values, each by lodash's set (a.b sets
// b inside a) unless Dot Notation is off. A boolean is the value's
// JavaScript truth; a number is the value as it is, or in v2 a string
// that is a number read as one; a string is the value as it is.
func (n *n8n) setV1(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	dots := p.Boolean(true, "options", "dotNotation")
	var fields []setField
	for _, typ := range []string{"boolean", "number", "string"} {
		for k, f := range p.Items("values", typ) {
			name := f.Text("name")
			if f.Get("name") == nil {
				name = "propertyName"
			}
			raw := f.Get("value")
			var v importer.Expr
			switch {
			case raw == nil:
				v = importer.Code(map[string]string{"boolean": "false", "number": "0", "string": `""`}[typ])
			case raw.Kind == 's' && strings.HasPrefix(raw.Str, "="):
				// A field the item lacks: undefined, which JSON leaves out
				// and the flow makes null.
				v = s.looseValue(raw, fmt.Sprintf("%s %d", typ, k))
				switch {
				case typ == "boolean":
					v = jsTruth(v)
				case typ == "number" && node.version >= 2:
					v = jsNumberOfString(v)
				}
			case typ == "boolean":
				v = importer.Code(strconv.FormatBool(jsonTruth(raw)))
			case typ == "number" && node.version >= 2 && raw.Kind == 's':
				t := strings.TrimSpace(raw.Str)
				f, err := strconv.ParseFloat(t, 64)
				switch {
				case t == "":
					v = importer.Code("0")
				case err == nil && strings.Trim(t, "0123456789.eE+-") == "":
					v = importer.Code(strconv.FormatFloat(f, 'f', -1, 64))
				case jsOddNumber.MatchString(t):
					n.Problem(node.where, raw, "Invalid value", fmt.Sprintf("%q: n8n reads it as a number as JavaScript's Number does, which is not converted.", raw.Str))
					return nil
				default: // not a number: the string
					v = s.value(raw, "")
				}
			default:
				v = s.value(raw, "")
			}
			path := []string{name}
			if dots {
				if strings.ContainsAny(name, "[]") {
					n.Problem(node.where, f.Get("name"), "Unsupported field name", "a name with [index] is not converted; a.b sets b inside a.")
					return nil
				}
				path = strings.Split(name, ".")
			}
			// A later value of the same field replaces the earlier one.
			for i := len(fields) - 1; i >= 0; i-- {
				if strings.Join(fields[i].path, "\x00") == strings.Join(path, "\x00") {
					fields = append(fields[:i], fields[i+1:]...)
				}
			}
			fields = append(fields, setField{path, v})
		}
	}
	var base importer.Expr
	if !p.Boolean(false, "keepOnlySet") {
		base = s.item
	}
	return n.setStep(node, in, s, buildFields(fields, base))
}

// jsTruth is !!v: false for null, false, 0 and "" (an item's json holds
// no undefined or NaN), true for anything else.
func jsTruth(v importer.Expr) importer.Expr {
	return importer.Join("[for x in [", v, "] : !(x == null || x == false || x == 0 || x == \"\")][0]")
}

// jsonTruth is the JavaScript truth of a literal.
func jsonTruth(v *importer.JV) bool {
	switch v.Kind {
	case 'b':
		return v.Bool
	case 's':
		return v.Str != ""
	case 'n':
		f, err := strconv.ParseFloat(v.Num, 64)
		return err != nil || f != 0
	case 'z':
		return false
	}
	return true
}

// jsNumberOfString is Set v2's number: a string that Number() reads is
// that number ("" is 0). A string it reads otherwise than HCL's tonumber
// (blank, with spaces, hexadecimal, Infinity) fails the step.
func jsNumberOfString(v importer.Expr) importer.Expr {
	// Each case a for with if, which evaluates only the one that holds
	// (a conditional would make its two results one type).
	odd := importer.Join("try(regex(", importer.Str(jsOddNumber.String()), ", y), null)")
	return importer.Join("[for x in [", v, "] : concat([for y in [x] : 0 if y == \"\"], [for y in [x] : tonumber(\"not read as n8n reads it: ${y}\") if ", odd, " != null], [for y in [x] : try(tonumber(y), y) if y != \"\" && ", odd, " == null])[0]][0]")
}

// jsOddNumber finds the strings JavaScript's Number reads otherwise than
// Go's and HCL's number parsing: spaces around, hexadecimal, octal
// and binary, Infinity (and Go's Inf), NaN, underscores.
var jsOddNumber = regexp.MustCompile(`^\s|\s$|^[+-]?0[xXbBoO]|[iI]nf|[nN]a[nN]|_`)

// looseValue is a value as n8n's older nodes read it: a literal as it
// is, an expression's value as it is, a reference to a field the item
// lacks null (n8n's undefined, which the comparisons read alike).
func (s *n8nScope) looseValue(raw *importer.JV, path string) importer.Expr {
	v := s.value(raw, path)
	if raw == nil || raw.Kind != 's' || !strings.HasPrefix(raw.Str, "=") {
		return v
	}
	return s.missingNull(raw, v)
}

// missingNull is v, the value of expression raw, with a reference to a
// field the item lacks null (an item that is not there is an error).
func (s *n8nScope) missingNull(raw *importer.JV, v importer.Expr) importer.Expr {
	ref, ok := s.plainRef(raw)
	switch {
	case ok && ref.item != nil:
		return importer.Join("[for it in [", ref.item, "] : ", importer.Call("try", importer.Index(importer.Code("it"), ref.path...), importer.Code("null")), "][0]")
	case ok:
		return importer.Call("try", v, importer.Code("null"))
	}
	return v
}

// v1Defaults are the defaults of IF v1's and Switch v1's values and
// operation by data type.
var v1Defaults = map[string]struct{ value, op string }{
	"boolean": {"false", "equal"},
	"number":  {"0", "smaller"},
	"string":  {`""`, "equal"},
}

// v1Ops are the operations of IF v1 and Switch v1 and v2 by data type.
var v1Ops = map[string][]string{
	"boolean": {"equal", "notEqual"},
	"number":  {"smaller", "smallerEqual", "equal", "notEqual", "larger", "largerEqual", "isEmpty", "isNotEmpty"},
	"string": {"contains", "notContains", "endsWith", "notEndsWith", "equal", "notEqual", "regex", "notRegex",
		"startsWith", "notStartsWith", "isEmpty", "isNotEmpty"},
}

// v1Compare is one comparison of IF v1 or Switch v1 as the n8n_code
// block's mode takes it: operation, value1 (given) and value2.
func (n *n8n) v1Compare(node *n8nNode, s *n8nScope, typ string, c *importer.JV, path string, value1 importer.Expr) ([]importer.Member, bool) {
	def, ok := v1Defaults[typ]
	if !ok {
		n.Problem(node.where, c, "Unsupported condition",
			fmt.Sprintf("%s comparisons are not converted (boolean, number and string ones are): JavaScript's Date reads dates as n8n's engine does, which goja does not match.", typ))
		return nil, false
	}
	op := c.Text("operation")
	if c.Get("operation") == nil {
		op = def.op
	}
	if !slices.Contains(v1Ops[typ], op) {
		n.Problem(node.where, c.Get("operation"), "Unsupported condition", fmt.Sprintf("%q is none of the %s operations of this node.", op, typ))
		return nil, false
	}
	value2 := importer.Code(def.value)
	if v := c.Get("value2"); v != nil {
		value2 = s.looseValue(v, path+" value2")
	}
	return []importer.Member{{Name: "operation", Value: importer.Str(op)}, {Name: "value1", Value: value1}, {Name: "value2", Value: value2}}, true
}

// ifV1 is IF v1 (n8n's IfV1): for each item its boolean, date, number and
// string conditions in that order, all of which (or any of which, with
// combineOperation any) must hold for the item to go to output true;
// the n8n_code block compares as n8n's code does (JavaScript's ===, its
// truth, toString and RegExp).
func (n *n8n) ifV1(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	f := s.forItem()
	var conds []importer.Expr
	for _, typ := range []string{"boolean", "dateTime", "number", "string"} {
		for k, c := range p.Items("conditions", typ) {
			path := fmt.Sprintf("%s %d", typ, k)
			def := v1Defaults[typ]
			value1 := importer.Code(def.value)
			if v := c.Get("value1"); v != nil {
				value1 = f.looseValue(v, path+" value1")
			}
			ms, ok := n.v1Compare(node, f, typ, c, path, value1)
			if !ok {
				return nil
			}
			conds = append(conds, importer.Object(ms))
		}
	}
	combine := p.Text("combineOperation")
	if p.Get("combineOperation") == nil {
		combine = "all"
	}
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeValue("mode", cty.StringVal("ifV1"))
	body.SetAttributeRaw("params", importer.Clone(importer.Object([]importer.Member{
		{Name: "combine", Value: importer.Str(combine)},
		{Name: "items", Value: importer.Join("[for i, item in ", in.e, " : ", importer.Tuple(conds), "]")},
	})))
	body.SetAttributeValue("cache", cty.False)
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": for each item, whether its conditions hold (output true) or not (output false)", b)
	holds := importer.Join(importer.Ref("step", node.step, "items"), "[i]")
	var out []n8nItems
	for _, t := range []importer.Expr{holds, importer.Join("!", holds)} {
		out = append(out, pairedWith(importer.Join("[for i, item in ", in.e, " : item if ", t, "]"), in, importer.Join("[for i, item in ", in.e, " : i if ", t, "]")))
	}
	return out
}

// switchV1 is Switch v1 and v2 (n8n's SwitchV1, SwitchV2) in rules mode:
// for each item its value1 compared with each rule's value2 as IF v1
// compares, the item going to the first rule's output that holds (v1: the
// rule's output, of four; v2: the rule's own), else to the fallback
// output (none by default).
func (n *n8n) switchV1(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if m := p.Text("mode"); m != "" && m != "rules" {
		n.Problem(node.where, p.Get("mode"), "Unsupported mode", fmt.Sprintf("Switch's %s mode is not converted; its rules mode is.", m))
		return nil
	}
	typ := p.Text("dataType")
	if p.Get("dataType") == nil {
		typ = "number"
	}
	def, ok := v1Defaults[typ]
	if !ok {
		n.Problem(node.where, p.Get("dataType"), "Unsupported condition",
			fmt.Sprintf("%s comparisons are not converted (boolean, number and string ones are): JavaScript's Date reads dates as n8n's engine does, which goja does not match.", typ))
		return nil
	}
	s := n.scope(node, in, true)
	f := s.forItem()
	value1 := importer.Code(def.value)
	if v := p.Get("value1"); v != nil {
		value1 = f.looseValue(v, "value1")
	}
	rules := p.Items("rules", "rules")
	outputs := 4
	v2 := node.version >= 2
	if v2 {
		outputs = len(rules)
	}
	var rs []importer.Expr
	for k, r := range rules {
		ms, ok := n.v1Compare(node, f, typ, r, fmt.Sprintf("rule %d", k), importer.Code("null"))
		if !ok {
			return nil
		}
		ms = slices.DeleteFunc(ms, func(m importer.Member) bool { return m.Name == "value1" })
		if !v2 {
			out := importer.Code("0")
			if o := r.Get("output"); o != nil {
				out = f.looseValue(o, fmt.Sprintf("rule %d output", k))
			}
			ms = append(ms, importer.Member{Name: "output", Value: out})
		}
		rs = append(rs, importer.Object(ms))
	}
	fallback := importer.Code("-1")
	if fb := p.Get("fallbackOutput"); fb != nil {
		fallback = f.looseValue(fb, "fallbackOutput")
	}
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeValue("mode", cty.StringVal("switchV1"))
	body.SetAttributeRaw("params", importer.Clone(importer.Object([]importer.Member{
		{Name: "outputs", Value: importer.Code(strconv.Itoa(outputs))},
		{Name: "v2", Value: importer.Code(strconv.FormatBool(v2))},
		{Name: "items", Value: importer.Join("[for i, item in ", in.e, " : ", importer.Object([]importer.Member{
			{Name: "value1", Value: value1}, {Name: "rules", Value: importer.Tuple(rs)}, {Name: "fallback", Value: fallback},
		}), "]")},
	})))
	body.SetAttributeValue("cache", cty.False)
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": for each item, the output its rules send it to (-1: none)", b)
	var out []n8nItems
	for k := range outputs {
		t := importer.Join(importer.Ref("step", node.step, "items"), fmt.Sprintf("[i] == %d", k))
		out = append(out, pairedWith(importer.Join("[for i, item in ", in.e, " : item if ", t, "]"), in, importer.Join("[for i, item in ", in.e, " : i if ", t, "]")))
	}
	return out
}

// mergeV1 is Merge v1 (n8n's MergeV1): append, pass-through (the items
// of one input) and wait (one empty item once both inputs have come);
// merge by index, multiplex and the key modes (keep key matches, merge by
// key, remove key matches) run n8n's code on the n8n_code block.
func (n *n8n) mergeV1(node *n8nNode) []n8nItems {
	p := node.params
	mode := p.Text("mode")
	if p.Get("mode") == nil {
		mode = "append"
	}
	if n.expressionParams(node) {
		return nil
	}
	lists, deps, ins, ok := n.twoInputs(node)
	if !ok {
		return nil
	}
	if mode == "wait" {
		for _, in := range ins {
			deps = append(deps, in.from...)
		}
	}
	value := func(v importer.Expr, what string) []n8nItems {
		b, body := importer.NewStep(node.step, "value")
		body.SetAttributeRaw("value", importer.Clone(v))
		n.dependsOn(body, n8nItems{deps: deps})
		n.Step(n.nodeComment(node)+": "+what, b)
		return []n8nItems{{e: importer.Ref("step", node.step, "value")}}
	}
	switch mode {
	case "append":
		return value(importer.Call("concat", lists...), "the items of its inputs, one after the other")
	case "passThrough":
		k := 0
		if p.Text("output") == "input2" {
			k = 1
		}
		return value(lists[k], fmt.Sprintf("the items of input %d, once both inputs have come", k+1))
	case "wait":
		return value(importer.Code("[{}]"), "one empty item, once both inputs have come")
	case "mergeByIndex", "multiplex", "keepKeyMatches", "mergeByKey", "removeKeyMatches":
	default:
		n.Problem(node.where, p.Get("mode"), "Unsupported merge", fmt.Sprintf("mode %q is none of Merge v1's.", mode))
		return nil
	}
	ms := []importer.Member{{Name: "mode", Value: importer.Str(mode)}}
	for _, k := range []string{"join", "propertyName1", "propertyName2", "overwrite"} {
		if v := p.Get(k); v != nil {
			ms = append(ms, importer.Member{Name: k, Value: importer.JsonLiteral(v)})
		}
	}
	ms = append(ms, importer.Member{Name: "inputs", Value: importer.Tuple(lists)})
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeValue("mode", cty.StringVal("mergeV1"))
	body.SetAttributeRaw("params", importer.Clone(importer.Object(ms)))
	body.SetAttributeValue("cache", cty.False)
	n.dependsOn(body, n8nItems{deps: deps})
	what := map[string]string{"mergeByIndex": "the items of its inputs merged by index", "multiplex": "every pair of an item of each input, merged",
		"keepKeyMatches": "the items of input 1 whose key input 2 has", "mergeByKey": "the items of input 1 that have a key, with the fields of the item of input 2 that has the same",
		"removeKeyMatches": "the items of input 1 whose key input 2 does not have"}[mode]
	n.Step(n.nodeComment(node)+": "+what, b)
	return []n8nItems{{e: importer.Ref("step", node.step, "items")}}
}
