package lang

import (
	"fmt"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// TestConvertAgreesWithCty: Convert gives what convert.Convert gives, errors
// and their paths included, for the tuples and lists it converts itself.
func TestConvertAgreesWithCty(t *testing.T) {
	rec := func(id int, name string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(int64(id)), "name": cty.StringVal(name)})
	}
	recTy := cty.Object(map[string]cty.Type{"id": cty.Number, "name": cty.String})
	optTy := cty.ObjectWithOptionalAttrs(map[string]cty.Type{"id": cty.Number, "tag": cty.String}, []string{"tag"})
	cases := []struct {
		v  cty.Value
		ty cty.Type
	}{
		{cty.TupleVal([]cty.Value{rec(1, "a"), rec(2, "b"), rec(3, "c")}), cty.List(recTy)},
		{cty.TupleVal([]cty.Value{rec(1, "a"), rec(2, "b")}), cty.Set(recTy)},
		{cty.TupleVal([]cty.Value{cty.StringVal("1"), cty.NumberIntVal(2)}), cty.List(cty.Number)},
		{cty.TupleVal([]cty.Value{cty.StringVal("1"), cty.StringVal("x")}), cty.List(cty.Number)},
		{cty.TupleVal([]cty.Value{rec(1, "a"), cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("z")})}), cty.List(recTy)},
		{cty.TupleVal([]cty.Value{rec(1, "a"), cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(2)})}), cty.List(optTy)},
		{cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("a")}), cty.List(cty.DynamicPseudoType)},
		{cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}), cty.List(cty.String)},
		{cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}).Mark("m"), cty.List(cty.String)},
		{cty.TupleVal([]cty.Value{cty.NumberIntVal(1).Mark("m"), cty.NumberIntVal(2)}), cty.List(cty.String)},
		{cty.TupleVal([]cty.Value{cty.NullVal(cty.String), cty.StringVal("b")}), cty.List(cty.String)},
		{cty.TupleVal([]cty.Value{cty.UnknownVal(cty.String), cty.StringVal("b")}), cty.List(cty.String)},
	}
	for i, c := range cases {
		got, gerr := Convert(c.v, c.ty)
		want, werr := convert.Convert(c.v, c.ty)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || (gerr != nil && FormatConvertError(gerr) != FormatConvertError(werr)) {
			t.Errorf("case %d: error %v, cty's %v", i, gerr, werr)
			continue
		}
		if gerr == nil && !got.RawEquals(want) {
			t.Errorf("case %d: %#v, cty's %#v", i, got, want)
		}
	}
}

// BenchmarkConvertRecords converts 20,000 records to a list of objects,
// which cty alone does in time quadratic in their number.
func BenchmarkConvertRecords(b *testing.B) {
	elems := make([]cty.Value, 20000)
	for i := range elems {
		elems[i] = cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(int64(i)), "name": cty.StringVal("x")})
	}
	v := cty.TupleVal(elems)
	ty := cty.List(cty.Object(map[string]cty.Type{"id": cty.Number, "name": cty.String}))
	for b.Loop() {
		if _, err := Convert(v, ty); err != nil {
			b.Fatal(err)
		}
	}
}
