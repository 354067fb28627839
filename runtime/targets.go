package runtime

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// target marks the steps a run with Options.Targets runs: the targets and,
// transitively, the steps they depend on. A target is a step's name, or
// step.NAME.
func (r *run) target() hcl.Diagnostics {
	if len(r.opts.Targets) == 0 {
		return nil
	}
	var diags hcl.Diagnostics
	names := make([]string, len(r.prog.Steps))
	for i, s := range r.prog.Steps {
		names[i] = s.Name
	}
	r.targeted = make([]bool, len(r.prog.Steps))
	var mark func(s *compiler.Step)
	mark = func(s *compiler.Step) {
		if r.targeted[s.Index] {
			return
		}
		r.targeted[s.Index] = true
		for _, d := range s.Deps {
			mark(r.prog.Steps[d.Index])
		}
	}
	for _, t := range r.opts.Targets {
		name := strings.TrimPrefix(t, "step.")
		s := r.prog.StepsByName[name]
		if s == nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Unknown target",
				Detail: fmt.Sprintf("--target %s names no step of flow %q.%s", t, r.prog.Flow.Name, lang.Suggest(name, names)),
			})
			continue
		}
		mark(s)
	}
	return diags
}
