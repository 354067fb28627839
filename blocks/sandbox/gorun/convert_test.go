package gorun

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestInputValues(t *testing.T) {
	in := map[string]cty.Value{
		"set":  cty.SetVal([]cty.Value{cty.StringVal("a")}),
		"map":  cty.MapVal(map[string]cty.Value{"k": cty.NumberFloatVal(0.5)}),
		"tup":  cty.TupleVal([]cty.Value{cty.True, cty.NullVal(cty.String)}),
		"null": cty.NullVal(cty.String),
	}
	got, err := inputValues(in)
	if err != nil {
		t.Fatal(err)
	}
	if s := got["set"].([]any); len(s) != 1 || s[0] != "a" {
		t.Errorf("set = %#v", got["set"])
	}
	if m := got["map"].(map[string]any); m["k"] != 0.5 {
		t.Errorf("map = %#v", got["map"])
	}
	if tu := got["tup"].([]any); tu[0] != true || tu[1] != nil {
		t.Errorf("tup = %#v", got["tup"])
	}
	if got["null"] != nil {
		t.Errorf("null = %#v", got["null"])
	}
	if _, err := inputValues(map[string]cty.Value{"u": cty.ObjectVal(map[string]cty.Value{"a": cty.UnknownVal(cty.String)})}); err == nil || err.Error() != `input "u.a" is not known` {
		t.Errorf("unknown: %v", err)
	}
}
