package lsp

import (
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Kinds of names that references, rename and semantic tokens know.
const (
	kindStep   = "step"
	kindInput  = "input"
	kindSecret = "secret"
	kindLocal  = "local"
	kindMemory = "memory"
	kindOutput = "output"
	kindBlock  = "block"
	kindFlow   = "flow"
	// kindField is step.S.FIELD: an output of the step S's block; kindArg
	// an argument of step S (an input of its block).
	kindField = "field"
	kindArg   = "arg"
	// kindPath is a name in a test's step path (override "step.a.b",
	// a mock's step = "a.b"): owner is the path up to and with it, which
	// names a step of the test's flow or of a flow under it.
	kindPath = "path"
)

// occurrence is one place a name stands in a file: its declaration or a
// reference to it.
type occurrence struct {
	kind  string
	name  string
	owner string    // the step of a field or an argument
	rng   hcl.Range // the name itself
	decl  bool
}

// flowOccurrences lists the names of a flow (or block) file's syntax
// tree: declarations, references in every expression, the blocks and
// flows steps use, and steps' arguments.
func flowOccurrences(f *hcl.File) []occurrence {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []occurrence
	for _, b := range body.Blocks {
		switch b.Type {
		case kindStep, kindInput, kindSecret, kindMemory, kindOutput, kindBlock:
			if len(b.Labels) == 1 {
				out = append(out, occurrence{kind: b.Type, name: b.Labels[0], rng: labelInner(b.LabelRanges[0]), decl: true})
			}
		case "locals":
			for _, a := range b.Body.Attributes {
				out = append(out, occurrence{kind: kindLocal, name: a.Name, rng: a.NameRange, decl: true})
			}
		}
		step := ""
		if b.Type == kindStep && len(b.Labels) == 1 {
			step = b.Labels[0]
		}
		out = append(out, bodyOccurrences(b.Body, b.Type, step)...)
	}
	return out
}

// bodyOccurrences lists the references of a block's body (and its nested
// blocks').
func bodyOccurrences(body *hclsyntax.Body, blockType, step string) []occurrence {
	var out []occurrence
	for _, a := range body.Attributes {
		switch {
		case step != "" && a.Name == "use":
			if v, ok := stringValue(a.Expr); ok {
				r := labelInner(a.Expr.Range())
				if name, isFlow := strings.CutPrefix(v, "flow."); isFlow {
					r.Start.Byte += len("flow.")
					r.Start.Column += len("flow.")
					out = append(out, occurrence{kind: kindFlow, name: name, rng: r})
				} else {
					out = append(out, occurrence{kind: kindBlock, name: v, rng: r})
				}
			}
			continue
		case step != "" && !lang.IsMetaArgument(a.Name):
			out = append(out, occurrence{kind: kindArg, name: a.Name, owner: step, rng: a.NameRange})
		case (blockType == "schedule" || blockType == "trigger" || blockType == "test") && a.Name == "inputs":
			out = append(out, objectKeys(a.Expr, kindInput)...)
		}
		out = append(out, exprOccurrences(a.Expr, a.Name == "tools")...)
	}
	for _, b := range body.Blocks {
		out = append(out, bodyOccurrences(b.Body, b.Type, step)...)
	}
	return out
}

// objectKeys are the keys of an object constructor, as names of kind.
func objectKeys(e hclsyntax.Expression, kind string) []occurrence {
	obj, ok := e.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil
	}
	var out []occurrence
	for _, item := range obj.Items {
		k, ok := item.KeyExpr.(*hclsyntax.ObjectConsKeyExpr)
		if !ok {
			continue
		}
		if tr, ok := k.Wrapped.(*hclsyntax.ScopeTraversalExpr); ok && len(tr.Traversal) == 1 {
			out = append(out, occurrence{kind: kind, name: tr.Traversal.RootName(), rng: tr.SrcRange})
		}
	}
	return out
}

// exprOccurrences lists the references of an expression. In a tools
// list, flow.NAME and block.NAME name flows and blocks.
func exprOccurrences(e hclsyntax.Expression, tools bool) []occurrence {
	var out []occurrence
	for _, tr := range e.Variables() {
		if len(tr) < 2 {
			continue
		}
		attr, ok := tr[1].(hcl.TraverseAttr)
		if !ok {
			continue
		}
		root := tr.RootName()
		switch root {
		case lang.RootInput, lang.RootSecret, lang.RootLocal, lang.RootMemory, kindOutput:
			out = append(out, occurrence{kind: root, name: attr.Name, rng: nameRange(tr[1])})
		case lang.RootStep:
			out = append(out, occurrence{kind: kindStep, name: attr.Name, rng: nameRange(tr[1])})
			rest := tr[2:]
			if len(rest) > 0 {
				if _, isIndex := rest[0].(hcl.TraverseIndex); isIndex {
					rest = rest[1:]
				} else if _, isSplat := rest[0].(hcl.TraverseSplat); isSplat {
					rest = rest[1:]
				}
			}
			if len(rest) > 0 {
				if f, ok := rest[0].(hcl.TraverseAttr); ok {
					out = append(out, occurrence{kind: kindField, name: f.Name, owner: attr.Name, rng: nameRange(rest[0])})
				}
			}
		case lang.ToolFlow, lang.ToolBlock:
			if tools {
				out = append(out, occurrence{kind: root, name: attr.Name, rng: nameRange(tr[1])})
			}
		}
	}
	// step.S[*].FIELD: the splat's field is a relative traversal.
	hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		sp, ok := n.(*hclsyntax.SplatExpr)
		if !ok {
			return nil
		}
		src, ok := sp.Source.(*hclsyntax.ScopeTraversalExpr)
		rel, ok2 := sp.Each.(*hclsyntax.RelativeTraversalExpr)
		if !ok || !ok2 || src.Traversal.RootName() != lang.RootStep || len(src.Traversal) != 2 || len(rel.Traversal) == 0 {
			return nil
		}
		owner, _ := src.Traversal[1].(hcl.TraverseAttr)
		if f, ok := rel.Traversal[0].(hcl.TraverseAttr); ok {
			out = append(out, occurrence{kind: kindField, name: f.Name, owner: owner.Name, rng: nameRange(rel.Traversal[0])})
		}
		return nil
	})
	return out
}

// testOccurrences lists the names of a test file: the blocks mocks
// replace, the steps overrides replace and expect_failures names, and
// the references of asserts and inputs, by test.
func testOccurrences(f *hcl.File) map[string][]occurrence {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	out := map[string][]occurrence{}
	for _, b := range body.Blocks {
		if b.Type != "test" || len(b.Labels) != 1 {
			continue
		}
		var occ []occurrence
		for _, inner := range b.Body.Blocks {
			if len(inner.Labels) != 1 {
				continue
			}
			r := labelInner(inner.LabelRanges[0])
			switch inner.Type {
			case "mock":
				occ = append(occ, occurrence{kind: kindBlock, name: inner.Labels[0], rng: r})
				if a := inner.Body.Attributes["step"]; a != nil {
					if path, ok := stringValue(a.Expr); ok && path != "" {
						occ = append(occ, pathOccurrences(path, labelInner(a.Expr.Range()))...)
					}
				}
			case "override":
				// step.summarize.ask: step summarize of the test's flow, and
				// step ask of the flow it uses.
				if path, ok := strings.CutPrefix(inner.Labels[0], "step."); ok && path != "" {
					r.Start.Byte += len("step.")
					r.Start.Column += len("step.")
					occ = append(occ, pathOccurrences(path, r)...)
					// The keys of its outputs are the step's outputs (a
					// sub-flow's, for a step that uses one).
					if a := inner.Body.Attributes["outputs"]; a != nil {
						for _, k := range objectKeys(a.Expr, kindField) {
							k.owner = path
							occ = append(occ, k)
						}
					}
				}
			}
		}
		occ = append(occ, bodyOccurrences(b.Body, "test", "")...)
		out[b.Labels[0]] = occ
	}
	return out
}

// pathOccurrences are the names of a step path that starts at r (on one
// line, as labels and strings are written): each a kindPath occurrence
// owned by the path up to it.
func pathOccurrences(path string, r hcl.Range) []occurrence {
	var out []occurrence
	at := 0
	names := strings.Split(path, ".")
	for i, name := range names {
		nr := r
		nr.Start.Byte, nr.Start.Column = r.Start.Byte+at, r.Start.Column+at
		nr.End = nr.Start
		nr.End.Byte, nr.End.Column = nr.Start.Byte+len(name), nr.Start.Column+len(name)
		if name != "" {
			out = append(out, occurrence{kind: kindPath, name: name, owner: strings.Join(names[:i+1], "."), rng: nr})
		}
		at += len(name) + 1
	}
	return out
}
