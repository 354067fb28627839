package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/google/jsonschema-go/jsonschema"
)

// CheckArguments checks a client's arguments for a run (JSON values by
// input name: an MCP tool call's, a start request's inputs) against the
// flow's inputs as their JSON Schema says them (Program.InputSchema), and
// returns every problem as a sentence that names the argument, the JSON
// type of its value and what the schema expects: the words of the
// client's own contract, never those of a command line. A null is an
// argument not given.
func CheckArguments(prog *compiler.Program, args map[string]json.RawMessage) []string {
	raw, err := json.Marshal(prog.InputSchema())
	if err != nil {
		return []string{fmt.Sprintf("The JSON Schema of flow %q's inputs cannot be written: %v.", prog.Flow.Name, err)}
	}
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{fmt.Sprintf("The JSON Schema of flow %q's inputs cannot be read: %v.", prog.Flow.Name, err)}
	}
	names := make([]string, 0, len(root.Properties))
	for name := range root.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	var problems []string
	given := make([]string, 0, len(args))
	for name := range args {
		given = append(given, name)
	}
	slices.Sort(given)
	for _, name := range given {
		if _, ok := root.Properties[name]; ok {
			continue
		}
		if in := prog.InputsByName[name]; in != nil && in.Sensitive {
			problems = append(problems, fmt.Sprintf("Argument %q is a sensitive input of flow %q, which a client may not give: it is not in the tool's JSON Schema.", name, prog.Flow.Name))
			continue
		}
		problems = append(problems, fmt.Sprintf("Argument %q is not in the JSON Schema of flow %q's arguments, which allows no others (additionalProperties: false); its properties are %s.%s",
			name, prog.Flow.Name, propertyList(names, root.Properties, root.Required), lang.Suggest(name, names)))
	}
	for _, name := range names {
		v, ok := args[name]
		if !ok || isNull(v) {
			if slices.Contains(root.Required, name) {
				problems = append(problems, fmt.Sprintf("Argument %q is missing: the JSON Schema requires it, %s (%s).",
					name, expects(root.Properties[name]), compactJSON(root.Properties[name])))
			}
			continue
		}
		if msg := checkValue(name, v, root.Properties[name]); msg != "" {
			problems = append(problems, msg)
		}
	}
	return problems
}

// checkValue checks one argument against its schema: "" when it fits.
func checkValue(name string, v, schema json.RawMessage) string {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Sprintf("Argument %q cannot be checked: its JSON Schema does not read: %v.", name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Sprintf("Argument %q cannot be checked: its JSON Schema does not resolve: %v.", name, err)
	}
	var value any
	if err := json.Unmarshal(v, &value); err != nil {
		return fmt.Sprintf("Argument %q is not JSON: %v.", name, err)
	}
	if err := rs.Validate(value); err != nil {
		return fmt.Sprintf("Argument %q is %s, but the JSON Schema expects %s (%s): %s.",
			name, describe(value), expects(schema), compactJSON(schema), innermost(err))
	}
	return ""
}

// innermost is a validation error without the schemas it was found in.
func innermost(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		if _, rest, ok := strings.Cut(msg[i:], ": "); ok {
			msg = rest
		}
	}
	return strings.TrimSuffix(msg, ".")
}

// describe is a JSON value's type, with the value when it is short.
func describe(v any) string {
	b, _ := json.Marshal(v)
	shown := ""
	if len(b) <= 40 {
		shown = " " + string(b)
	}
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean" + shown
	case float64:
		return "a number" + shown
	case string:
		return "a string" + shown
	case []any:
		return "an array" + shown
	case map[string]any:
		return "an object" + shown
	}
	return fmt.Sprintf("%T", v)
}

// expects says what a schema's type is, in words.
func expects(schema json.RawMessage) string {
	var s struct {
		Type any `json:"type"`
	}
	json.Unmarshal(schema, &s)
	types := []string{}
	switch t := s.Type.(type) {
	case string:
		types = append(types, t)
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok {
				types = append(types, x)
			}
		}
	}
	var words []string
	for _, t := range types {
		switch t {
		case "null":
			continue
		case "object", "array", "integer":
			words = append(words, "an "+t)
		case "boolean":
			words = append(words, "a boolean")
		default:
			words = append(words, "a "+t)
		}
	}
	if len(words) == 0 {
		return "a value"
	}
	return strings.Join(words, " or ")
}

// propertyList lists the schema's properties with their types.
func propertyList(names []string, props map[string]json.RawMessage, required []string) string {
	if len(names) == 0 {
		return "none"
	}
	var parts []string
	for _, n := range names {
		p := fmt.Sprintf("%q (%s", n, expects(props[n]))
		if slices.Contains(required, n) {
			p += ", required"
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, ", ")
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// compactJSON is a schema without its description and spaces, to quote.
func compactJSON(schema json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(schema, &m) != nil {
		return string(schema)
	}
	delete(m, "description")
	b, _ := json.Marshal(m)
	return "JSON Schema " + string(b)
}
