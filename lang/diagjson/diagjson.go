package diagjson

import (
	"fmt"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// FormatVersion is the format_version of the JSON documents flowctl prints.
const FormatVersion = "1.0"

// Validate is the object validate --json prints.
type Validate struct {
	FormatVersion string       `json:"format_version"`
	Valid         bool         `json:"valid"`
	ErrorCount    int          `json:"error_count"`
	WarningCount  int          `json:"warning_count"`
	Diagnostics   []Diagnostic `json:"diagnostics"`
}

// Diagnostic is one diagnostic; Range and Snippet are there when it has a
// source location.
type Diagnostic struct {
	Severity string   `json:"severity"`
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail"`
	Range    *Range   `json:"range,omitempty"`
	Snippet  *Snippet `json:"snippet,omitempty"`
}

// Range is a source range.
type Range struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// Pos is a position in a file.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// Snippet is the source around a diagnostic.
type Snippet struct {
	Context              *string     `json:"context"`
	Code                 string      `json:"code"`
	StartLine            int         `json:"start_line"`
	HighlightStartOffset int         `json:"highlight_start_offset"`
	HighlightEndOffset   int         `json:"highlight_end_offset"`
	Values               []ExprValue `json:"values"`
}

// ExprValue describes the value of one reference in the diagnostic's
// expression: "is a number", "is \"x\"".
type ExprValue struct {
	Traversal string `json:"traversal"`
	Statement string `json:"statement"`
}

// New renders diagnostics; files are the parsed files, for snippets.
func New(files map[string]*hcl.File, diags hcl.Diagnostics) Validate {
	out := Validate{FormatVersion: FormatVersion, Diagnostics: []Diagnostic{}}
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			out.ErrorCount++
		} else {
			out.WarningCount++
		}
		out.Diagnostics = append(out.Diagnostics, NewDiagnostic(files, d))
	}
	out.Valid = out.ErrorCount == 0
	return out
}

// NewDiagnostic renders one diagnostic.
func NewDiagnostic(files map[string]*hcl.File, d *hcl.Diagnostic) Diagnostic {
	jd := Diagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
	if d.Severity == hcl.DiagWarning {
		jd.Severity = "warning"
	}
	if d.Subject == nil {
		return jd
	}
	s := *d.Subject
	jd.Range = &Range{
		Filename: s.Filename,
		Start:    Pos{Line: s.Start.Line, Column: s.Start.Column, Byte: s.Start.Byte},
		End:      Pos{Line: s.End.Line, Column: s.End.Column, Byte: s.End.Byte},
	}
	f := files[s.Filename]
	if f == nil || f.Bytes == nil || s.End.Byte > len(f.Bytes) || s.Start.Byte > s.End.Byte {
		return jd
	}
	// The snippet holds the whole lines of the context range (the subject
	// when there is none), like Terraform's.
	ctx := s
	if d.Context != nil && d.Context.Filename == s.Filename && d.Context.Start.Byte <= s.Start.Byte && d.Context.End.Byte >= s.End.Byte {
		ctx = *d.Context
	}
	src := f.Bytes
	start := ctx.Start.Byte
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := ctx.End.Byte
	for end < len(src) && src[end] != '\n' {
		end++
	}
	snip := &Snippet{
		Code:                 strings.TrimRight(string(src[start:end]), "\r"),
		StartLine:            ctx.Start.Line,
		HighlightStartOffset: s.Start.Byte - start,
		HighlightEndOffset:   s.End.Byte - start,
		Values:               []ExprValue{},
	}
	if c := contextString(f, s.Start.Byte); c != "" {
		snip.Context = &c
	}
	if d.Expression != nil && d.EvalContext != nil {
		snip.Values = expressionValues(d.Expression, d.EvalContext)
	}
	jd.Snippet = snip
	return jd
}

func contextString(f *hcl.File, offset int) string {
	type contextStringer interface{ ContextString(offset int) string }
	if cs, ok := f.Nav.(contextStringer); ok {
		return cs.ContextString(offset)
	}
	return ""
}

// expressionValues describes the values of the references in an
// expression, as Terraform does: "is a number", "is \"x\"".
func expressionValues(expr hcl.Expression, ctx *hcl.EvalContext) []ExprValue {
	seen := map[string]bool{}
	out := []ExprValue{}
	for _, tr := range expr.Variables() {
		v, diags := tr.TraverseAbs(ctx)
		if diags.HasErrors() {
			continue
		}
		name := lang.TraversalString(tr)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, ExprValue{Traversal: name, Statement: describeValue(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Traversal < out[j].Traversal })
	return out
}

func describeValue(v cty.Value) string {
	if v.HasMark(lang.Sensitive) {
		return "has a sensitive value"
	}
	v, _ = v.UnmarkDeep()
	ty := v.Type()
	switch {
	case !v.IsKnown():
		if ty == cty.DynamicPseudoType {
			return "is known only at run time"
		}
		return "is " + lang.FriendlyTypeName(ty)
	case v.IsNull():
		return "is null"
	case ty == cty.String:
		return fmt.Sprintf("is %q", v.AsString())
	case ty == cty.Number:
		return "is " + v.AsBigFloat().Text('g', -1)
	case ty == cty.Bool:
		return fmt.Sprintf("is %t", v.True())
	case ty.IsCollectionType() || ty.IsTupleType():
		return fmt.Sprintf("is %s with %d elements", ty.FriendlyName(), v.LengthInt())
	case ty.IsObjectType():
		return fmt.Sprintf("is object with %d attributes", len(ty.AttributeTypes()))
	}
	return "is " + ty.FriendlyName()
}
