package n8n

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// setRaw is Edit Fields v3 in its JSON mode (n8n's raw mode): for each
// item the object its JSON Output gives — JSON text, whose {{ }} parts n8n
// evaluates into it (an object as its JSON), or one expression's value (an
// object, or text of JSON) — each of its fields set over what the item
// keeps (Include Other Fields). n8n sets a field whose name has dots
// inside another (dot notation): such names are refused, or fail the step
// when they come from an expression.
func (n *n8n) setRaw(node *n8nNode, in n8nItems, s *n8nScope, include string, dots bool) []n8nItems {
	p := node.params
	base, ok := n.setBase(node, s, include, dots)
	if !ok {
		return nil
	}
	raw := p.Get("jsonOutput")
	if raw == nil {
		// n8n's default JSON Output.
		raw = &importer.JV{Kind: 's', Str: "{\n  \"my_field_1\": \"value\",\n  \"my_field_2\": 1\n}\n", Ptr: p.Ptr, Rng: p.Rng}
	}
	var obj importer.Expr
	if raw.Kind == 's' && !strings.HasPrefix(raw.Str, "=") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw.Str), &m); err != nil || m == nil {
			n.Problem(node.where, raw, "Invalid JSON", "the JSON Output is not a JSON object: n8n fails on it, or repairs the JSON, which is not converted.")
			return nil
		}
		for k := range m {
			if dots && strings.Contains(k, ".") {
				n.Problem(node.where, raw, "Unsupported field name", fmt.Sprintf("the field %q: a name with dots sets a field inside another (n8n's dot notation), which the JSON Output is not converted with.", k))
				return nil
			}
		}
		if obj = n.jsonParam(s, node, raw, "jsonOutput"); obj == nil {
			return nil
		}
	} else {
		v := n.jsonParam(s, node, raw, "jsonOutput")
		if v == nil {
			return nil
		}
		good := "can(keys(y))"
		what := "a JSON object"
		if dots {
			good += ` && length([for k in keys(y) : k if strcontains(k, ".")]) == 0`
			what += " without a field whose name has dots (n8n's dot notation sets it inside another, which is not converted)"
		}
		fail := importer.Call("tonumber", importer.Str(fmt.Sprintf("n8n node %q: the JSON Output is not %s", node.name, what)))
		// Each case a for with if, which evaluates only the one that holds.
		obj = importer.Join("[for x in [", v, "] : concat([for y in [x] : y if ", good, "], [for y in [x] : ", fail, " if !(", good, ")])[0]][0]")
	}
	value := obj
	if base != nil {
		value = importer.Call("merge", base, obj)
	}
	return n.setStep(node, in, s, value)
}
