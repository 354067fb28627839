package compiler

import (
	"slices"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
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
	// Plain: Key and Value are wholly known and hold no mark (the
	// runtime found the for_each value so, and Sensitive is lang's only
	// mark), and so is a value Eval takes from them alone (returning no
	// context).
	Plain bool
}

// Scope evaluates a program's expressions against a set of Values. Local
// values are evaluated once per scope, when first used. A Scope is safe for
// concurrent use.
type Scope struct {
	Program *Program
	Values  Values

	mu     sync.Mutex
	locals map[*Local]*localResult
	vars   sync.Map // hcl.Expression → *exprRefs
}

type localResult struct {
	val   cty.Value
	diags hcl.Diagnostics
}

// NewScope returns a scope over prog's expressions.
func NewScope(prog *Program, vals Values) *Scope {
	return &Scope{Program: prog, Values: vals, locals: map[*Local]*localResult{}}
}

// Eval evaluates expr, with each set inside a for_each instance. The
// context it returns is what the expression was evaluated in, for
// diagnostics; nil when it needed none (the value was taken from each
// alone, see eachTraversal; EvalContext builds it).
func (s *Scope) Eval(expr hcl.Expression, each *Each) (cty.Value, *hcl.EvalContext, hcl.Diagnostics) {
	if v, ok := eachTraversal(expr, each); ok {
		return v, nil, nil
	}
	ctx, diags := s.evalContext(s.variables(expr).names, each)
	if diags.HasErrors() {
		return cty.DynamicVal, ctx, diags
	}
	v, d := expr.Value(ctx)
	return v, ctx, append(diags, d...)
}

// EvalContext is the context Eval evaluates expr in, with each set inside
// a for_each instance: for the diagnostics of a value Eval returned with
// no context.
func (s *Scope) EvalContext(expr hcl.Expression, each *Each) *hcl.EvalContext {
	ctx, _ := s.evalContext(s.variables(expr).names, each)
	return ctx
}

// eachTraversal evaluates an expression that is only each.key or
// each.value followed by attributes and indexes (item = each.value, the
// usual argument of a for_each step) without an evaluation context: it
// is what evaluating it in one gives, and building the context, with its
// each object, cost more than the rest of a small call. ok is false for
// any other expression, and for one that fails: Eval then evaluates it
// as usual, for the same diagnostics.
func eachTraversal(expr hcl.Expression, each *Each) (cty.Value, bool) {
	te, ok := expr.(*hclsyntax.ScopeTraversalExpr)
	if !ok || each == nil || len(te.Traversal) < 2 || te.Traversal.RootName() != lang.RootEach {
		return cty.NilVal, false
	}
	attr, ok := te.Traversal[1].(hcl.TraverseAttr)
	if !ok {
		return cty.NilVal, false
	}
	var v cty.Value
	switch attr.Name {
	case "key":
		v = each.Key
	case "value":
		v = each.Value
	default:
		return cty.NilVal, false
	}
	if rest := te.Traversal[2:]; len(rest) > 0 {
		var diags hcl.Diagnostics
		if v, diags = rest.TraverseRel(v); diags.HasErrors() {
			return cty.NilVal, false
		}
	}
	return v, true
}

// variables returns an expression's references, walking its syntax tree
// once per scope (the compiler found those of the flow's own expressions):
// a for_each step evaluates the same expressions for every instance.
func (s *Scope) variables(expr hcl.Expression) *exprRefs {
	if v, ok := s.Program.vars[expr]; ok {
		return v
	}
	if v, ok := s.vars.Load(expr); ok {
		return v.(*exprRefs)
	}
	r := newExprRefs(expr)
	s.vars.Store(expr, r)
	return r
}

// exprRefs are the references of an expression: its traversals, and the
// distinct root.name pairs among them.
type exprRefs struct {
	traversals []hcl.Traversal
	names      []refName
}

func newExprRefs(expr hcl.Expression) *exprRefs {
	trs := expr.Variables()
	return &exprRefs{traversals: trs, names: refNames(trs)}
}

// refName is what an evaluation context needs of a reference: its root
// and the name after it.
type refName struct{ root, name string }

// refNames are the distinct root.name pairs of traversals; traversals that
// are not references (reported by the resolve pass) are left out.
func refNames(traversals []hcl.Traversal) []refName {
	names := make([]refName, 0, len(traversals))
	for _, tr := range traversals {
		ref, d := lang.ParseRef(tr)
		if d.HasErrors() {
			continue
		}
		n := refName{ref.Root, ref.Name}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	// By root, so that evalContext builds each root's object in one go.
	slices.SortStableFunc(names, func(a, b refName) int { return strings.Compare(a.root, b.root) })
	return names
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

// evalContext builds the evaluation context for the given references: each
// root holds only the names referred to, so building it costs as much as the
// expression's references, not the size of the flow.
func (s *Scope) evalContext(names []refName, each *Each) (*hcl.EvalContext, hcl.Diagnostics) {
	p := s.Program
	var diags hcl.Diagnostics
	vars := make(map[string]cty.Value, 2)
	// names are sorted by root: the names of one root are collected in
	// group, which becomes the root's object when the next root starts.
	var group map[string]cty.Value
	var groupRoot string
	put := func(root, name string, v cty.Value) {
		if group == nil || root != groupRoot {
			if group != nil {
				vars[groupRoot] = lang.ObjectOf(group)
			}
			group, groupRoot = lang.NewAttrs(), root
		}
		group[name] = v
	}
	for _, ref := range names {
		switch ref.root {
		case lang.RootInput:
			if in := p.InputsByName[ref.name]; in != nil {
				put(ref.root, ref.name, s.Values.Input(in))
			}
		case lang.RootSecret:
			if sec := p.SecretsByName[ref.name]; sec != nil {
				put(ref.root, ref.name, s.Values.Secret(sec))
			}
		case lang.RootMemory:
			if m := p.MemoriesByName[ref.name]; m != nil {
				put(ref.root, ref.name, s.Values.Memory(m))
			}
		case lang.RootLocal:
			if l := p.LocalsByName[ref.name]; l != nil {
				v, d := s.Local(l)
				diags = append(diags, d...)
				put(ref.root, ref.name, v)
			}
		case lang.RootStep:
			if st := p.StepsByName[ref.name]; st != nil {
				put(ref.root, ref.name, s.Values.Step(st))
			}
		case lang.RootEach:
			if each != nil {
				attrs := lang.NewAttrs()
				attrs["key"], attrs["value"] = each.Key, each.Value
				vars[lang.RootEach] = lang.ObjectOf(attrs)
			}
		case lang.RootRun:
			vars[lang.RootRun] = cty.ObjectVal(map[string]cty.Value{"id": s.Values.RunID()})
		case lang.RootFlow:
			vars[lang.RootFlow] = cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(p.Flow.Name)})
		}
	}
	if group != nil {
		vars[groupRoot] = lang.ObjectOf(group)
	}
	return &hcl.EvalContext{Variables: vars, Functions: p.Functions}, diags
}
