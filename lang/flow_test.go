package lang

import (
	"strings"
	"testing"
)

// TestFlowBudget: max_tokens and max_cost_usd are read from the flow
// block; a budget that is not above 0 is an error at its range.
func TestFlowBudget(t *testing.T) {
	decode := func(body string) (*File, string) {
		f, diags := NewParser().ParseSource([]byte("flow \"f\" {\n"+body+"\n}\n"), "f.flow.hcl")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		file, diags := DecodeFlowFile(f, "f.flow.hcl")
		if !diags.HasErrors() {
			return file, ""
		}
		return file, diags.Error()
	}
	file, errs := decode("max_tokens = 1000\nmax_cost_usd = 0.5")
	if errs != "" || len(file.Flows) != 1 || file.Flows[0].MaxTokens != 1000 || file.Flows[0].MaxCostUSD != 0.5 {
		t.Fatalf("flows %+v (%s)", file.Flows, errs)
	}
	for body, want := range map[string]string{
		"max_cost_usd = 0":     "f.flow.hcl:2,16-17: Invalid max_cost_usd",
		"max_cost_usd = -1":    "f.flow.hcl:2,16-18: Invalid max_cost_usd",
		"max_tokens = 0":       "f.flow.hcl:2,14-15",
		`max_cost_usd = "lot"`: "f.flow.hcl:2,16-21",
	} {
		if _, errs := decode(body); !strings.Contains(errs, want) {
			t.Errorf("%s: %q; want %q", body, errs, want)
		}
	}
}
