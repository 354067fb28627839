package diagjson

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
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

// WriteTo writes v as indented JSON (two spaces), one diagnostic at a
// time, so that a file with tens of thousands of problems is printed
// without building the whole document in memory. The bytes are those of a
// json.Encoder with SetIndent("", "  ").
func (v Validate) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := &countWriter{w: bw}
	fmt.Fprintf(cw, "{\n  \"format_version\": %q,\n  \"valid\": %t,\n  \"error_count\": %d,\n  \"warning_count\": %d,\n  \"diagnostics\": [",
		v.FormatVersion, v.Valid, v.ErrorCount, v.WarningCount)
	for i, d := range v.Diagnostics {
		b, err := json.MarshalIndent(d, "    ", "  ")
		if err != nil {
			return cw.n, err
		}
		if i > 0 {
			cw.Write([]byte(","))
		}
		cw.Write([]byte("\n    "))
		cw.Write(b)
	}
	if len(v.Diagnostics) > 0 {
		cw.Write([]byte("\n  "))
	}
	cw.Write([]byte("]\n}\n"))
	if cw.err != nil {
		return cw.n, cw.err
	}
	return cw.n, bw.Flush()
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
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
	// The texts are escaped as for a terminal (lang.EscapeControl): what
	// reads the JSON shows them to people.
	jd := Diagnostic{Severity: "error", Summary: lang.EscapeControlLine(d.Summary), Detail: lang.EscapeControl(d.Detail)}
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
	hs, he := s.Start.Byte-start, s.End.Byte-start
	// Lines far longer than a snippet shows are narrowed before they are
	// copied: a 1 MB line with thousands of problems must not be copied
	// once for each.
	if end-start > 4*maxSnippetCode {
		from := max(start, s.Start.Byte-2*maxSnippetCode)
		to := min(end, max(s.End.Byte, s.Start.Byte)+2*maxSnippetCode)
		hs, he = hs-(from-start), he-(from-start)
		start, end = from, to
	}
	snip := &Snippet{
		Code:                 strings.TrimRight(string(src[start:end]), "\r"),
		StartLine:            ctx.Start.Line,
		HighlightStartOffset: hs,
		HighlightEndOffset:   he,
		Values:               []ExprValue{},
	}
	snip.cut(maxSnippetCode)
	snip.escape()
	if c := contextString(f, s.Start.Byte); c != "" {
		c = lang.EscapeControlLine(c)
		snip.Context = &c
	}
	if d.Expression != nil && d.EvalContext != nil {
		snip.Values = expressionValues(d.Expression, d.EvalContext)
	}
	jd.Snippet = snip
	return jd
}

// maxSnippetCode bounds a snippet's code: lines longer than that (a
// minified document, a binary file) are cut around the highlight.
const maxSnippetCode = 1024

// cut shortens the code to about n bytes around the highlight, marking
// what was cut with "…" and moving the highlight's offsets to match.
func (s *Snippet) cut(n int) {
	if len(s.Code) <= n {
		return
	}
	const mark = "…"
	hs, he := s.HighlightStartOffset, s.HighlightEndOffset
	he = min(he, hs+n/2) // a long highlight keeps its start
	start := max(0, hs-(n-(he-hs))/2)
	end := min(len(s.Code), start+n)
	for start > 0 && !utf8.RuneStart(s.Code[start]) {
		start--
	}
	for end < len(s.Code) && !utf8.RuneStart(s.Code[end]) {
		end++
	}
	code := s.Code[start:end]
	shift := -start
	if start > 0 {
		code = mark + code
		shift += len(mark)
	}
	if end < len(s.Code) {
		code += mark
	}
	s.Code = code
	s.HighlightStartOffset = hs + shift
	s.HighlightEndOffset = min(s.HighlightEndOffset, end) + shift
}

// escape writes the code's control characters and invalid bytes as
// escapes (lang.EscapeControl), moving the highlight's offsets to match.
func (s *Snippet) escape() {
	e := lang.EscapeControlOffsets([]byte(s.Code))
	s.Code = e.Text
	s.HighlightStartOffset = e.Offset(s.HighlightStartOffset)
	s.HighlightEndOffset = e.Offset(s.HighlightEndOffset)
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

// maxShownValue bounds the JSON of a collection or object a snippet shows.
const maxShownValue = 120

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
	case ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType():
		// A short value is shown; a long one is described.
		if v.IsWhollyKnown() {
			if b, err := jsonval.Marshal(v); err == nil && len(b) <= maxShownValue {
				return "is " + string(b)
			}
		}
		if ty.IsObjectType() {
			return fmt.Sprintf("is object with %d attributes", len(ty.AttributeTypes()))
		}
		return fmt.Sprintf("is %s with %d elements", ty.FriendlyName(), v.LengthInt())
	}
	return "is " + ty.FriendlyName()
}
