package jsonval

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// TestDecodeAs: a text that holds a value of the type as it is reads as
// converting what Decode gives does; anything else is left to Decode and
// the conversion (ok false).
func TestDecodeAs(t *testing.T) {
	rec := cty.ObjectWithOptionalAttrs(map[string]cty.Type{"id": cty.Number, "name": cty.String, "tags": cty.List(cty.String)}, []string{"tags"})
	for _, c := range []struct {
		text string
		ty   cty.Type
		ok   bool
	}{
		{`"a"`, cty.String, true},
		{`1.5e3`, cty.Number, true},
		{`true`, cty.Bool, true},
		{`null`, cty.String, true},
		{`[{"id": 1, "name": "a"}, {"id": 2, "name": "b\u00e9", "tags": ["x"]}]`, cty.List(rec), true},
		{`[]`, cty.List(rec), true},
		{`null`, cty.List(rec), true},
		{`{"m": {}, "r": {"id": 1, "name": "a"}}`, cty.Object(map[string]cty.Type{"m": cty.Map(rec), "r": rec}), true},
		{`["a", "b", "a"]`, cty.Set(cty.String), true},
		{`{"a": 1, "b": 2}`, cty.Map(cty.Number), true},
		{`{}`, cty.Map(cty.Number), true},
		{`{"a": [1, {"b": null}], "n": 2}`, cty.Object(map[string]cty.Type{"a": cty.DynamicPseudoType, "n": cty.Number}), true},
		{`[1, "a"]`, cty.DynamicPseudoType, true},
		{`1`, cty.String, false},                                         // converted: "1"
		{`[{"id": "1", "name": "a"}]`, cty.List(rec), false},             // converted
		{`[{"id": 1}]`, cty.List(rec), false},                            // name is missing
		{`[{"id": 1, "name": "a", "x": 1}]`, cty.List(rec), false},       // x is not an attribute
		{`[1, 2]`, cty.List(cty.DynamicPseudoType), false},               // list(any) unifies
		{`[1, 2]`, cty.Tuple([]cty.Type{cty.Number, cty.Number}), false}, // a tuple
		{`[1, 2`, cty.List(cty.Number), false},                           // not JSON
		{`"a" "b"`, cty.String, false},                                   // more after it
	} {
		got, ok := DecodeAs([]byte(c.text), c.ty)
		if ok != c.ok {
			t.Errorf("%s as %s: ok %v", c.text, c.ty.FriendlyName(), ok)
			continue
		}
		if !ok {
			continue
		}
		implied, err := Decode([]byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		want, err := convert.Convert(implied, c.ty)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if !got.RawEquals(want) {
			t.Errorf("%s as %s = %#v, want %#v", c.text, c.ty.FriendlyName(), got, want)
		}
	}
}

// TestDecodeAsParallel: a large array is read on several goroutines, in
// order; a record that does not fit leaves the whole to Decode.
func TestDecodeAsParallel(t *testing.T) {
	defer func(n int) { parallelMin = n }(parallelMin)
	parallelMin = 16
	text := []byte(`[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}, {"id": 4, "name": "d"}]`)
	rec := cty.Object(map[string]cty.Type{"id": cty.Number, "name": cty.String})
	got, ok := DecodeAs(text, cty.List(rec))
	implied, _ := Decode(text)
	want, _ := convert.Convert(implied, cty.List(rec))
	if !ok || !got.RawEquals(want) {
		t.Errorf("%#v, %v", got, ok)
	}
	if _, ok := DecodeAs([]byte(`[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3}, {"id": 4, "name": "d"}]`), cty.List(rec)); ok {
		t.Error("a record without name was read")
	}
}
