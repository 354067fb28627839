package compiler

import (
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// checkSplats reports step.NAME[*] where NAME's for_each is a map or
// object: its instances are a map by key, and HCL's splat works only on
// sequences (on a map it would look up the attribute as a key of the map).
func (c *compilation) checkSplats(expr hcl.Expression) hcl.Diagnostics {
	var diags hcl.Diagnostics
	visit(expr, func(splat *hclsyntax.SplatExpr) {
		src, ok := splat.Source.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(src.Traversal) != 2 || src.Traversal.RootName() != lang.RootStep {
			return
		}
		ref, _ := lang.ParseRef(src.Traversal)
		target := c.prog.StepsByName[ref.Name]
		if target == nil || target.Value == NilValue || !target.Value.Type().IsMapType() {
			return
		}
		diags = append(diags, lang.Error(hcl.RangeBetween(src.SrcRange, splat.MarkerRange), "Splat over a keyed step",
			"Step %q has for_each over a map, so step.%s is a map of instances by key and [*] cannot list them. Use values(step.%s)[*].FIELD, or a for expression such as [for k, v in step.%s : v.FIELD].",
			ref.Name, ref.Name, ref.Name, ref.Name)...)
	})
	return diags
}

// visit calls fn for every node of type T in expr's syntax tree.
func visit[T hclsyntax.Node](expr hcl.Expression, fn func(T)) {
	node, ok := expr.(hclsyntax.Node)
	if !ok {
		return
	}
	hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		if t, ok := n.(T); ok {
			fn(t)
		}
		return nil
	})
}
