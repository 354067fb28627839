package lang

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestErrorSentence(t *testing.T) {
	r := hcl.Range{Filename: "f.hcl", Start: hcl.Pos{Line: 3, Column: 5}}
	diags := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Bad", Detail: "It is bad.", Subject: &r},
		{Severity: hcl.DiagWarning, Summary: "Meh"},
		{Severity: hcl.DiagError, Summary: "Worse"},
	}
	if got := ErrorSentence(diags, true); got != "f.hcl:3,5: Bad: It is bad; Worse" {
		t.Errorf("with ranges: %q", got)
	}
	if got := ErrorSentence(diags, false); got != "Bad: It is bad; Worse" {
		t.Errorf("without: %q", got)
	}
}

func TestSuggestRanks(t *testing.T) {
	for _, c := range []struct {
		given   string
		options []string
		want    string
	}{
		// What the names share at their start outweighs a few edits.
		{"rows", []string{"by_region", "row_count", "top"}, ` Did you mean "row_count"?`},
		{"len", []string{"length", "lower", "log"}, ` Did you mean "length"?`},
		{"region", []string{"by_region", "regex"}, ` Did you mean "by_region"?`},
		{"methd", []string{"method", "meta"}, ` Did you mean "method"?`},
		{"HTTP", []string{"http", "value"}, ` Did you mean "http"?`},
		{"zzzz", []string{"http", "value"}, ``},
		{"x", nil, ``},
	} {
		if got := Suggest(c.given, c.options); got != c.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", c.given, c.options, got, c.want)
		}
	}
}

func TestSuggestAmong(t *testing.T) {
	for _, c := range []struct {
		given   string
		options []string
		want    string
	}{
		{"shout", []string{"shouter", "http", "value"}, ` Did you mean "shouter"?`},
		{"zzzzzz", []string{"http", "value", "llm", "file"}, ` The closest are "file", "http" and "llm".`},
		{"zzzzzz", []string{"value"}, ` The only one is "value".`},
		{"zzzzzz", nil, ``},
	} {
		if got := SuggestAmong(c.given, c.options); got != c.want {
			t.Errorf("SuggestAmong(%q, %q) = %q, want %q", c.given, c.options, got, c.want)
		}
	}
}
