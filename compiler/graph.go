package compiler

import (
	"slices"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// graph builds the DAG: a step depends on the steps its expressions refer
// to, directly or through locals, and on its depends_on entries.
func (c *compilation) graph() hcl.Diagnostics {
	p := c.prog
	var diags hcl.Diagnostics
	localSteps := map[*Local][]*Step{}
	var stepsOf func(l *Local, seen map[*Local]bool) []*Step
	stepsOf = func(l *Local, seen map[*Local]bool) []*Step {
		if r, ok := localSteps[l]; ok {
			return r
		}
		if seen[l] {
			return nil
		}
		seen[l] = true
		out := append([]*Step(nil), l.Steps...)
		for _, d := range l.Deps {
			out = append(out, stepsOf(d, seen)...)
		}
		localSteps[l] = out
		return out
	}
	c.depRanges = make([][]hcl.Range, len(p.Steps))
	for _, s := range p.Steps {
		var many map[*Step]bool // the deps as a set, once there are many
		add := func(dep *Step, rng hcl.Range) {
			if dep == nil || dep == s {
				return
			}
			switch {
			case many != nil:
				if many[dep] {
					return
				}
				many[dep] = true
			case slices.Contains(s.Deps, dep):
				return
			case len(s.Deps) >= 32:
				many = map[*Step]bool{dep: true}
				for _, d := range s.Deps {
					many[d] = true
				}
			}
			c.depRanges[s.Index] = append(c.depRanges[s.Index], rng)
			s.Deps = append(s.Deps, dep)
		}
		for _, r := range c.stepRefs[s.Index] {
			switch r.Root {
			case lang.RootStep:
				add(p.StepsByName[r.Name], r.NameRange())
			case lang.RootLocal:
				if l := p.LocalsByName[r.Name]; l != nil {
					s.LocalRefs = append(s.LocalRefs, l)
					for _, dep := range stepsOf(l, map[*Local]bool{}) {
						if dep == s {
							diags = append(diags, lang.Error(r.NameRange(), "Self-referential step",
								"Step %q refers to itself through local.%s, which uses step.%s; a step cannot depend on its own outputs.", s.Name, l.Name, s.Name)...)
						}
						add(dep, r.NameRange())
					}
				}
			}
		}
		for _, tr := range s.DependsOn {
			if ref, _ := lang.ParseRef(tr); ref != nil {
				add(p.StepsByName[ref.Name], tr.SourceRange())
			}
		}
		sort.Sort(byIndex{s.Deps, c.depRanges[s.Index]})
	}
	for _, s := range p.Steps {
		for _, d := range s.Deps {
			d.Dependents = append(d.Dependents, s)
		}
	}
	// The steps refs refer to, directly or through locals, in
	// declaration order.
	refSteps := func(refs []*lang.Ref) []*Step {
		seen := map[*Step]bool{}
		var steps []*Step
		add := func(s *Step) {
			if s != nil && !seen[s] {
				seen[s] = true
				steps = append(steps, s)
			}
		}
		for _, r := range refs {
			switch r.Root {
			case lang.RootStep:
				add(p.StepsByName[r.Name])
			case lang.RootLocal:
				if l := p.LocalsByName[r.Name]; l != nil {
					for _, s := range stepsOf(l, map[*Local]bool{}) {
						add(s)
					}
				}
			}
		}
		sort.Slice(steps, func(i, j int) bool { return steps[i].Index < steps[j].Index })
		return steps
	}
	p.OutputSteps = map[*lang.Output][]*Step{}
	for _, o := range p.Outputs {
		p.OutputSteps[o] = refSteps(c.outputRefs[o])
	}
	p.MemorySteps = map[*lang.Memory][]*Step{}
	for _, m := range p.Memories {
		p.MemorySteps[m] = refSteps(c.memoryRefs[m])
	}
	c.hashEnvs()
	return diags
}

// cycles reports every cycle of the DAG, naming each step on it.
func (c *compilation) cycles() hcl.Diagnostics {
	var diags hcl.Diagnostics
	steps := c.prog.Steps
	deps := stepDeps(steps)
	for _, comp := range components(len(steps), deps) {
		if len(comp) < 2 {
			continue // a step cannot depend on itself (resolve says so)
		}
		scc := make([]*Step, len(comp))
		for i, v := range comp {
			scc[i] = steps[v]
		}
		var cycle []*Step
		for _, v := range cycleThrough(comp, deps) {
			cycle = append(cycle, steps[v])
		}
		names := make([]string, 0, len(cycle)+1)
		for _, s := range cycle {
			names = append(names, "step."+s.Name)
		}
		names = append(names, "step."+cycle[0].Name)
		detail := "These steps depend on each other in a cycle: " + strings.Join(names, " → ") + "."
		if len(cycle) < len(scc) {
			detail += " All the steps caught in cycles here: " + strings.Join(Names(scc), ", ") + "."
		}
		first, next := cycle[0], cycle[1%len(cycle)]
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Dependency cycle",
			Detail:   detail + " Remove one of the references to break it.",
			Subject:  c.depRange(first, next),
		})
	}
	return diags
}

// depRange returns where s refers to dep, one of its Deps.
func (c *compilation) depRange(s, dep *Step) *hcl.Range {
	if i := slices.Index(s.Deps, dep); i >= 0 && i < len(c.depRanges[s.Index]) {
		return &c.depRanges[s.Index][i]
	}
	return nil
}

// stepDeps is the step graph as package-level cycle functions take it.
func stepDeps(steps []*Step) func(int) []int {
	return func(i int) []int {
		out := make([]int, len(steps[i].Deps))
		for k, d := range steps[i].Deps {
			out[k] = d.Index
		}
		return out
	}
}

// stages assigns each step its longest-path level and finds a critical
// path.
func (c *compilation) stages() hcl.Diagnostics {
	p := c.prog
	order := topoOrder(p.Steps)
	for _, s := range order {
		s.Stage = 0
		for _, d := range s.Deps {
			s.Stage = max(s.Stage, d.Stage+1)
		}
		for len(p.Stages) <= s.Stage {
			p.Stages = append(p.Stages, nil)
		}
	}
	for _, s := range p.Steps {
		p.Stages[s.Stage] = append(p.Stages[s.Stage], s)
	}
	var last *Step
	for _, s := range p.Steps {
		if last == nil || s.Stage > last.Stage {
			last = s
		}
	}
	for s := last; s != nil; {
		p.CriticalPath = append([]*Step{s}, p.CriticalPath...)
		var prev *Step
		for _, d := range s.Deps {
			if d.Stage == s.Stage-1 {
				prev = d
				break
			}
		}
		s = prev
	}
	return nil
}

// topoOrder returns the steps with every step after its dependencies, in
// declaration order where the graph allows (Kahn's algorithm).
func topoOrder(steps []*Step) []*Step {
	pending := make([]int, len(steps))
	var ready []*Step
	for _, s := range steps {
		pending[s.Index] = len(s.Deps)
		if len(s.Deps) == 0 {
			ready = append(ready, s)
		}
	}
	out := make([]*Step, 0, len(steps))
	for len(ready) > 0 {
		s := ready[0]
		ready = ready[1:]
		out = append(out, s)
		for _, d := range s.Dependents {
			pending[d.Index]--
			if pending[d.Index] == 0 {
				ready = append(ready, d)
			}
		}
	}
	return out
}

// byIndex sorts a step's Deps by declaration order, with their ranges.
type byIndex struct {
	deps   []*Step
	ranges []hcl.Range
}

func (b byIndex) Len() int           { return len(b.deps) }
func (b byIndex) Less(i, j int) bool { return b.deps[i].Index < b.deps[j].Index }
func (b byIndex) Swap(i, j int) {
	b.deps[i], b.deps[j] = b.deps[j], b.deps[i]
	b.ranges[i], b.ranges[j] = b.ranges[j], b.ranges[i]
}
