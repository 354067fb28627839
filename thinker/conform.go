package thinker

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2/hclwrite"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// conform bends a reply toward the shape of its stage, as real models
// write replies: a field spelled in another case (dependsOn, DependsOn)
// takes the schema's name; a field the schema does not have is left out
// and reported in c.unknown, for the model to hear of it; a
// missing optional field (optionalField) takes its empty value ("", [] or
// null); and a JSON number, boolean, array or object
// where the schema wants a string (an HCL expression, such as a step's
// argument) becomes the HCL expression of that value (5, true, ["a"],
// { k = "v" }). Each change is described in c.notes, by path.
func (c *conformer) conform(v any, schema map[string]any, path string) any {
	if schema == nil {
		return v
	}
	if _, ok := schema["anyOf"]; ok {
		return v // a choice of shapes (an input's default): taken as it is
	}
	// A number, a boolean, an array or an object where a string (an
	// HCL expression) is wanted.
	if types, jt := llm.SchemaTypes(schema), typeOfJSON(v); jt != "" && slices.Contains(types, "string") && !slices.Contains(types, jt) {
		if expr, ok := hclExpression(v); ok {
			c.notes = append(c.notes, fmt.Sprintf("%s: the JSON value %s read as the HCL expression %s", path, compactJSONText(v), expr))
			return expr
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if props == nil {
			if extra, ok := schema["additionalProperties"].(map[string]any); ok {
				for _, k := range lang.SortedKeys(x) {
					x[k] = c.conform(x[k], extra, path+"."+k)
				}
			}
			return x
		}
		byFolded := map[string]string{}
		for name := range props {
			byFolded[foldKey(name)] = name
		}
		out := make(map[string]any, len(x))
		for _, k := range lang.SortedKeys(x) {
			name := k
			if _, ok := props[k]; !ok {
				if n, ok := byFolded[foldKey(k)]; ok {
					name = n
					c.notes = append(c.notes, fmt.Sprintf("%s.%s read as %q", path, k, n))
				} else {
					c.notes = append(c.notes, fmt.Sprintf("%s.%s left out: there is no such field", path, k))
					if hint := c.misplaced(k, path, lang.SortedKeys(props)); hint != "" {
						c.unknown = append(c.unknown, fmt.Sprintf("%s.%s (the fields there are %s;%s)", strings.TrimPrefix(path, "reply"), k, fieldNames(schema), hint))
					}
					continue
				}
			}
			if _, dup := out[name]; dup {
				continue // the schema's own spelling wins
			}
			ps, _ := props[name].(map[string]any)
			out[name] = c.conform(x[k], ps, path+"."+name)
		}
		required, _ := schema["required"].([]any)
		for _, r := range required {
			name, _ := r.(string)
			if _, ok := out[name]; ok {
				continue
			}
			ps, _ := props[name].(map[string]any)
			if !optionalField(name, props) {
				continue // missing, as the shape check says
			}
			switch {
			case quietField(name, props) && hasType(ps, "null"):
				out[name] = nil
			case hasType(ps, "array"):
				out[name] = []any{}
			case hasType(ps, "string"):
				out[name] = ""
			default:
				out[name] = nil
			}
			if quietField(name, props) {
				c.quiet = append(c.quiet, func() { delete(out, name) })
			} else {
				c.notes = append(c.notes, fmt.Sprintf("%s.%s missing: taken as %s", path, name, describeDefault(out[name])))
			}
		}
		return out
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i := range x {
			x[i] = c.conform(x[i], items, fmt.Sprintf("%s[%d]", path, i))
		}
		return x
	}
	return v
}

// A conformer gathers what conform changed (notes) and, of the fields
// it left out because the shape has no such field, those worth telling
// the model of (unknown): a field the stage takes elsewhere (a for_each
// beside a step's args rather than among them) or a misspelling of one
// it takes there. Other extra keys (reasoning, notes, version) are
// dropped with a note only: the model would write them again, and they
// say nothing the flow lacks.
// quiet takes the quiet fields conform filled in (quietField) out again,
// once the reply's shape is checked: a reply then tells a field it left
// out (kept as the flow has it, by think --edit) from one it set to null.
type conformer struct {
	notes   []string
	unknown []string
	quiet   []func()
	// fields are, by folded name (foldKey), where the stage's schemas
	// (the one sent and the shape) have a field of that name: steps[].args.
	fields map[string][]string
}

// newConformer is a conformer for replies to the given schemas.
func newConformer(schemas ...json.RawMessage) *conformer {
	c := &conformer{fields: map[string][]string{}}
	for _, raw := range schemas {
		var s map[string]any
		if json.Unmarshal(raw, &s) == nil {
			c.gather(s, "")
		}
	}
	return c
}

// gather records where a schema has each field.
func (c *conformer) gather(schema map[string]any, path string) {
	if props, ok := schema["properties"].(map[string]any); ok {
		for _, name := range lang.SortedKeys(props) {
			p := strings.TrimPrefix(path+"."+name, ".")
			if k := foldKey(name); !slices.Contains(c.fields[k], p) {
				c.fields[k] = append(c.fields[k], p)
			}
			if ps, ok := props[name].(map[string]any); ok {
				c.gather(ps, p)
			}
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		c.gather(items, path+"[]")
	}
	if extra, ok := schema["additionalProperties"].(map[string]any); ok {
		c.gather(extra, path+".*")
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		variants, _ := schema[key].([]any)
		for _, v := range variants {
			if vs, ok := v.(map[string]any); ok {
				c.gather(vs, path)
			}
		}
	}
}

// fieldNames lists the properties of an object schema, in its order.
func fieldNames(schema map[string]any) string {
	req, _ := schema["required"].([]any)
	var names []string
	for _, r := range req {
		if n, ok := r.(string); ok {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// optionalField reports whether a reply may leave a field out: a
// description, a step's depends_on, an input's default, a flow's inputs,
// secrets, memory and schedules (an object with steps is a flow), a
// memory's default and value, a schedule's time zone and inputs, a
// step's retry, timeout, on_error and tools.
func optionalField(name string, props map[string]any) bool {
	if quietField(name, props) {
		return true
	}
	switch name {
	case "description", "depends_on", "default":
		return true
	case "inputs":
		return props["steps"] != nil || props["cron"] != nil
	case "value":
		return props["default"] != nil // a memory's, not an output's
	case "timezone":
		return props["cron"] != nil
	}
	return false
}

// quietField reports whether a missing field is taken as empty without a
// note: the parts of a flow most flows do not have (secrets, memory,
// schedules; a step's retry, timeout, on_error and tools), which a reply
// that does not need them may leave out.
func quietField(name string, props map[string]any) bool {
	switch name {
	case "secrets", "memory", "schedules":
		return props["steps"] != nil
	case "retry", "timeout", "on_error", "tools":
		return props["use"] != nil
	}
	return false
}

// foldKey is a field name without case, underscores or dashes:
// depends_on, dependsOn and DependsOn are one.
func foldKey(k string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
}

// hclExpression is the HCL expression of a JSON value.
func hclExpression(v any) (string, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	ty, err := ctyjson.ImpliedType(b)
	if err != nil {
		return "", false
	}
	cv, err := ctyjson.Unmarshal(b, ty)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(hclwrite.TokensForValue(cv).Bytes())), true
}

func hasType(s map[string]any, t string) bool { return slices.Contains(llm.SchemaTypes(s), t) }

func typeOfJSON(v any) string {
	switch v.(type) {
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

func describeDefault(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return `""`
	case []any:
		if len(v) == 0 {
			return "[]"
		}
	}
	return compactJSONText(v)
}

func compactJSONText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// misplaced is why an unknown field k of the object at path (in the
// reply), whose fields are here, is worth the model's attention, "" when
// it is not: the stage takes a field of that name inside the object
// (" for_each is a field of steps[].args", for a for_each beside a
// step's args), or k is a misspelling of one of here (maxMisspelling).
func (c *conformer) misplaced(k, path string, here []string) string {
	at := strings.TrimPrefix(indexRE.ReplaceAllString(strings.TrimPrefix(path, "reply"), "[]"), ".")
	var inside []string
	for _, p := range c.fields[foldKey(k)] {
		if at == "" || strings.HasPrefix(p, at+".") || strings.HasPrefix(p, at+"[]") {
			inside = append(inside, p)
		}
	}
	if len(inside) > 0 {
		if len(inside) > 3 {
			inside = inside[:3]
		}
		return fmt.Sprintf(" %s is a field of %s", k, strings.Join(inside, ", "))
	}
	for _, name := range here {
		if levenshtein.Distance(foldKey(k), foldKey(name), nil) <= maxMisspelling {
			return fmt.Sprintf(" did you mean %q?", name)
		}
	}
	return ""
}

// maxMisspelling is the most edits that make an unknown field a
// misspelling of one the stage takes (depend_on, depends_on): looser,
// and a model's own keys (notes, version) read as the stage's (name,
// description).
const maxMisspelling = 2

// indexRE is an index of a path in a reply ([0]).
var indexRE = regexp.MustCompile(`\[\d+\]`)
