package llm

import (
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// typeField declares an output field from a type expression.
func typeField(t *testing.T, name, typ string) *lang.Field {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(typ), "type.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ty, defaults, diags := typeexpr.TypeConstraintWithDefaults(expr)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return &lang.Field{Name: name, Type: lang.TypeSpec{Type: ty, Defaults: defaults}}
}

func TestParseReply(t *testing.T) {
	tests := []struct {
		name, typ, reply string
		want             cty.Value // of field "v"
		err              string
	}{
		{"string", "string", `{"v": "x"}`, cty.StringVal("x"), ""},
		{"number from string", "number", `{"v": "42"}`, cty.NumberIntVal(42), ""},
		{"word for number", "number", `{"v": "many"}`, cty.NilVal, `.v: a number is required, not the string "many"`},
		{"missing field", "string", `{"w": "x"}`, cty.NilVal, `the field "v" is missing`},
		{"null field", "string", `{"v": null}`, cty.NilVal, `.v: a string is required, not null`},
		{"extra fields ignored", "string", `{"v": "x", "w": 1}`, cty.StringVal("x"), ""},
		{"list", "list(number)", `{"v": [1, 2]}`, cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}), ""},
		{"list element", "list(string)", `{"v": ["a", ["b"]]}`, cty.NilVal, `.v[1]: a string is required, not a list of 1 element`},
		{"object", "object({a = string, b = bool})", `{"v": {"a": "x", "b": true}}`,
			cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.True}), ""},
		{"nested missing", "object({a = string, b = bool})", `{"v": {"a": "x"}}`, cty.NilVal, `.v: the field "b" is missing`},
		{"nested bool", "object({a = string, b = bool})", `{"v": {"a": "x", "b": 3}}`, cty.NilVal, `.v.b: true or false is required, not the number 3`},
		{"optional absent", `object({a = string, b = optional(string, "dflt")})`, `{"v": {"a": "x"}}`,
			cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.StringVal("dflt")}), ""},
		{"optional null", `object({a = string, b = optional(number)})`, `{"v": {"a": "x", "b": null}}`,
			cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.NullVal(cty.Number)}), ""},
		{"map", "map(number)", `{"v": {"x": 1, "y": "z"}}`, cty.NilVal, `.v["y"]: a number is required, not the string "z"`},
		{"tuple", "tuple([string, number])", `{"v": ["a", 1, 2]}`, cty.NilVal, `.v: a list of exactly 2 elements is required, not a list of 3 elements`},
		{"any", "any", `{"v": {"deep": [1, "x"]}}`, cty.NilVal, ""},
		{"no object", "string", `I think the answer is x.`, cty.NilVal, "the reply has no JSON object"},
		{"cut off", "string", `{"v": "the answer is`, cty.NilVal, "the JSON object is incomplete: a closing } is missing"},
		{"invalid", "string", `{"v": 'x'}`, cty.NilVal, "the JSON object is invalid: invalid character '\\'' looking for beginning of value (at character 7 of the object)"},
		{"fence without newline", "string", "```{\"v\": \"x\"}```", cty.StringVal("x"), ""},
		{"fence then prose with braces", "string", "```json\n{\"v\": \"x\"}\n```\nNote: {braces}", cty.StringVal("x"), ""},
		{"escaped quote", "string", `{"v": "say \"}\" twice",}`, cty.StringVal(`say "}" twice`), ""},
		{"second object", "string", `Use {curly} braces: {"v": "x"}`, cty.StringVal("x"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := parseReply(tt.reply, []*lang.Field{typeField(t, "v", tt.typ)})
			switch {
			case tt.err != "":
				if err == nil || err.Error() != tt.err {
					t.Errorf("error = %v\nwant    %s", err, tt.err)
				}
			case err != nil:
				t.Errorf("error: %v", err)
			case tt.want != cty.NilVal && !out["v"].RawEquals(tt.want):
				t.Errorf("v = %#v\nwant %#v", out["v"], tt.want)
			}
		})
	}
}

func TestParseReplyListsSeveralProblems(t *testing.T) {
	fields := []*lang.Field{typeField(t, "a", "string"), typeField(t, "b", "number")}
	_, err := parseReply(`{"b": [1]}`, fields)
	want := `the field "a" is missing; .b: a number is required, not a list of 1 element`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestRemoveTrailingCommas(t *testing.T) {
	tests := map[string]string{
		`{"a": [1, 2,], }`:      `{"a": [1, 2] }`,
		`{"a": ",]", "b": 1 ,}`: `{"a": ",]", "b": 1 }`,
		`{"a": 1}`:              `{"a": 1}`,
	}
	for in, want := range tests {
		if got := removeTrailingCommas(in); got != want {
			t.Errorf("removeTrailingCommas(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestOptionalOutputs: an output declared optional = true may be null in
// the reply, or left out; the schema says it is nullable. One that is not
// optional may not be null (the model is asked again).
func TestOptionalOutputs(t *testing.T) {
	maybe := typeField(t, "maybe", "string")
	maybe.Optional = true
	fields := []*lang.Field{typeField(t, "v", "string"), maybe}
	for _, reply := range []string{`{"v": "x", "maybe": null}`, `{"v": "x"}`} {
		got, err := parseReply(reply, fields)
		if err != nil || !got["maybe"].RawEquals(cty.NullVal(cty.String)) || got["v"].AsString() != "x" {
			t.Errorf("%s: %v, %v", reply, got, err)
		}
	}
	if _, err := parseReply(`{"v": null, "maybe": "y"}`, fields); err == nil || err.Error() != ".v: a string is required, not null" {
		t.Errorf("a null v: %v", err)
	}
	s := outputSchema(fields)
	if want := `{"type":"object","properties":{"v":{"type":"string"},"maybe":{"type":["string","null"]}},"required":["v","maybe"],"additionalProperties":false}`; string(s.JSON) != want || !s.Strict {
		t.Errorf("schema %s", s.JSON)
	}
}
