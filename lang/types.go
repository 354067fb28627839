package lang

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"
)

// TypeSpec is a declared type: the `type` argument of an input, output,
// memory or block field. Without a `type` argument it is `any`.
type TypeSpec struct {
	Type     cty.Type
	Defaults *typeexpr.Defaults
	Range    hcl.Range // the type expression; the declaration when absent
}

// TypeString renders a type as a type expression, e.g. list(string).
func TypeString(ty cty.Type) string { return typeexpr.TypeString(ty) }

func decodeTypeSpec(attrs hcl.Attributes, declRange hcl.Range) (TypeSpec, hcl.Diagnostics) {
	attr, ok := attrs["type"]
	if !ok {
		return TypeSpec{Type: cty.DynamicPseudoType, Range: declRange}, nil
	}
	ty, defaults, diags := typeexpr.TypeConstraintWithDefaults(attr.Expr)
	if diags.HasErrors() {
		return TypeSpec{Type: cty.DynamicPseudoType, Range: attr.Expr.Range()}, diags
	}
	return TypeSpec{Type: ty, Defaults: defaults, Range: attr.Expr.Range()}, nil
}

// ParseType parses a type expression given as text, as the thinker's replies
// carry them. The filename names the text in diagnostics.
func ParseType(src string, filename string) (cty.Type, hcl.Diagnostics) {
	expr, diags := parseExpression(src, filename)
	if diags.HasErrors() {
		return cty.DynamicPseudoType, diags
	}
	ty, _, diags := typeexpr.TypeConstraintWithDefaults(expr)
	return ty, diags
}

// decodeTyped decodes what an input, a memory and a block's field (kind
// names it) share: the name's check, the body by schema, the type
// (decodeTypeSpec), the default, checked against the type when the type is
// valid (left cty.NilVal when none is given), and the description. It
// returns the body's attributes, for those of its own.
func decodeTyped(b *hcl.Block, kind string, schema *hcl.BodySchema, ts *TypeSpec, def *cty.Value, desc *string) (hcl.Attributes, hcl.Diagnostics) {
	diags := checkName(kind, b.Labels[0], b.LabelRanges[0])
	content, d := b.Body.Content(schema)
	diags = append(diags, d...)
	*ts, d = decodeTypeSpec(content.Attributes, b.DefRange)
	diags = append(diags, d...)
	if a, ok := content.Attributes["default"]; ok && !d.HasErrors() {
		*def, d = decodeDefault(a, *ts)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["description"]; ok {
		*desc, d = stringAttr(a)
		diags = append(diags, d...)
	}
	return content.Attributes, diags
}

// decodeDefault evaluates a `default` argument and converts it to the
// declared type, with its optional attributes' defaults applied.
func decodeDefault(attr *hcl.Attribute, ts TypeSpec) (cty.Value, hcl.Diagnostics) {
	v, diags := constValue(attr.Expr)
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	if ts.Defaults != nil && !v.IsNull() {
		v = ts.Defaults.Apply(v)
	}
	cv, err := Convert(v, ts.Type)
	if err != nil {
		return cty.DynamicVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid default value",
			Detail:   "The default value does not match the declared type " + TypeString(ts.Type) + ": " + FormatConvertError(err) + ".",
			Subject:  attr.Expr.Range().Ptr(),
			Context:  attr.Range.Ptr(),
		}}
	}
	return cv, nil
}
