package compiler_test

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestLimits: a flow's limit blocks compile to keys of its inputs; a key
// that refers to anything else, names an unknown or sensitive input, or
// is not a string, number or bool, a second block of a kind, a debounce
// in a flow with sensitive inputs, are errors at their ranges.
func TestLimits(t *testing.T) {
	const head = `flow "f" {}
input "customer" {
  type = string
}
input "n" {
  type    = number
  default = 17
}
input "tags" {
  type    = list(string)
  default = []
}
`
	prog, errs := compileSource(t, head+`
concurrency {
  key   = "${input.customer}/${input.n}"
  limit = 2
}
rate_limit {
  key    = input.n
  limit  = 10
  period = "1m"
}
`)
	if errs != "no diagnostics" {
		t.Fatal(errs)
	}
	keys, diags := prog.LimitKeys(map[string]cty.Value{"customer": cty.StringVal("c"), "n": cty.NumberIntVal(17), "tags": cty.ListValEmpty(cty.String)})
	if diags.HasErrors() || keys.Concurrency == nil || *keys.Concurrency != "c/17" || keys.Rate == nil || *keys.Rate != "17" || keys.Debounce != nil {
		t.Fatalf("keys = %+v, %v", keys, diags)
	}
	for name, tc := range map[string]struct{ src, want string }{
		"step": {head + `step "a" {
  use   = "value"
  value = 1
}
concurrency {
  key   = step.a.value
  limit = 1
}`, `c.flow.hcl:18,11-23: Invalid limit key; The key of a concurrency block is made of the run's inputs alone`},
		"unknown input": {head + `debounce {
  key    = input.custmer
  period = "30s"
}`, `c.flow.hcl:14,12-25: Unknown input; There is no input named "custmer" in this flow. Did you mean "customer"?`},
		"list": {head + `rate_limit {
  key    = input.tags
  limit  = 1
  period = "1s"
}`, `c.flow.hcl:14,12-22: Invalid limit key; The key of a rate_limit block is a string, a number or a bool; this one is of type list(string).`},
		"two": {head + `concurrency {
  key   = "a"
  limit = 1
}
concurrency {
  key   = "b"
  limit = 1
}`, `c.flow.hcl:17,1-12: Duplicate concurrency block; A flow has at most one concurrency block, and one is declared at`},
		"sensitive": {head + `input "token" {
  type      = string
  sensitive = true
}
concurrency {
  key   = input.token
  limit = 1
}`, `c.flow.hcl:18,11-22: Sensitive limit key`},
		"debounce sensitive": {head + `input "token" {
  type      = string
  sensitive = true
}
debounce {
  key    = input.customer
  period = "1s"
}`, `c.flow.hcl:17,1-9: Debounce of a flow with sensitive inputs`},
	} {
		_, errs := compileSource(t, tc.src)
		if !strings.Contains(errs, tc.want) {
			t.Errorf("%s: %s\nwant %s", name, errs, tc.want)
		}
	}
}
