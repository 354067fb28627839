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
	byIndex := []instance{{key: Key{Value: cty.NumberIntVal(0)}}, {key: Key{Value: cty.NumberIntVal(1)}}}
	byKey := []instance{{key: Key{Value: cty.StringVal("a")}}, {key: Key{Value: cty.StringVal("b")}}}
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

// TestForEachFailedInstanceIsNull: a failed instance of a for_each step
// with on_error = "continue" is null, so r == null counts the failures;
// the instances that succeeded keep their outputs, and a step without
// for_each that fails keeps an object of null outputs.
func TestForEachFailedInstanceIsNull(t *testing.T) {
	prog := compile(t, `flow "f" {}
input "items" {
  type    = list(string)
  default = ["1", "x", "3"]
}
step "each" {
  use      = "value"
  for_each = input.items
  value    = tonumber(each.value)
  on_error = "continue"
}
step "one" {
  use      = "value"
  value    = tonumber(input.items[1])
  on_error = "continue"
}
output "failures" {
  value = length([for r in step.each : r if r == null])
}
output "ok" {
  value = [for r in step.each : r.value if r != null]
}
output "one" {
  value = step.one.value == null
}
`)
	res, _ := apply(t, prog, Options{})
	if res.Status != StatusOK {
		t.Fatalf("%s %s", res.Status, DiagText(res.Diagnostics))
	}
	if got := res.Outputs["failures"]; !got.RawEquals(cty.NumberIntVal(1)) {
		t.Errorf("failures = %#v, want 1", got)
	}
	if got := res.Outputs["ok"]; !got.RawEquals(cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(3)})) {
		t.Errorf("ok = %#v", got)
	}
	if got := res.Outputs["one"]; !got.RawEquals(cty.True) {
		t.Errorf("one = %#v", got)
	}
}

// TestMachineFailedInstanceIsNull: the same through a Machine, as the
// Temporal engine drives it: an instance the engine reports failed is
// null in the step's value.
func TestMachineFailedInstanceIsNull(t *testing.T) {
	prog := compile(t, `flow "f" {}
step "fetch" {
  use      = "http"
  for_each = ["http://127.0.0.1:1/a", "http://127.0.0.1:1/b"]
  url      = each.value
  on_error = "continue"
}
output "failures" {
  value = length([for r in step.fetch : r if r == null])
}
`)
	m, diags := NewMachine(prog, MachineOptions{RunID: "r1"})
	if diags.HasErrors() {
		t.Fatal(DiagText(diags))
	}
	tasks := m.Start()
	if len(tasks) != 2 {
		t.Fatalf("%d tasks", len(tasks))
	}
	ok := nullOutputs(tasks[0].Step)
	attrs := ok.AsValueMap()
	attrs["text"] = cty.StringVal("page")
	m.Done(tasks[0].ID, Outcome{Status: StatusOK, Outputs: cty.ObjectVal(attrs)})
	m.Done(tasks[1].ID, Outcome{Status: StatusFailed, Error: "connection refused"})
	if !m.Finished() {
		t.Fatal("not finished")
	}
	if v := m.Value(prog.StepsByName["fetch"]); !v.Index(cty.NumberIntVal(1)).IsNull() || v.Index(cty.NumberIntVal(0)).IsNull() {
		t.Errorf("fetch = %#v", v)
	}
	res, _ := m.Result()
	if res.Status != StatusOK || !res.Outputs["failures"].RawEquals(cty.NumberIntVal(1)) {
		t.Errorf("%s %#v %s", res.Status, res.Outputs, DiagText(res.Diagnostics))
	}
}
