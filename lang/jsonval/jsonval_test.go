package jsonval

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// TestDecodeAsCtyjson: Decode gives what ctyjson's ImpliedType and
// Unmarshal give together.
func TestDecodeAsCtyjson(t *testing.T) {
	for _, text := range []string{
		`null`, `true`, `"héllo \u003c\n"`, `42`, `-0.5`, `1e400`, `123456789012345678901234567890`,
		`false`, `"plain / ascii ~"`, `0`, `-7`, `999999999999999999`, `1000000000000000000`, `-123456789012345678`, " [ 1 ,\n{ \"k\" : [ ] } ]\t", `"\ud83d\ude00 caf\u00e9 é \u0000"`, `""`, `-0`, `0.5e-3`, `7E+2`, ` 1`, `"x" `,
		`[]`, `{}`, `[1, "a", null, [true]]`, `{"a": {"b": [1, 2.5]}, "c": null, "": "empty key"}`,
	} {
		got, err := Decode([]byte(text))
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		ty, err := ctyjson.ImpliedType([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		want, err := ctyjson.Unmarshal([]byte(text), ty)
		if err != nil {
			t.Fatal(err)
		}
		if !got.RawEquals(want) {
			t.Errorf("%s: %#v, want %#v", text, got, want)
		}
		if got.Type() == cty.Number {
			// The same precision too, which arithmetic on it keeps.
			g, w := got.AsBigFloat(), want.AsBigFloat()
			if g.Prec() != w.Prec() || g.Mode() != w.Mode() || g.Signbit() != w.Signbit() {
				t.Errorf("%s: precision %d, mode %v, sign %v; want %d, %v, %v", text, g.Prec(), g.Mode(), g.Signbit(), w.Prec(), w.Mode(), w.Signbit())
			}
		}
	}
	if v, err := Decode([]byte(`{"a": 1, "a": 2}`)); err != nil || !v.GetAttr("a").RawEquals(cty.NumberIntVal(2)) {
		t.Errorf("repeated keys: %#v, %v; want the last to win", v, err)
	}
	if v, err := Decode([]byte("\"\xff\"")); err != nil || v.AsString() != "\ufffd" {
		t.Errorf("invalid UTF-8: %#v, %v; want U+FFFD", v, err)
	}
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := Decode([]byte(deep)); err != nil {
		t.Errorf("%d levels: %v", maxDepth, err)
	}
	for _, bad := range []string{``, `{`, `[1,]`, `1 2`, `{"a":1} x`,
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), `{"a" 1}`, `{1: 2}`, `[1 2]`, `{"a":1,}`,
		`01`, `-`, `1.`, `.5`, `+1`, `1e`, `"open`, `"a"b"`, "\"tab\t\"", `nul`, `True`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) succeeded", bad)
		}
	}
}

// TestDecodeSplit: an array read on several goroutines (arrayParallel,
// here from any size) gives what reading it in one goes does, and the
// same texts fail.
func TestDecodeSplit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items": [`)
	for i := range 2000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"id": %d, "name": "it\"em ] %d, {\\", "tags": [%d, "[", "}"], "o": {"a": [[]]}}`, i, i, i)
	}
	b.WriteString("], \"after\": [1, 2]}")
	valid := []string{b.String(), `[1, "a", null, [true]]`, " [ 1 ,\n{ \"k\" : [ ] } ]\t", `[[1], [2, [3]]]`,
		`["]", "\\", "\"]"]`, strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)}
	bad := []string{`[1,]`, `[1 2]`, `[,1]`, `[1,,2]`, `[1, 2`, `["a]`, `[1}`, `[{"a": 1]`, `[1] x`, `[01]`,
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)}
	// Decode reads a text it cannot read again through encoding/json, so
	// the decoder is called as Decode calls it, without that.
	decode := func(text string, min int) (cty.Value, error) {
		defer func(old int) { parallelMin = old }(parallelMin)
		parallelMin = min
		d := decoder{text: []byte(text)}
		d.space()
		v, err := d.value(0)
		if d.space(); err == nil && d.i < len(d.text) {
			err = errSyntax
		}
		return v, err
	}
	for _, text := range valid {
		want, err := decode(text, math.MaxInt)
		if err != nil {
			t.Fatalf("%.40s: %v", text, err)
		}
		got, err := decode(text, 0)
		if err != nil || !got.RawEquals(want) {
			t.Errorf("%.40s: split %#v, %v; want %#v", text, got, err, want)
		}
	}
	for _, text := range bad {
		if _, err := decode(text, 0); err == nil {
			t.Errorf("%s: read split", text)
		}
	}
}

// TestAppendRoundTrip: what Append writes reads back with Decode (and with
// ctyjson) as the same value, after conversion to the value's type;
// strings are escaped as encoding/json escapes them.
func TestAppendRoundTrip(t *testing.T) {
	huge, _, _ := big.ParseFloat("123456789012345678901234567890.125", 10, 512, big.ToNearestEven)
	third := cty.NumberIntVal(1).Divide(cty.NumberIntVal(3))
	for _, v := range []cty.Value{
		cty.StringVal("héllo \"quoted\" \\ <b>&</b> \u2028 \x01"),
		cty.NumberIntVal(-42), cty.NumberFloatVal(0.1), cty.NumberVal(huge), third,
		cty.True, cty.NullVal(cty.String),
		cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}),
		cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")}),
		cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.NumberIntVal(1), cty.NullVal(cty.Bool)}),
		cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v")}),
		cty.ObjectVal(map[string]cty.Value{"a": cty.EmptyObjectVal, "b": cty.ListValEmpty(cty.String)}),
	} {
		b, err := Marshal(v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		want, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		back, err := ctyjson.Unmarshal(b, v.Type())
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !back.RawEquals(v) {
			t.Errorf("%s reads back as %#v, want %#v", b, back, v)
		}
		if v.Type() == cty.String && string(b) != string(want) {
			t.Errorf("string %s, encoding/json writes %s", b, want)
		}
	}
	for _, s := range []string{"", "plain", "tab\tnew\nline\r\b\f\x00\x1f\x7f", "bad \xff utf-8 \xc3", "emoji 😀", strings.Repeat("é", 100)} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
	// Objects' attributes are written in order, however many there are.
	attrs := map[string]cty.Value{}
	for _, n := range []string{"k", "b", "j", "a", "i", "c", "h", "d", "g", "e", "f"} {
		attrs[n] = cty.StringVal(n)
	}
	attrs["f"] = cty.ObjectVal(map[string]cty.Value{"z": cty.NumberIntVal(2), "y": cty.True})
	for _, v := range []cty.Value{cty.ObjectVal(attrs), cty.ObjectVal(map[string]cty.Value{"b": cty.NumberIntVal(1), "a": cty.StringVal("x")})} {
		want, _ := ctyjson.Marshal(v, v.Type())
		if got, err := Marshal(v); err != nil || string(got) != string(want) {
			t.Errorf("Marshal = %s, %v; want %s", got, err, want)
		}
		if h := SizeHint(v); h < len(want) {
			t.Errorf("SizeHint = %d for %d bytes", h, len(want))
		}
	}
	if _, err := Append(nil, cty.UnknownVal(cty.String)); err == nil {
		t.Error("an unknown value was written")
	}
	if _, err := Append(nil, cty.StringVal("x").Mark("m")); err == nil {
		t.Error("a marked value was written")
	}
}

// TestMarshalAttrs: the JSON of a map of attributes is that of their
// object, keys in order, escaped; a value that cannot be written fails it.
func TestMarshalAttrs(t *testing.T) {
	attrs := map[string]cty.Value{
		"b":        cty.ListVal([]cty.Value{cty.NumberIntVal(1)}),
		"a":        cty.StringVal("x"),
		"quote\"é": cty.NullVal(cty.Number),
		"obj":      cty.ObjectVal(map[string]cty.Value{"z": cty.True, "y": cty.NumberFloatVal(0.5)}),
	}
	want, err := Marshal(cty.ObjectVal(attrs))
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalAttrs(attrs)
	if err != nil || string(got) != string(want) {
		t.Errorf("MarshalAttrs = %s, %v; want %s", got, err, want)
	}
	if got, err := MarshalAttrs(nil); err != nil || string(got) != "{}" {
		t.Errorf("MarshalAttrs(nil) = %s, %v", got, err)
	}
	if _, err := MarshalAttrs(map[string]cty.Value{"u": cty.UnknownVal(cty.String)}); err == nil {
		t.Error("an unknown value was written")
	}
}

// TestDecodeAttrs: the members of an object, each as Decode reads it,
// with escapes and repeated keys; anything but an object is an error.
func TestDecodeAttrs(t *testing.T) {
	for _, text := range []string{`{}`, ` { } `, `{"a":1,"b":[true,null],"c":{"d":"e"}}`, `{"q\"":"\u00e9","a":1,"a":2}`} {
		want, err := Decode([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeAttrs([]byte(text))
		if err != nil || got == nil || len(got) != len(want.AsValueMap()) {
			t.Fatalf("%s: %v, %v", text, got, err)
		}
		for k, v := range want.AsValueMap() {
			if !got[k].RawEquals(v) {
				t.Errorf("%s: %s = %#v, want %#v", text, k, got[k], v)
			}
		}
	}
	for _, text := range []string{`[1]`, `"x"`, `{"a":1`, `{"a":1} 2`, ``} {
		if got, err := DecodeAttrs([]byte(text)); err == nil {
			t.Errorf("%q: %v, no error", text, got)
		}
	}
}

// TestValueEnd: the end of a value follows strings (with escapes) and
// brackets; a scalar ends at the next delimiter; text that ends first is
// not ok.
func TestValueEnd(t *testing.T) {
	for text, want := range map[string]int{
		`{"a":"}",\"b":[1,{}]},x`: 21, `"q\"," ,`: 6, `12 ,3`: 3, `[]]`: 2, `true}`: 4,
	} {
		if end, ok := ValueEnd([]byte(text), 0); !ok || end != want {
			t.Errorf("ValueEnd(%s) = %d, %v; want %d", text, end, ok, want)
		}
	}
	for _, text := range []string{`{"a":1`, `"abc`, `[[1]`, `12`} {
		if end, ok := ValueEnd([]byte(text), 0); ok {
			t.Errorf("ValueEnd(%s) = %d, ok", text, end)
		}
	}
}
