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
