package runtime

import (
	"testing"

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
