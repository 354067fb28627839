package lsp

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// cursor is what stands at a byte offset of a file's syntax tree: the
// top-level block and the nested block around it, the attribute, and in
// the attribute's expression the reference, function call or string.
type cursor struct {
	off   int
	block *hclsyntax.Block // the top-level block, nil outside any
	inner *hclsyntax.Block // a block nested in it (retry, input, mock…), nil when none
	label int              // the index of the label of block (or inner) at off, -1 when none
	attr  *hclsyntax.Attribute
	// onName: off is on the attribute's name.
	onName    bool
	traversal *hclsyntax.ScopeTraversalExpr // the reference at off
	call      *hclsyntax.FunctionCallExpr   // the function whose name is at off
	literal   hclsyntax.Expression          // the string literal (or template) at off
}

func within(r hcl.Range, off int) bool { return off >= r.Start.Byte && off <= r.End.Byte }

// locate finds what stands at off in a parsed file.
func locate(f *hcl.File, off int) *cursor {
	c := &cursor{off: off, label: -1}
	if f == nil {
		return c
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return c
	}
	c.locateIn(body, true)
	return c
}

func (c *cursor) locateIn(body *hclsyntax.Body, top bool) {
	for _, b := range body.Blocks {
		if !within(b.Range(), c.off) {
			continue
		}
		if top {
			c.block = b
		} else {
			c.inner = b
		}
		c.label = -1
		for i, r := range b.LabelRanges {
			if within(r, c.off) {
				c.label = i
			}
		}
		if c.label < 0 {
			c.locateIn(b.Body, false)
		}
		return
	}
	for _, a := range body.Attributes {
		if !within(a.SrcRange, c.off) {
			continue
		}
		c.attr = a
		if within(a.NameRange, c.off) {
			c.onName = true
			return
		}
		hclsyntax.VisitAll(a.Expr, func(n hclsyntax.Node) hcl.Diagnostics {
			switch n := n.(type) {
			case *hclsyntax.ScopeTraversalExpr:
				if within(n.SrcRange, c.off) {
					c.traversal = n
				}
			case *hclsyntax.FunctionCallExpr:
				if within(n.NameRange, c.off) {
					c.call = n
				}
			case *hclsyntax.TemplateExpr, *hclsyntax.LiteralValueExpr:
				if within(n.Range(), c.off) && c.literal == nil {
					c.literal = n.(hclsyntax.Expression)
				}
			}
			return nil
		})
		return
	}
}

// blockType is the type of the top-level block, "" outside any.
func (c *cursor) blockType() string {
	if c.block == nil {
		return ""
	}
	return c.block.Type
}

// blockName is the first label of the top-level block.
func (c *cursor) blockName() string {
	if c.block == nil || len(c.block.Labels) == 0 {
		return ""
	}
	return c.block.Labels[0]
}

// nameRange is the range of the last attribute name of a traversal step
// (the name after the dot: "bar" of ".bar").
func nameRange(t hcl.Traverser) hcl.Range {
	r := t.SourceRange()
	if a, ok := t.(hcl.TraverseAttr); ok && r.End.Byte-r.Start.Byte > len(a.Name) {
		r.Start.Byte = r.End.Byte - len(a.Name)
		r.Start.Column = r.End.Column - len(a.Name)
	}
	return r
}

// labelInner is a label's range without its quotes.
func labelInner(r hcl.Range) hcl.Range {
	if r.End.Byte-r.Start.Byte >= 2 {
		r.Start.Byte++
		r.Start.Column++
		r.End.Byte--
		r.End.Column--
	}
	return r
}

// stringValue is the value of a string literal or of a template without
// interpolations, ok false for anything else.
func stringValue(e hclsyntax.Expression) (string, bool) {
	switch e := e.(type) {
	case *hclsyntax.TemplateExpr:
		if !e.IsStringLiteral() {
			return "", false
		}
		v, d := e.Value(nil)
		if d.HasErrors() || !v.IsKnown() || v.IsNull() {
			return "", false
		}
		return v.AsString(), true
	case *hclsyntax.LiteralValueExpr:
		if v := e.Val; v.IsKnown() && !v.IsNull() && v.Type().FriendlyName() == "string" {
			return v.AsString(), true
		}
	}
	return "", false
}
