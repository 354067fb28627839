package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/lang"
)

// CheckShape checks a reply decoded from JSON (encoding/json's interface
// values) against a JSON Schema of the subset that Ask's callers send
// (type, enum, properties, required, additionalProperties, items, anyOf),
// and returns the problems worded for the model, each with its path, as
// the checks of llm blocks' replies against their declared types are
// (parse.go). A missing property whose schema allows null counts as null,
// and properties the schema does not name are ignored.
func CheckShape(v any, schema json.RawMessage) []string {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return []string{"the schema cannot be read: " + err.Error()}
	}
	var c shapeChecker
	c.check(v, s, "")
	return c.problems
}

type shapeChecker struct{ problems []string }

// maxShapeProblems bounds how many problems are listed.
const maxShapeProblems = 5

func (c *shapeChecker) add(path, format string, args ...any) {
	if len(c.problems) >= maxShapeProblems {
		return
	}
	if path == "" {
		path = "the reply"
	}
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

func (c *shapeChecker) check(v any, s map[string]any, path string) {
	if alts, ok := s["anyOf"].([]any); ok {
		var best []string
		for i, alt := range alts {
			m, _ := alt.(map[string]any)
			var sub shapeChecker
			sub.check(v, m, path)
			if len(sub.problems) == 0 {
				return
			}
			if i == 0 || len(sub.problems) < len(best) {
				best = sub.problems
			}
		}
		for _, p := range best {
			if len(c.problems) < maxShapeProblems {
				c.problems = append(c.problems, p)
			}
		}
		return
	}
	if types := SchemaTypes(s); len(types) > 0 && !typeMatches(v, types) {
		c.add(path, "%s is required, not %s", describeTypes(types), describeJSON(v))
		return
	}
	if values, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range values {
			if e == v {
				found = true
			}
		}
		if !found {
			var names []string
			for _, e := range values {
				names = append(names, fmt.Sprintf("%q", e))
			}
			c.add(path, "%s is not one of %s", describeJSON(v), strings.Join(names, ", "))
			return
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		required, _ := s["required"].([]any)
		for _, r := range required {
			name, _ := r.(string)
			if _, ok := v[name]; ok {
				continue
			}
			ps, _ := props[name].(map[string]any)
			if !allowsNull(ps) {
				c.add(path, "the field %q is missing", name)
			}
		}
		for _, name := range lang.SortedKeys(v) {
			sub := path + "." + name
			if ps, ok := props[name].(map[string]any); ok {
				c.check(v[name], ps, sub)
			} else if extra, ok := s["additionalProperties"].(map[string]any); ok {
				c.check(v[name], extra, sub)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range v {
				c.check(e, items, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
}

// SchemaTypes are the types a JSON Schema's "type" names: one, or a
// list; none when it names none.
func SchemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func allowsNull(s map[string]any) bool {
	if s == nil {
		return false
	}
	for _, t := range SchemaTypes(s) {
		if t == "null" {
			return true
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok && allowsNull(m) {
				return true
			}
		}
	}
	return false
}

func typeMatches(v any, types []string) bool {
	for _, t := range types {
		switch v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case float64:
			if t == "number" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		}
	}
	return false
}

func describeTypes(types []string) string {
	names := map[string]string{
		"string": "a string", "number": "a number", "boolean": "true or false",
		"array": "an array", "object": "an object", "null": "null",
	}
	var out []string
	for _, t := range types {
		out = append(out, names[t])
	}
	return strings.Join(out, " or ")
}

func describeJSON(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if len(v) <= 40 {
			return fmt.Sprintf("the string %q", v)
		}
		return "a string"
	case float64:
		return fmt.Sprintf("the number %g", v)
	case bool:
		return fmt.Sprint(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value"
}
