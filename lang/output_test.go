package lang

import (
	"strings"
	"testing"
)

// TestOptionalOutput: an output may be declared optional = true (a block
// may return null for it); the argument is a bool, and inputs, which
// have defaults, do not take it.
func TestOptionalOutput(t *testing.T) {
	decode := func(src string) ([]*BlockDef, string) {
		f, diags := NewParser().ParseSource([]byte(src), "x.block.hcl")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		defs, diags := DecodeBlockFile(f)
		if !diags.HasErrors() {
			return defs, ""
		}
		return defs, diags.Error()
	}
	defs, errs := decode(`block "b" {
  runtime = "js"
  source  = "function execute() { return {} }"
  output "maybe" {
    type     = string
    optional = true
  }
  output "sure" {
    type = string
  }
}
`)
	if errs != "" || len(defs) != 1 || !defs[0].Outputs[0].Optional || defs[0].Outputs[1].Optional {
		t.Fatalf("defs %v, errors %s", defs, errs)
	}
	for src, want := range map[string]string{
		`output "o" { optional = "yes" }`: "The optional argument must be a bool",
		`input "i" { optional = true }`:   `An argument named "optional" is not expected here`,
	} {
		_, errs := decode("block \"b\" {\n  runtime = \"js\"\n  source = \"\"\n  " + src + "\n}\n")
		if !strings.Contains(errs, want) {
			t.Errorf("%s: errors %q, want %q", src, errs, want)
		}
	}
}
