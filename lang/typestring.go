package lang

import (
	"slices"
	"strconv"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// AppendTypeString appends TypeString(ty) to b. It is what a cache key
// of a value of type any is built from, once per step instance: typeexpr
// checks every attribute name with the HCL scanner, which cost more than
// the rest of the key; here a plain ASCII name is checked by hand.
func AppendTypeString(b []byte, ty cty.Type) []byte {
	switch {
	case ty == cty.String:
		return append(b, "string"...)
	case ty == cty.Bool:
		return append(b, "bool"...)
	case ty == cty.Number:
		return append(b, "number"...)
	case ty == cty.DynamicPseudoType:
		return append(b, "any"...)
	case ty.IsListType():
		return append(AppendTypeString(append(b, "list("...), ty.ElementType()), ')')
	case ty.IsSetType():
		return append(AppendTypeString(append(b, "set("...), ty.ElementType()), ')')
	case ty.IsMapType():
		return append(AppendTypeString(append(b, "map("...), ty.ElementType()), ')')
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		var small [16]string
		names := small[:0]
		for name := range atys {
			names = append(names, name)
		}
		slices.Sort(names)
		b = append(b, "object({"...)
		for i, name := range names {
			if i > 0 {
				b = append(b, ',')
			}
			if plainIdentifier(name) || hclsyntax.ValidIdentifier(name) {
				b = append(b, name...)
			} else {
				b = strconv.AppendQuote(b, name)
			}
			b = AppendTypeString(append(b, '='), atys[name])
		}
		return append(b, "})"...)
	case ty.IsTupleType():
		b = append(b, "tuple(["...)
		for i, ety := range ty.TupleElementTypes() {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendTypeString(b, ety)
		}
		return append(b, "])"...)
	}
	// Capsule types: as typeexpr does.
	return append(b, TypeString(ty)...)
}

// plainIdentifier reports whether name is an ASCII identifier (a letter
// or underscore, then letters, digits, underscores and dashes), all of
// which HCL accepts; false says only "ask the scanner".
func plainIdentifier(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}
