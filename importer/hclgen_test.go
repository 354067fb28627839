package importer

import (
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// TestHeredocInsideExpressions: text of several lines ending in a newline
// is a heredoc; one inside a call, a list, an object, an index or an
// interpolation is followed by a newline, so that its closing marker stands
// alone on its line (an Edit Fields value converted as
// try(jsondecode(<<EOT ...), <<EOT ...), and a Basic LLM Chain's prompt as
// try(<<EOT ..., null), in importer/testdata/real/oxbshw+ultimate-n8n-ai-
// workflows/automation__1934… and automation__1651…, did not parse).
func TestHeredocInsideExpressions(t *testing.T) {
	text := "[\n  \"a\"\n]\n"
	doc := Text(text)
	cases := map[string]Expr{
		"call":   Call("try", Call("jsondecode", doc), doc),
		"null":   Call("try", doc, Code("null")),
		"tuple":  Tuple([]Expr{doc, doc}),
		"object": Object([]Member{{Name: "a", Value: doc}, {Name: "b", Value: Code("1")}}),
		"join":   Join("[", doc, ", 1][0]"),
		"index":  Index(Join("{ a = 1, b = ", doc, " }"), "b"),
		"interp": Template([]TPart{{Lit: "x "}, {Expr: Call("upper", doc)}}, false),
		"alone":  doc,
	}
	want := map[string]cty.Value{
		"call":   cty.TupleVal([]cty.Value{cty.StringVal("a")}),
		"null":   cty.StringVal(text),
		"tuple":  cty.TupleVal([]cty.Value{cty.StringVal(text), cty.StringVal(text)}),
		"object": cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal(text), "b": cty.NumberIntVal(1)}),
		"join":   cty.StringVal(text),
		"index":  cty.StringVal(text),
		"interp": cty.StringVal("x " + "[\n  \"A\"\n]\n"),
		"alone":  cty.StringVal(text),
	}
	for name, e := range cases {
		f := hclwrite.NewEmptyFile()
		f.Body().SetAttributeRaw("v", Clone(e))
		f.Body().SetAttributeValue("after", cty.True)
		out, d := lang.Format(f.Bytes(), name+".hcl")
		if d.HasErrors() {
			t.Errorf("%s: %s\n%s", name, d.Error(), f.Bytes())
			continue
		}
		file, d := hclsyntax.ParseConfig(out, name+".hcl", hcl.InitialPos)
		if d.HasErrors() {
			t.Errorf("%s: %s\n%s", name, d.Error(), out)
			continue
		}
		attrs, _ := file.Body.JustAttributes()
		v, d := attrs["v"].Expr.Value(&hcl.EvalContext{Functions: lang.Functions(t.TempDir())})
		if d.HasErrors() {
			t.Errorf("%s: %s\n%s", name, d.Error(), out)
			continue
		}
		if !v.RawEquals(want[name]) {
			t.Errorf("%s = %#v, want %#v\n%s", name, v, want[name], out)
		}
	}
}

// A text of several lines that ends with a newline is a heredoc without
// chomp; its closing marker ends its line, so as a call's argument with
// another after it, it is in parentheses and what follows goes on the
// next line. An n8n IF node's startswith over such a value (in the
// corpus's oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0569_Executeworkflow_Telegram_Update_Triggered.json)
// wrote HCL that did not parse.
func TestHeredocInsideACall(t *testing.T) {
	text := Template([]TPart{{Expr: Code("x")}, {Lit: "\nend\n"}}, false)
	f := hclwrite.NewEmptyFile()
	f.Body().SetAttributeRaw("a", Clone(Call("format", Str("%s|%s"), text, Str("/"))))
	src := hclwrite.Format(f.Bytes())
	file, diags := hclsyntax.ParseConfig(src, "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	attrs, _ := file.Body.JustAttributes()
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"x": cty.StringVal("/go")},
		Functions: map[string]function.Function{"format": stdlib.FormatFunc}}
	v, diags := attrs["a"].Expr.Value(ctx)
	if diags.HasErrors() || v != cty.StringVal("/go\nend\n|/") {
		t.Errorf("%#v %s\n%s", v, diags.Error(), src)
	}
}
