package diagjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

func TestNew(t *testing.T) {
	p := lang.NewParser()
	src := "flow \"x\" {}\n\nstep \"a\" {\n  use = 3 +\n}\n"
	_, diags := p.ParseSource([]byte(src), "x.flow.hcl")
	if !diags.HasErrors() {
		t.Fatal("no syntax error")
	}
	diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Something", Detail: "Without a place."})
	v := New(p.Files(), diags)
	if v.FormatVersion != "1.0" || v.Valid || v.ErrorCount == 0 || v.WarningCount != 1 {
		t.Errorf("counts: %+v", v)
	}
	d := v.Diagnostics[0]
	if d.Severity != "error" || d.Range == nil || d.Range.Filename != "x.flow.hcl" || d.Range.Start.Line != 4 ||
		d.Snippet == nil || d.Snippet.Context == nil || *d.Snippet.Context != `step "a"` ||
		!strings.HasPrefix(d.Snippet.Code, "  use = 3 +") || d.Snippet.StartLine != 4 {
		t.Errorf("first diagnostic: %+v", d)
	}
	last := v.Diagnostics[len(v.Diagnostics)-1]
	if last.Severity != "warning" || last.Range != nil || last.Snippet != nil {
		t.Errorf("warning: %+v", last)
	}
	b, _ := json.Marshal(New(nil, nil))
	if !strings.Contains(string(b), `"diagnostics":[]`) || !strings.Contains(string(b), `"valid":true`) {
		t.Errorf("empty: %s", b)
	}
}

// TestWriteTo checks that the streamed document is byte for byte what
// json.Encoder prints.
func TestWriteTo(t *testing.T) {
	for _, v := range []Validate{
		New(nil, nil),
		{FormatVersion: FormatVersion, Valid: false, ErrorCount: 2, Diagnostics: []Diagnostic{
			{Severity: "error", Summary: "A <b> & \"c\"", Detail: "d\n\u2028"},
			{Severity: "warning", Summary: "x", Range: &Range{Filename: "f.hcl", Start: Pos{1, 2, 3}, End: Pos{4, 5, 6}},
				Snippet: &Snippet{Code: "code", StartLine: 1, Values: []ExprValue{{Traversal: "a.b", Statement: "is 1"}}}},
		}},
	} {
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if _, err := v.WriteTo(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("WriteTo:\n%s\nwant:\n%s", got.String(), want.String())
		}
	}
}

// TestSnippetCut: a very long line is cut around the highlight, which
// still points at the same text.
func TestSnippetCut(t *testing.T) {
	line := strings.Repeat("é", 2000) + "BAD" + strings.Repeat("x", 3000)
	hs := strings.Index(line, "BAD")
	s := &Snippet{Code: line, HighlightStartOffset: hs, HighlightEndOffset: hs + 3}
	s.cut(maxSnippetCode)
	if len(s.Code) > maxSnippetCode+8 || !utf8.ValidString(s.Code) {
		t.Fatalf("cut to %d bytes (valid UTF-8: %v)", len(s.Code), utf8.ValidString(s.Code))
	}
	if got := s.Code[s.HighlightStartOffset:s.HighlightEndOffset]; got != "BAD" {
		t.Errorf("the highlight is %q", got)
	}
	if !strings.HasPrefix(s.Code, "…") || !strings.HasSuffix(s.Code, "…") {
		t.Errorf("the cuts are not marked: %q…%q", s.Code[:10], s.Code[len(s.Code)-10:])
	}
	short := &Snippet{Code: "abc", HighlightStartOffset: 1, HighlightEndOffset: 2}
	short.cut(maxSnippetCode)
	if short.Code != "abc" || short.HighlightStartOffset != 1 {
		t.Errorf("a short snippet changed: %+v", short)
	}
}
