package importer

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

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
