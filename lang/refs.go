package lang

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Reference roots: the names an expression may start with.
const (
	RootInput  = "input"
	RootSecret = "secret"
	RootLocal  = "local"
	RootMemory = "memory"
	RootStep   = "step"
	RootEach   = "each"
	RootRun    = "run"
	RootFlow   = "flow"
)

// Roots lists every reference root, for suggestions.
var Roots = []string{RootInput, RootSecret, RootLocal, RootMemory, RootStep, RootEach, RootRun, RootFlow}

// Ref is a reference such as input.topic or step.search.body: a root, the
// name after it, and the traversal it came from.
type Ref struct {
	Root      string
	Name      string
	Traversal hcl.Traversal
}

// NameRange is where the root and the name are, e.g. "step.search".
func (r *Ref) NameRange() hcl.Range {
	return hcl.RangeBetween(r.Traversal[0].SourceRange(), r.Traversal[1].SourceRange())
}

// ParseRef splits a traversal into its root and name. A traversal whose
// second part is not an attribute (input["x"], step[0]) is an error.
func ParseRef(tr hcl.Traversal) (*Ref, hcl.Diagnostics) {
	root := tr.RootName()
	if len(tr) < 2 {
		return nil, Error(tr.SourceRange(), "Invalid reference",
			"A reference to %s must name an item, as in %s.NAME.", quote(root), root)
	}
	attr, ok := tr[1].(hcl.TraverseAttr)
	if !ok {
		return nil, Error(tr[1].SourceRange(), "Invalid reference",
			"The name after %s must be given with a dot, as in %s.NAME.", quote(root), root)
	}
	return &Ref{Root: root, Name: attr.Name, Traversal: tr}, nil
}

// String is the reference's root and name, e.g. "step.search".
func (r *Ref) String() string { return r.Root + "." + r.Name }

// TraversalString renders a traversal as it would be written.
func TraversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for i, t := range tr {
		switch t := t.(type) {
		case hcl.TraverseRoot:
			b.WriteString(t.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + t.Name)
		case hcl.TraverseIndex:
			b.WriteString("[" + keyString(t.Key) + "]")
		case hcl.TraverseSplat:
			b.WriteString("[*]")
		default:
			if i > 0 {
				b.WriteString("…")
			}
		}
	}
	return b.String()
}

func keyString(k cty.Value) string {
	if !k.IsKnown() || k.IsNull() {
		return "?"
	}
	switch k.Type() {
	case cty.String:
		return quote(k.AsString())
	case cty.Number:
		return k.AsBigFloat().Text('f', -1)
	}
	return "?"
}

// FormatPath renders a cty path as .results[3].url.
func FormatPath(p cty.Path) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case cty.GetAttrStep:
			b.WriteString("." + s.Name)
		case cty.IndexStep:
			b.WriteString("[" + keyString(s.Key) + "]")
		}
	}
	return b.String()
}

// FormatConvertError renders a conversion error with the path into the value
// where it happened: ".results[3].url: a string is required".
func FormatConvertError(err error) string {
	var pe cty.PathError
	if errors.As(err, &pe) && len(pe.Path) > 0 {
		return fmt.Sprintf("%s: %s", FormatPath(pe.Path), pe.Error())
	}
	return err.Error()
}

func parseExpression(src, filename string) (hcl.Expression, hcl.Diagnostics) {
	if d, _ := checkSource([]byte(src), filename); d != nil {
		return nil, hcl.Diagnostics{d}
	}
	return hclsyntax.ParseExpression([]byte(src), filename, hcl.InitialPos)
}
