package runtime

import (
	"reflect"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// TestAssemble: a for_each step's value is a list or a map when its
// instances' values have one type, else a tuple or an object.
func TestAssemble(t *testing.T) {
	out := func(v cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"value": v}) }
	byIndex := []instance{{key: Key{cty.NumberIntVal(0)}}, {key: Key{cty.NumberIntVal(1)}}}
	byKey := []instance{{key: Key{cty.StringVal("a")}}, {key: Key{cty.StringVal("b")}}}
	same := []cty.Value{out(cty.StringVal("x")), out(cty.StringVal("y"))}
	mixed := []cty.Value{out(cty.StringVal("x")), out(cty.NumberIntVal(2))}
	for _, c := range []struct {
		name      string
		instances []instance
		vals      []cty.Value
		isMap     bool
		want      cty.Value
	}{
		{"list", byIndex, same, false, cty.ListVal(same)},
		{"tuple", byIndex, mixed, false, cty.TupleVal(mixed)},
		{"map", byKey, same, true, cty.MapVal(map[string]cty.Value{"a": same[0], "b": same[1]})},
		{"object", byKey, mixed, true, cty.ObjectVal(map[string]cty.Value{"a": mixed[0], "b": mixed[1]})},
		{"no instances", nil, nil, false, cty.EmptyTupleVal},
		{"no keys", nil, nil, true, cty.EmptyObjectVal},
	} {
		if got := assemble(c.instances, c.vals, c.isMap); !got.RawEquals(c.want) {
			t.Errorf("%s: %#v, want %#v", c.name, got, c.want)
		}
	}
}

func TestSharedType(t *testing.T) {
	obj := func(v cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"value": v}) }
	var s sharedType
	first := obj(cty.StringVal("a"))
	if got := s.share(first); !got.RawEquals(first) {
		t.Fatalf("first: %#v", got)
	}
	// The same type takes the first's: cty's object type holds a map of
	// its attributes' types, the first's map.
	if got := s.share(obj(cty.StringVal("b"))); attrTypesMap(got.Type()) != attrTypesMap(first.Type()) {
		t.Error("the result of the same type has a type of its own")
	}
	for _, v := range []cty.Value{
		obj(cty.StringVal("b")),                   // the same type: takes the first's
		obj(cty.NullVal(cty.String)),              // a null of it
		obj(cty.NumberIntVal(2)),                  // another type: kept
		obj(cty.StringVal("c").Mark("sensitive")), // marked: kept
		cty.NullVal(cty.Object(map[string]cty.Type{"value": cty.String})),
	} {
		got := s.share(v)
		if !got.RawEquals(v) || !got.Type().Equals(v.Type()) {
			t.Errorf("share(%#v) = %#v", v, got)
		}
	}
}

// TestForEachOverInput: a for_each over an input is checked for secrets
// and unknowns by what newRun found in the input, without walking it
// again; a secret inside the input's value (as a parent flow may pass)
// still fails the step.
func TestForEachOverInput(t *testing.T) {
	prog := compile(t, `flow "f" {}
input "items" {
  type = list(string)
}
step "each" {
  use      = "value"
  for_each = input.items
  value    = upper(each.value)
}
output "out" {
  value = step.each[*].value
}
`)
	plain := cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})
	res, _ := apply(t, prog, Options{Inputs: map[string]cty.Value{"items": plain}})
	if res.Status != StatusOK || !res.Outputs["out"].RawEquals(cty.ListVal([]cty.Value{cty.StringVal("A"), cty.StringVal("B")})) {
		t.Fatalf("plain: %s %#v %s", res.Status, res.Outputs, DiagText(res.Diagnostics))
	}
	secret := cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("s3cret").Mark(lang.Sensitive)})
	res, _ = apply(t, prog, Options{Inputs: map[string]cty.Value{"items": secret}})
	if res.Status != StatusFailed || !strings.Contains(DiagText(res.Diagnostics), "Sensitive for_each") {
		t.Fatalf("secret: %s %s", res.Status, DiagText(res.Diagnostics))
	}
}

// attrTypesMap is the address of the map of an object type's attribute
// types.
func attrTypesMap(t cty.Type) uintptr {
	return reflect.ValueOf(t).Field(0).Elem().FieldByName("AttrTypes").Pointer()
}
