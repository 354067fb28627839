package compiler

import (
	"testing"

	"github.com/flowctl/flowctl/lang"
)

func TestSuggestFunction(t *testing.T) {
	funcs := lang.Functions(".")
	for name, want := range map[string]string{
		"uppercase":   ` Did you mean "upper"?`,
		"lenght":      ` Did you mean "length"?`,
		"len":         ` Did you mean "length"?`,
		"json_encode": ` Did you mean "jsonencode"?`,
		"sprintf":     ` Did you mean "format"?`,
		"toupperx":    ` Did you mean "upper"?`,
		"zzz":         ``,
	} {
		if got := suggestFunction(name, funcs); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
