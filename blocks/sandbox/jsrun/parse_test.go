package jsrun

import (
	"math/big"
	"strconv"
	"testing"

	"github.com/dop251/goja"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// TestFromJSON: the value read from a value's JSON text is the value
// toJS makes of it, down to own "__proto__" keys and numbers past
// float64's range; bad text is an error.
func TestFromJSON(t *testing.T) {
	huge, _ := new(big.Float).SetString("1e400")
	values := []cty.Value{
		cty.EmptyObjectVal,
		cty.ObjectVal(map[string]cty.Value{
			"item": cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(7), "name": cty.StringVal("item 7")}),
		}),
		cty.ObjectVal(map[string]cty.Value{
			"s":         cty.StringVal("quote \" backslash \\ tab \t nl \n é 😀 \u2028"),
			"n":         cty.NumberFloatVal(-1.5e-7),
			"big":       cty.NumberVal(huge),
			"int":       cty.NumberIntVal(9007199254740993),
			"t":         cty.True,
			"null":      cty.NullVal(cty.String),
			"list":      cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}),
			"empty":     cty.ListValEmpty(cty.String),
			"map":       cty.MapVal(map[string]cty.Value{"b": cty.StringVal("2"), "a": cty.StringVal("1")}),
			"__proto__": cty.ObjectVal(map[string]cty.Value{"polluted": cty.True}),
			"tuple":     cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.ObjectVal(map[string]cty.Value{"deep": cty.ListVal([]cty.Value{cty.False})})}),
		}),
	}
	for _, v := range values {
		text, err := jsonval.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		rt := goja.New()
		want, err := toJS(rt, v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fromJSON(rt, text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		w, _, _ := jsonText(rt, want)
		g, _, _ := jsonText(rt, got)
		if string(g) != string(w) {
			t.Errorf("from %s:\n got %s\nwant %s", text, g, w)
		}
		if err := rt.Set("got", got); err != nil {
			t.Fatal(err)
		}
		ownProto := v.Type().IsObjectType() && v.Type().HasAttribute("__proto__")
		own, err := rt.RunString(`Object.getPrototypeOf(got) === Object.prototype && got.polluted === undefined && Object.prototype.hasOwnProperty.call(got, '__proto__') === ` + strconv.FormatBool(ownProto))
		if err != nil || !own.ToBoolean() {
			t.Errorf("from %s: not an ordinary object with own keys (%v)", text, err)
		}
	}
	for _, bad := range []string{``, `{`, `{"a" 1}`, `[1,]`, `"abc`, `{"a":1} x`, `tru`, `{1:2}`} {
		if _, err := fromJSON(goja.New(), []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
