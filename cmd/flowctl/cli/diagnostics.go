package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/term"
)

// writeHumanDiagnostics prints diagnostics with HCL's text writer: a source
// snippet, a caret under the range and the wrapped detail. Colour is used
// only when w is a terminal.
func writeHumanDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	width, color := uint(78), false
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		color = os.Getenv("NO_COLOR") == ""
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			width = uint(cols - 2)
		}
	}
	hcl.NewDiagnosticTextWriter(w, files, width, color).WriteDiagnostics(diags)
}

// JSON output of validate (§5), the shape of Terraform's validate -json.

const jsonFormatVersion = "1.0"

type jsonValidate struct {
	FormatVersion string           `json:"format_version"`
	Valid         bool             `json:"valid"`
	ErrorCount    int              `json:"error_count"`
	WarningCount  int              `json:"warning_count"`
	Diagnostics   []jsonDiagnostic `json:"diagnostics"`
}

type jsonDiagnostic struct {
	Severity string       `json:"severity"`
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail"`
	Range    *jsonRange   `json:"range,omitempty"`
	Snippet  *jsonSnippet `json:"snippet,omitempty"`
}

type jsonRange struct {
	Filename string  `json:"filename"`
	Start    jsonPos `json:"start"`
	End      jsonPos `json:"end"`
}

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

type jsonSnippet struct {
	Context              *string         `json:"context"`
	Code                 string          `json:"code"`
	StartLine            int             `json:"start_line"`
	HighlightStartOffset int             `json:"highlight_start_offset"`
	HighlightEndOffset   int             `json:"highlight_end_offset"`
	Values               []jsonExprValue `json:"values"`
}

type jsonExprValue struct {
	Traversal string `json:"traversal"`
	Statement string `json:"statement"`
}

func newJSONValidate(files map[string]*hcl.File, diags hcl.Diagnostics) jsonValidate {
	out := jsonValidate{FormatVersion: jsonFormatVersion, Diagnostics: []jsonDiagnostic{}}
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			out.ErrorCount++
		} else {
			out.WarningCount++
		}
		out.Diagnostics = append(out.Diagnostics, newJSONDiagnostic(files, d))
	}
	out.Valid = out.ErrorCount == 0
	return out
}

func newJSONDiagnostic(files map[string]*hcl.File, d *hcl.Diagnostic) jsonDiagnostic {
	jd := jsonDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
	if d.Severity == hcl.DiagWarning {
		jd.Severity = "warning"
	}
	if d.Subject == nil {
		return jd
	}
	s := *d.Subject
	jd.Range = &jsonRange{
		Filename: s.Filename,
		Start:    jsonPos{Line: s.Start.Line, Column: s.Start.Column, Byte: s.Start.Byte},
		End:      jsonPos{Line: s.End.Line, Column: s.End.Column, Byte: s.End.Byte},
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
	snip := &jsonSnippet{
		Code:                 strings.TrimRight(string(src[start:end]), "\r"),
		StartLine:            ctx.Start.Line,
		HighlightStartOffset: s.Start.Byte - start,
		HighlightEndOffset:   s.End.Byte - start,
		Values:               []jsonExprValue{},
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
func expressionValues(expr hcl.Expression, ctx *hcl.EvalContext) []jsonExprValue {
	seen := map[string]bool{}
	out := []jsonExprValue{}
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
		out = append(out, jsonExprValue{Traversal: name, Statement: describeValue(v)})
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

// writeGitHubDiagnostics prints GitHub Actions workflow commands, which
// GitHub shows as annotations on the pull request's files.
func writeGitHubDiagnostics(w io.Writer, diags hcl.Diagnostics) {
	for _, d := range diags {
		kind := "error"
		if d.Severity == hcl.DiagWarning {
			kind = "warning"
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Subject == nil {
			fmt.Fprintf(w, "::%s::%s\n", kind, escapeGitHubData(msg))
			continue
		}
		s := d.Subject
		fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d::%s\n", kind,
			escapeGitHubProperty(s.Filename), s.Start.Line, s.Start.Column, escapeGitHubData(msg))
	}
}

func escapeGitHubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeGitHubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// countDiags returns the numbers of errors and warnings.
func countDiags(diags hcl.Diagnostics) (errs, warns int) {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs++
		} else {
			warns++
		}
	}
	return
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
