package llm

import (
	"testing"

	"github.com/flowctl/flowctl/lang"
)

func TestOutputSchema(t *testing.T) {
	tests := []struct {
		typ    string
		strict bool
		want   string // the schema of field "v"
	}{
		{"string", true, `{"type":"string"}`},
		{"bool", true, `{"type":"boolean"}`},
		{"list(number)", true, `{"type":"array","items":{"type":"number"}}`},
		{"set(string)", true, `{"type":"array","items":{"type":"string"}}`},
		{"object({b = string, a = list(bool)})", true,
			`{"type":"object","properties":{"a":{"type":"array","items":{"type":"boolean"}},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false}`},
		{"object({a = optional(string), b = optional(object({c = number}))})", true,
			`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"object","properties":{"c":{"type":"number"}},"required":["c"],"additionalProperties":false},{"type":"null"}]}},"required":["a","b"],"additionalProperties":false}`},
		{"map(string)", false, `{"type":"object","additionalProperties":{"type":"string"}}`},
		{"tuple([string, number])", false, `{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}],"minItems":2,"maxItems":2}`},
		{"any", false, `{}`},
		{"list(any)", false, `{"type":"array","items":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			s := outputSchema([]*lang.Field{typeField(t, "v", tt.typ)})
			want := `{"type":"object","properties":{"v":` + tt.want + `},"required":["v"],"additionalProperties":false}`
			if string(s.JSON) != want {
				t.Errorf("schema =\n%s\nwant\n%s", s.JSON, want)
			}
			if s.Strict != tt.strict {
				t.Errorf("strict = %v, want %v", s.Strict, tt.strict)
			}
		})
	}
}

func TestOutputSchemaKeepsFieldOrder(t *testing.T) {
	z, a := typeField(t, "z", "string"), typeField(t, "a", "number")
	z.Description = "last letter"
	s := outputSchema([]*lang.Field{z, a})
	want := `{"type":"object","properties":{"z":{"description":"last letter","type":"string"},"a":{"type":"number"}},"required":["z","a"],"additionalProperties":false}`
	if string(s.JSON) != want {
		t.Errorf("schema =\n%s\nwant\n%s", s.JSON, want)
	}
}

func TestSchemaName(t *testing.T) {
	for in, want := range map[string]string{
		"summarize":              "summarize",
		"my block.v2":            "my_block_v2",
		"":                       "output",
		string(make([]byte, 70)): "________________________________________________________________",
	} {
		if got := schemaName(in); got != want {
			t.Errorf("schemaName(%q) = %q, want %q", in, got, want)
		}
	}
}
