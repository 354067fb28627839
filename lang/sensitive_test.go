package lang

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestIsSensitive: IsSensitive finds a sensitive mark, ContainsMarked any
// mark and IsWhollyKnown an unknown value, at every depth and in every kind
// of value, as cty's HasMarkDeep, ContainsMarked and IsWhollyKnown do.
func TestIsSensitive(t *testing.T) {
	secret := cty.StringVal("s").Mark(Sensitive)
	other := cty.StringVal("o").Mark("other")
	obj := func(v cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"a": cty.NumberIntVal(1), "b": v})
	}
	cases := map[string]cty.Value{
		"plain":            cty.StringVal("x"),
		"other mark":       other,
		"top":              secret,
		"null":             cty.NullVal(cty.String),
		"marked null":      cty.NullVal(cty.String).Mark(Sensitive),
		"unknown":          cty.UnknownVal(cty.String),
		"marked unknown":   cty.UnknownVal(cty.String).Mark(Sensitive),
		"object":           obj(secret),
		"object plain":     obj(other),
		"list of objects":  cty.ListVal([]cty.Value{obj(cty.StringVal("x")), obj(secret)}),
		"list plain":       cty.ListVal([]cty.Value{obj(cty.StringVal("x")), obj(other)}),
		"list hoisted":     cty.ListVal([]cty.Value{cty.StringVal("x"), secret}),
		"tuple":            cty.TupleVal([]cty.Value{cty.True, obj(obj(secret))}),
		"map":              cty.MapVal(map[string]cty.Value{"k": obj(secret)}),
		"set":              cty.SetVal([]cty.Value{obj(secret)}),
		"marked object":    obj(cty.StringVal("x")).Mark(Sensitive),
		"unknown in tuple": cty.TupleVal([]cty.Value{cty.UnknownVal(cty.String), secret}),
		"empty list":       cty.ListValEmpty(cty.String),
		"other in list":    cty.ListVal([]cty.Value{obj(other)}),
		"unknown in list":  cty.ListVal([]cty.Value{obj(cty.StringVal("x")), obj(cty.UnknownVal(cty.String))}),
		"unknown in map":   cty.MapVal(map[string]cty.Value{"k": obj(cty.UnknownVal(cty.String).Mark("other"))}),
		"unknown list":     cty.UnknownVal(cty.List(cty.String)),
	}
	for name, v := range cases {
		if got, want := IsSensitive(v), v.HasMarkDeep(Sensitive); got != want {
			t.Errorf("%s: IsSensitive = %v, want %v", name, got, want)
		}
		if got, want := ContainsMarked(v), v.ContainsMarked(); got != want {
			t.Errorf("%s: ContainsMarked = %v, want %v", name, got, want)
		}
		if got, want := IsWhollyKnown(v), v.IsWhollyKnown(); got != want {
			t.Errorf("%s: IsWhollyKnown = %v, want %v", name, got, want)
		}
		if s, k := SensitiveAndKnown(v); s != v.HasMarkDeep(Sensitive) || k != v.IsWhollyKnown() {
			t.Errorf("%s: SensitiveAndKnown = %v, %v", name, s, k)
		}
	}
	if !IsSensitive(cases["list of objects"]) || IsSensitive(cases["list plain"]) {
		t.Error("a secret inside an object inside a list is not found, or a plain list is")
	}
}
