package lang

import "github.com/hashicorp/hcl/v2"

// What an approval step declares besides its message: the `input "NAME"
// { type, description, default }` fields the person deciding fills in,
// which become the step's outputs, and `on_timeout`, what the step does
// when nobody decided within its timeout. The compiler allows both on
// approval steps only.

// OnTimeout values.
const (
	OnTimeoutFail    = "fail" // the default: the step fails
	OnTimeoutApprove = "approve"
	OnTimeoutReject  = "reject"
)

// OnTimeoutValues are the values on_timeout takes.
var OnTimeoutValues = []string{OnTimeoutApprove, OnTimeoutReject, OnTimeoutFail}

func (s *Step) decodeOnTimeout(a *hcl.Attribute) hcl.Diagnostics {
	s.OnTimeoutRange = a.Expr.Range()
	v, diags := stringAttr(a)
	if diags.HasErrors() {
		return diags
	}
	switch v {
	case OnTimeoutFail, OnTimeoutApprove, OnTimeoutReject:
		s.OnTimeout = v
		return nil
	}
	return Error(a.Expr.Range(), "Invalid on_timeout",
		"The on_timeout argument must be \"approve\", \"reject\" or \"fail\", not %s.%s", quote(v), Suggest(v, OnTimeoutValues))
}
