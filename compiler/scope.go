package compiler

import (
	"sync"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Values supplies what references evaluate to. The compiler supplies
// unknown values of the declared types; plan supplies known inputs; the
// runtime supplies the real values of finished steps.
type Values interface {
	Input(in *lang.Input) cty.Value
	Secret(s *lang.Secret) cty.Value
	Memory(m *lang.Memory) cty.Value
	Step(s *Step) cty.Value
	RunID() cty.Value
}

// Each is the each object of one instance of a for_each step.
type Each struct {
	Key, Value cty.Value
}

// Scope evaluates a program's expressions against a set of Values. Local
// values are evaluated once per scope, when first used. A Scope is safe for
// concurrent use.
type Scope struct {
	Program *Program
	Values  Values

	mu     sync.Mutex
	locals map[*Local]*localResult
	vars   sync.Map // hcl.Expression → []hcl.Traversal, its references
}

type localResult struct {
	val   cty.Value
	diags hcl.Diagnostics
}

// NewScope returns a scope over prog's expressions.
func NewScope(prog *Program, vals Values) *Scope {
	return &Scope{Program: prog, Values: vals, locals: map[*Local]*localResult{}}
}

// Eval evaluates expr, with each set inside a for_each instance.
func (s *Scope) Eval(expr hcl.Expression, each *Each) (cty.Value, *hcl.EvalContext, hcl.Diagnostics) {
	ctx, diags := s.EvalContext(s.variables(expr), each)
	if diags.HasErrors() {
		return cty.DynamicVal, ctx, diags
	}
	v, d := expr.Value(ctx)
	return v, ctx, append(diags, d...)
}

// variables returns an expression's references, walking its syntax tree
// once per scope: a for_each step evaluates the same expressions for every
// instance.
func (s *Scope) variables(expr hcl.Expression) []hcl.Traversal {
	if v, ok := s.Program.vars[expr]; ok {
		return v
	}
	if v, ok := s.vars.Load(expr); ok {
		return v.([]hcl.Traversal)
	}
	vars := expr.Variables()
	s.vars.Store(expr, vars)
	return vars
}

// Local returns the value of a local, evaluating it on first use. Two
// goroutines may both evaluate a local that neither has finished; the
// results are the same and the first one is kept. (A sync.Once would
// deadlock when a local is reached again while it is being evaluated, as
// it is through a step on a dependency cycle.)
func (s *Scope) Local(l *Local) (cty.Value, hcl.Diagnostics) {
	s.mu.Lock()
	r, ok := s.locals[l]
	s.mu.Unlock()
	if ok {
		return r.val, r.diags
	}
	val, _, diags := s.Eval(l.Expr, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.locals[l]; ok {
		return r.val, r.diags
	}
	s.locals[l] = &localResult{val: val, diags: diags}
	return val, diags
}

// EvalContext builds the evaluation context for the given references: each
// root holds only the names referred to, so building it costs as much as the
// expression's references, not the size of the flow.
func (s *Scope) EvalContext(traversals []hcl.Traversal, each *Each) (*hcl.EvalContext, hcl.Diagnostics) {
	p := s.Program
	var diags hcl.Diagnostics
	groups := map[string]map[string]cty.Value{}
	vars := map[string]cty.Value{}
	put := func(root, name string, v cty.Value) {
		m := groups[root]
		if m == nil {
			m = map[string]cty.Value{}
			groups[root] = m
		}
		m[name] = v
	}
	for _, tr := range traversals {
		ref, d := lang.ParseRef(tr)
		if d.HasErrors() {
			continue // reported by the resolve pass; evaluation reports it again
		}
		switch ref.Root {
		case lang.RootInput:
			if in := p.InputsByName[ref.Name]; in != nil {
				put(ref.Root, ref.Name, s.Values.Input(in))
			}
		case lang.RootSecret:
			if sec := p.SecretsByName[ref.Name]; sec != nil {
				put(ref.Root, ref.Name, s.Values.Secret(sec))
			}
		case lang.RootMemory:
			if m := p.MemoriesByName[ref.Name]; m != nil {
				put(ref.Root, ref.Name, s.Values.Memory(m))
			}
		case lang.RootLocal:
			if l := p.LocalsByName[ref.Name]; l != nil {
				v, d := s.Local(l)
				diags = append(diags, d...)
				put(ref.Root, ref.Name, v)
			}
		case lang.RootStep:
			if st := p.StepsByName[ref.Name]; st != nil {
				put(ref.Root, ref.Name, s.Values.Step(st))
			}
		case lang.RootEach:
			if each != nil {
				vars[lang.RootEach] = cty.ObjectVal(map[string]cty.Value{"key": each.Key, "value": each.Value})
			}
		case lang.RootRun:
			vars[lang.RootRun] = cty.ObjectVal(map[string]cty.Value{"id": s.Values.RunID()})
		case lang.RootFlow:
			vars[lang.RootFlow] = cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(p.Flow.Name)})
		}
	}
	for root, m := range groups {
		vars[root] = cty.ObjectVal(m)
	}
	return &hcl.EvalContext{Variables: vars, Functions: p.Functions}, diags
}
