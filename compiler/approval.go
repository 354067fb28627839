package compiler

import (
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// IsApproval reports whether b is the built-in approval block, which the
// runtime runs itself.
func IsApproval(b *blocks.Block) bool { return b != nil && b.Builtin() && b.Name == "approval" }

// approvalFields checks what an approval step declares besides its
// message (lang/approval.go): input fields and on_timeout belong to
// approval steps only; a field takes no name of the decision's outputs;
// on_timeout needs a timeout. The fields become the step's outputs, so
// that the steps that refer to them are type-checked.
func approvalFields(s *Step, b *blocks.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if !IsApproval(b) {
		if len(s.ApprovalInputs) > 0 {
			diags = append(diags, lang.Error(s.ApprovalInputs[0].DeclRange, "Unexpected input block",
				"Only approval steps declare input fields, which the person deciding fills in; step %q uses block %q, whose inputs are its arguments.", s.Name, b.Name)...)
		}
		if s.OnTimeout != "" {
			diags = append(diags, lang.Error(s.OnTimeoutRange, "Unexpected on_timeout",
				"The on_timeout argument says what an approval step does when nobody decided in time; step %q uses block %q.", s.Name, b.Name)...)
		}
		return diags
	}
	if s.OnTimeout != "" && s.Timeout == nil {
		diags = append(diags, lang.Error(s.OnTimeoutRange, "on_timeout without timeout",
			"The on_timeout argument says what step %q does when nobody decided within its timeout, and the step has no timeout; add one, such as timeout = \"24h\".", s.Name)...)
	}
	var outs []*lang.Field
	for _, f := range s.ApprovalInputs {
		if b.Output(f.Name) != nil {
			diags = append(diags, lang.Error(f.NameRange, "Reserved input name",
				"An approval step's outputs are %s and its input fields; input %q needs another name.", strings.Join(b.OutputNames(), ", "), f.Name)...)
			continue
		}
		outs = append(outs, &lang.Field{Name: f.Name, Type: f.Type, Description: f.Description, NameRange: f.NameRange, DeclRange: f.DeclRange})
	}
	s.Outputs = blocks.MergeOutputs(s.Outputs, outs)
	return diags
}
