package lang

import "github.com/hashicorp/hcl/v2"

// Flow is the `flow "NAME"` block that names a flow file.
type Flow struct {
	Name        string
	Description string
	Version     string
	// Timeout bounds a whole run: after it the running steps are
	// cancelled and the run fails. Nil for none.
	Timeout *Duration
	// MaxTokens and MaxCostUSD are a run's budget for model calls
	// (max_tokens, max_cost_usd); 0: none.
	MaxTokens  int
	MaxCostUSD float64
	// NoRecordPrompts: record_prompts = false, the runs' model calls
	// (messages and replies) are not kept in the state.
	NoRecordPrompts bool
	// Hidden: expose = false, the flow is not offered as a tool
	// (flowctl mcp, flowctl tools).
	Hidden    bool
	NameRange hcl.Range
	DeclRange hcl.Range
}

var flowBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "version"}, {Name: "timeout"}, {Name: "expose"}, {Name: "max_tokens"}, {Name: "max_cost_usd"}, {Name: "record_prompts"}},
}

// RecordsPrompts reports whether the flow's runs keep their model calls in
// the state (record_prompts, default true).
func (f *Flow) RecordsPrompts() bool { return f == nil || !f.NoRecordPrompts }

// FlowArguments are the arguments of a flow block, for the language
// server and the docs' tests.
func FlowArguments() []string {
	out := make([]string, len(flowBlockSchema.Attributes))
	for i, a := range flowBlockSchema.Attributes {
		out[i] = a.Name
	}
	return out
}

func decodeFlowBlock(b *hcl.Block) (*Flow, hcl.Diagnostics) {
	fl := &Flow{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	diags := checkName("flow", fl.Name, fl.NameRange)
	content, d := b.Body.Content(flowBlockSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["description"]; ok {
		fl.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["version"]; ok {
		fl.Version, d = stringAttr(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["expose"]; ok {
		expose, d := boolAttr(a)
		diags = append(diags, d...)
		fl.Hidden = !d.HasErrors() && !expose
	}
	if a, ok := content.Attributes["timeout"]; ok {
		t, d := durationAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			fl.Timeout = &t
		}
	}
	if a, ok := content.Attributes["record_prompts"]; ok {
		record, d := boolAttr(a)
		diags = append(diags, d...)
		fl.NoRecordPrompts = !d.HasErrors() && !record
	}
	if a, ok := content.Attributes["max_tokens"]; ok {
		fl.MaxTokens, d = intAttr(a, 1)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["max_cost_usd"]; ok {
		fl.MaxCostUSD, d = numberAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() && fl.MaxCostUSD <= 0 {
			diags = append(diags, Error(a.Expr.Range(), "Invalid max_cost_usd", "The max_cost_usd argument must be a number of US dollars above 0, such as 0.50.")...)
		}
	}
	return fl, diags
}
