package runtime

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestEncodeRoundTrip checks that stored values come back as the same cty
// values, numbers of every kind included.
func TestEncodeRoundTrip(t *testing.T) {
	huge, _, _ := big.ParseFloat("123456789012345678901234567890.125", 10, 512, big.ToNearestEven)
	third := cty.NumberIntVal(1).Divide(cty.NumberIntVal(3))
	vals := []cty.Value{
		cty.StringVal("héllo \"quoted\" \n"),
		cty.NumberIntVal(-42),
		cty.NumberFloatVal(0.1),
		cty.NumberVal(huge),
		third,
		cty.True,
		cty.NullVal(cty.String),
		cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}),
		cty.ListValEmpty(cty.String),
		cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")}),
		cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.NumberIntVal(1), cty.NullVal(cty.Bool)}),
		cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v")}),
		cty.ObjectVal(map[string]cty.Value{
			"a": cty.NumberIntVal(1).Add(cty.NumberIntVal(1)),
			"b": cty.ObjectVal(map[string]cty.Value{"c": cty.ListVal([]cty.Value{cty.True})}),
		}),
		cty.EmptyObjectVal,
	}
	// More types than EncodeValue keeps the JSON of (recentTypes), some
	// alike but for one attribute's type, each encoded twice.
	for i := range 20 {
		attr := cty.Value(cty.NumberIntVal(int64(i)))
		if i%2 == 1 {
			attr = cty.StringVal(fmt.Sprint(i))
		}
		vals = append(vals, cty.ObjectVal(map[string]cty.Value{fmt.Sprint("a", i/2): attr}))
	}
	vals = append(vals, vals...)
	for _, v := range vals {
		raw, err := EncodeValue(v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		got, err := DecodeValue(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !got.RawEquals(v) && !(got.Type().Equals(cty.Number) && got.Equals(v).True()) {
			t.Errorf("round trip of %#v gave %#v (%s)", v, got, raw)
		}
	}
	if _, err := EncodeValue(cty.StringVal("x").Mark("m")); err == nil {
		t.Error("a marked value was encoded")
	}
	nested := cty.ObjectVal(map[string]cty.Value{"a": cty.ListVal([]cty.Value{cty.StringVal("x").Mark("m")})})
	if _, err := EncodeValue(nested); err == nil {
		t.Error("a value with a marked element was encoded")
	}
}
