package lang

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Convert converts v to type ty, as convert.Convert does. A tuple, list or
// set bound for a list or set type is converted element by element: cty's
// own conversion then unifies the converted elements' types, which sorts
// them pairwise when they are objects — time quadratic in the number of
// elements (a 20,000-record input took 9 s). Where an element does not
// convert, cty's conversion of the whole says why, in its own words.
func Convert(v cty.Value, ty cty.Type) (cty.Value, error) {
	if v.Type().Equals(ty) {
		// cty's Convert would first make ty without its optional
		// attributes (a new type, for each step instance's inputs), to
		// find what a value's type cannot have anyway.
		return v, nil
	}
	if !(ty.IsListType() || ty.IsSetType()) || ty.ElementType().HasDynamicTypes() {
		return convert.Convert(v, ty) // (the elements' types decide the list's)
	}
	uv, marks := v.Unmark()
	vt := uv.Type()
	if !uv.IsKnown() || uv.IsNull() || !(vt.IsTupleType() || vt.IsListType() || vt.IsSetType()) ||
		vt.Equals(ty) || uv.LengthInt() < 2 {
		return convert.Convert(v, ty)
	}
	ety := ty.ElementType()
	plain := ety.WithoutOptionalAttributesDeep()
	// The elements of a long list have, as a rule, one type: its
	// conversion is made once.
	var lastTy cty.Type
	var conv convert.Conversion
	elems := make([]cty.Value, 0, uv.LengthInt())
	// converted: an element before was converted, so the elements' types
	// are compared (as ListVal and SetVal need them equal); while none
	// was, each is plain already, and so are all of them.
	converted := false
	for it := uv.ElementIterator(); it.Next(); {
		_, e := it.Element()
		et := e.Type()
		if !et.Equals(plain) {
			if conv == nil || !et.Equals(lastTy) {
				if conv = convert.GetConversionUnsafe(et, ety); conv == nil {
					return convert.Convert(v, ty)
				}
				lastTy = et
			}
			var err error
			if e, err = conv(e); err != nil {
				return convert.Convert(v, ty)
			}
			converted = true
		}
		if converted && len(elems) > 0 && !e.Type().Equals(elems[0].Type()) {
			return convert.Convert(v, ty)
		}
		elems = append(elems, e)
	}
	var out cty.Value
	if ty.IsListType() {
		out = cty.ListVal(elems)
	} else {
		out = cty.SetVal(elems)
	}
	return out.WithMarks(marks), nil
}
