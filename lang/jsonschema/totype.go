package jsonschema

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/zclconf/go-cty/cty"
)

// TypeOf is the flowctl type of the values a JSON Schema describes, for
// what the schemas of webhooks' bodies say: an object's properties (those
// not required optional), an array's items, the primitive types, and a
// type list with "null" (the other type). What a type cannot say (no
// type, anyOf, a $ref) is any, checked no further.
func TypeOf(schema []byte) (cty.Type, error) {
	var s any
	if err := json.Unmarshal(schema, &s); err != nil {
		return cty.NilType, fmt.Errorf("the JSON Schema is not JSON: %w", err)
	}
	return typeOf(s, "")
}

func typeOf(s any, path string) (cty.Type, error) {
	m, ok := s.(map[string]any)
	if !ok {
		if b, isBool := s.(bool); isBool && b {
			return cty.DynamicPseudoType, nil
		}
		return cty.NilType, fmt.Errorf("the schema at %q is not an object", "#"+path)
	}
	t := m["type"]
	if list, isList := t.([]any); isList {
		t = nil
		for _, e := range list {
			if e != "null" {
				if t != nil {
					return cty.DynamicPseudoType, nil // several types: any
				}
				t = e
			}
		}
	}
	switch t {
	case "string":
		return cty.String, nil
	case "number", "integer":
		return cty.Number, nil
	case "boolean":
		return cty.Bool, nil
	case "array":
		items, ok := m["items"]
		if !ok {
			return cty.DynamicPseudoType, nil // a list of anything
		}
		ty, err := typeOf(items, path+"/items")
		return cty.List(ty), err
	case "object":
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 {
			return cty.DynamicPseudoType, nil // an object of anything
		}
		var required []string
		if r, ok := m["required"].([]any); ok {
			for _, e := range r {
				if name, ok := e.(string); ok {
					required = append(required, name)
				}
			}
		}
		attrs := map[string]cty.Type{}
		var optional []string
		for name, p := range props {
			ty, err := typeOf(p, path+"/properties/"+name)
			if err != nil {
				return cty.NilType, err
			}
			attrs[name] = ty
			if !slices.Contains(required, name) {
				optional = append(optional, name)
			}
		}
		return cty.ObjectWithOptionalAttrs(attrs, optional), nil
	case nil:
		return cty.DynamicPseudoType, nil
	}
	return cty.NilType, fmt.Errorf("the schema at %q has type %v, which is none of JSON's", "#"+path, t)
}
