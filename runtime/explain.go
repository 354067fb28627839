package runtime

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// explainAny adds to the errors of an expression where a value of type
// any came from: an output the compiler could not check (an http body, a
// value step's value, a code block's output of type any) that turned out,
// at run time, not to have the shape the expression expects. Errors whose
// values are sensitive are left as hideSensitive made them.
func (r *run) explainAny(expr hcl.Expression, ctx *hcl.EvalContext, diags hcl.Diagnostics) hcl.Diagnostics {
	if ctx == nil || !diags.HasErrors() {
		return diags
	}
	for _, d := range diags {
		if d.Severity != hcl.DiagError || d.Subject == nil || d.Detail == sensitiveDetail {
			continue // no place to point at, or hidden (sensitive)
		}
		for _, tr := range expr.Variables() {
			note := r.anyOrigin(tr, ctx, *d.Subject)
			if note != "" {
				d.Detail = trimDot(d.Detail) + ". " + note
				break
			}
		}
	}
	return diags
}

// anyOrigin explains a step.NAME.FIELD reference, within the error's
// range, to an output of type any; "" for any other reference.
func (r *run) anyOrigin(tr hcl.Traversal, ctx *hcl.EvalContext, subject hcl.Range) string {
	if len(tr) < 3 || tr.RootName() != lang.RootStep || !overlap(tr.SourceRange(), subject) {
		return ""
	}
	name, ok1 := tr[1].(hcl.TraverseAttr)
	field, ok2 := tr[2].(hcl.TraverseAttr)
	if !ok1 || !ok2 {
		return ""
	}
	s := r.prog.StepsByName[name.Name]
	if s == nil {
		return ""
	}
	f := findOutput(s, field.Name)
	if f == nil || f.Type.Type != cty.DynamicPseudoType {
		return ""
	}
	v, d := tr[:3].TraverseAbs(ctx)
	if d.HasErrors() || lang.IsSensitive(v) {
		return ""
	}
	what := "null"
	if !v.IsNull() {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(PlainJSON(v))
		what = lang.FriendlyTypeName(v.Type()) + ", " + cut(strings.TrimSpace(b.String()), 80)
	}
	return fmt.Sprintf("step.%s.%s is output %q of block %q, of type any, which only the run can check; here it is %s.",
		name.Name, field.Name, field.Name, s.Block.Name, what)
}

func findOutput(s *compiler.Step, name string) *lang.Field {
	for _, f := range s.Outputs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func overlap(a, b hcl.Range) bool {
	return a.Filename == b.Filename && a.Start.Byte <= b.End.Byte && b.Start.Byte <= a.End.Byte
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
