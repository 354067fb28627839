package compiler

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// CriticalPathBy is a chain of dependent steps whose durations, as weight
// gives them, add up to the most, and that sum: the least time a run can
// take, however parallel. Without durations (weight 0 everywhere) it is
// the longest chain by steps, CriticalPath.
func (p *Program) CriticalPathBy(weight func(*Step) time.Duration) ([]*Step, time.Duration) {
	if len(p.Stages) == 0 {
		return nil, 0
	}
	best := make(map[*Step]time.Duration, len(p.Steps))
	from := make(map[*Step]*Step, len(p.Steps))
	var end *Step
	for _, stage := range p.Stages { // a step's dependencies are in earlier stages
		for _, s := range stage {
			var prev *Step
			for _, d := range s.Deps {
				if prev == nil || best[d] > best[prev] || (best[d] == best[prev] && d.Stage > prev.Stage) {
					prev = d
				}
			}
			best[s], from[s] = weight(s), prev
			if prev != nil {
				best[s] += best[prev]
			}
			if end == nil || best[s] > best[end] || (best[s] == best[end] && s.Stage > end.Stage) {
				end = s
			}
		}
	}
	var path []*Step
	for s := end; s != nil; s = from[s] {
		path = append([]*Step{s}, path...)
	}
	return path, best[end]
}

// DeclaredDuration is how long a step is known to take before it runs: a
// sleep step's literal duration; false for any other.
func DeclaredDuration(s *Step) (time.Duration, bool) {
	if !s.Block.Builtin() || s.Block.Name != "sleep" {
		return 0, false
	}
	a := s.Arg("duration")
	if a == nil {
		return 0, false
	}
	v, diags := a.Expr.Value(&hcl.EvalContext{})
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return 0, false
	}
	d, err := time.ParseDuration(v.AsString())
	return d, err == nil
}
