package compiler

import (
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestEachTraversal: each.key and each.value, with attributes and indexes
// after them, evaluate without a context to what they evaluate to in one,
// marks included; other expressions, and traversals that fail, are left to
// the evaluation in a context.
func TestEachTraversal(t *testing.T) {
	each := &Each{
		Key: cty.NumberIntVal(3),
		Value: cty.ObjectVal(map[string]cty.Value{
			"name":   cty.StringVal("ada"),
			"tags":   cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
			"secret": cty.StringVal("s3cr3t").Mark(lang.Sensitive),
		}),
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{
		"each": cty.ObjectVal(map[string]cty.Value{"key": each.Key, "value": each.Value}),
	}}
	for _, src := range []string{"each.value", "each.key", "each.value.name", "each.value.tags[1]", "each.value.secret", `each.value["name"]`} {
		expr := mustExpr(t, src)
		want, diags := expr.Value(ctx)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got, ok := eachTraversal(expr, each)
		if !ok || !got.RawEquals(want) {
			t.Errorf("%s = %#v, %v; want %#v", src, got, ok, want)
		}
	}
	for _, src := range []string{"each.value.missing", "each.value.tags[5]", "each.other", `upper(each.value.name)`, "input.x", "each"} {
		if v, ok := eachTraversal(mustExpr(t, src), each); ok {
			t.Errorf("%s was evaluated without a context: %#v", src, v)
		}
	}
	if _, ok := eachTraversal(mustExpr(t, "each.value"), nil); ok {
		t.Error("each.value outside a for_each was evaluated")
	}
}

func mustExpr(t *testing.T, src string) hcl.Expression {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return expr
}
