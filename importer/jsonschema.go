package importer

import (
	"fmt"
	"strings"
)

// JSONSchemaType is the HCL type of a JSON Schema, and why it is any when
// it cannot be typed: string, number (integer too), bool; an array's
// items make a list; an object's properties an object (those not
// required optional), its additionalProperties a map. What cannot be
// typed so (no type, unions, references, an object of anything) is any.
func JSONSchemaType(s *JV) (string, string) {
	if s == nil || s.Kind != 'o' {
		return "any", "is not an object"
	}
	for _, k := range []string{"$ref", "oneOf", "anyOf", "allOf"} {
		if s.Get(k) != nil {
			return "any", "uses " + k
		}
	}
	typ := s.Text("type")
	if t := s.Get("type"); t != nil && t.Kind == 'a' {
		var types []string
		for _, e := range t.Arr {
			if e.Str != "null" {
				types = append(types, e.Str)
			}
		}
		if len(types) != 1 {
			return "any", "allows several types"
		}
		typ = types[0]
	}
	if typ == "" && s.Get("properties") != nil {
		typ = "object"
	}
	switch typ {
	case "string":
		return "string", ""
	case "integer", "number":
		return "number", ""
	case "boolean":
		return "bool", ""
	case "array":
		items := s.Get("items")
		if items == nil {
			return "list(any)", ""
		}
		t, why := JSONSchemaType(items)
		if why != "" {
			return "list(any)", ""
		}
		return "list(" + t + ")", ""
	case "object":
		props := s.Get("properties")
		if props == nil || props.Kind != 'o' || len(props.Keys) == 0 {
			if ap := s.Get("additionalProperties"); ap != nil && ap.Kind == 'o' {
				if t, why := JSONSchemaType(ap); why == "" {
					return "map(" + t + ")", ""
				}
			}
			return "any", "is an object without properties"
		}
		required := map[string]bool{}
		for _, r := range s.Items("required") {
			required[r.Str] = true
		}
		var attrs []string
		for _, k := range props.Keys {
			t, why := JSONSchemaType(props.Obj[k])
			if why != "" {
				t = "any"
			}
			if !required[k] {
				t = "optional(" + t + ")"
			}
			name := k
			if !ValidAttrName(k) {
				return "any", fmt.Sprintf("has a property %q that is not an HCL name", k)
			}
			attrs = append(attrs, name+" = "+t)
		}
		return "object({ " + strings.Join(attrs, ", ") + " })", ""
	case "null":
		return "any", "is null"
	}
	return "any", "has no type"
}

func ValidAttrName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
			return false
		}
	}
	return true
}
