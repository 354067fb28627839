package importer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// schemaType is the HCL type of a JSON Schema: string, number (integer
// too), bool; an array's items make a list; an object's properties an
// object (those not required optional), its additionalProperties a map.
// What cannot be typed so (no type, unions, references, an object of
// anything) is any, with a warning.
func (a *agentflow) schemaType(s *jv, w where) string {
	t, why := jsonSchemaType(s)
	if why != "" {
		a.warn(w, s, "Untyped schema", "the schema "+why+": its HCL type is any, checked only at run time.")
	}
	return t
}

func jsonSchemaType(s *jv) (string, string) {
	if s == nil || s.Kind != 'o' {
		return "any", "is not an object"
	}
	for _, k := range []string{"$ref", "oneOf", "anyOf", "allOf"} {
		if s.get(k) != nil {
			return "any", "uses " + k
		}
	}
	typ := s.str("type")
	if t := s.get("type"); t != nil && t.Kind == 'a' {
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
	if typ == "" && s.get("properties") != nil {
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
		items := s.get("items")
		if items == nil {
			return "list(any)", ""
		}
		t, why := jsonSchemaType(items)
		if why != "" {
			return "list(any)", ""
		}
		return "list(" + t + ")", ""
	case "object":
		props := s.get("properties")
		if props == nil || props.Kind != 'o' || len(props.Keys) == 0 {
			if ap := s.get("additionalProperties"); ap != nil && ap.Kind == 'o' {
				if t, why := jsonSchemaType(ap); why == "" {
					return "map(" + t + ")", ""
				}
			}
			return "any", "is an object without properties"
		}
		required := map[string]bool{}
		for _, r := range s.items("required") {
			required[r.Str] = true
		}
		var attrs []string
		for _, k := range props.Keys {
			t, why := jsonSchemaType(props.Obj[k])
			if why != "" {
				t = "any"
			}
			if !required[k] {
				t = "optional(" + t + ")"
			}
			name := k
			if !validAttrName(k) {
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

func validAttrName(s string) bool {
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

// jsonLiteral is the HCL literal of a JSON value.
func jsonLiteral(v *jv) expr {
	return jsonExpr(v, func(s *jv) expr { return str(s.Str) }, object)
}

// jsonExpr is the HCL of a JSON value: constructors for objects and
// arrays (in the value's order), strings as strFn makes them, objects as
// obj makes them from their members.
func jsonExpr(v *jv, strFn func(*jv) expr, obj func([]member) expr) expr {
	switch v.Kind {
	case 'o':
		var ms []member
		for _, k := range v.Keys {
			ms = append(ms, member{Name: k, Value: jsonExpr(v.Obj[k], strFn, obj)})
		}
		return obj(ms)
	case 'a':
		var es []expr
		for _, e := range v.Arr {
			es = append(es, jsonExpr(e, strFn, obj))
		}
		return tuple(es)
	case 's':
		return strFn(v)
	case 'n':
		return num(v.Num)
	case 'b':
		return code(fmt.Sprint(v.Bool))
	}
	return code("null")
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
