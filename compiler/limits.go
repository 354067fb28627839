package compiler

import (
	"fmt"
	"math/big"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// LimitKeys are the keys of a run's limits (lang.Limits), from its
// inputs; a nil key is a limit the flow does not declare.
type LimitKeys struct {
	Concurrency, Rate, Debounce *string
}

// limitKey is one declared limit's key expression, with its block's type.
type limitKey struct {
	kind string
	expr hcl.Expression
	out  **string
}

func (p *Program) limitKeys(k *LimitKeys) []limitKey {
	var out []limitKey
	if c := p.Limits.Concurrency; c != nil && c.Key != nil {
		out = append(out, limitKey{"concurrency", c.Key, &k.Concurrency})
	}
	if r := p.Limits.RateLimit; r != nil && r.Key != nil {
		out = append(out, limitKey{"rate_limit", r.Key, &k.Rate})
	}
	if d := p.Limits.Debounce; d != nil && d.Key != nil {
		out = append(out, limitKey{"debounce", d.Key, &k.Debounce})
	}
	return out
}

// limits checks each limit's key: it refers to inputs alone (a run's key
// is known when it starts, before any step ran), and it is a string, a
// number or a bool.
func (c *compilation) limits() hcl.Diagnostics {
	p := c.prog
	var diags hcl.Diagnostics
	var keys LimitKeys
	inputs := map[string]cty.Value{}
	for _, in := range p.Inputs {
		inputs[in.Name] = cty.UnknownVal(in.Type.Type)
	}
	if d := p.Limits.Debounce; d != nil {
		for _, in := range p.Inputs {
			if in.Sensitive {
				diags = append(diags, lang.Error(d.DeclRange, "Debounce of a flow with sensitive inputs",
					"A debounced run starts with the inputs of the last start of its key, kept in the state until then, where sensitive inputs are never kept; input %q is sensitive.",
					in.Name)...)
				break
			}
		}
	}
	for _, l := range p.limitKeys(&keys) {
		bad := false
		for _, tr := range l.expr.Variables() {
			if tr.RootName() != lang.RootInput {
				diags = append(diags, lang.Error(tr.SourceRange(), "Invalid limit key",
					"The key of a %s block is made of the run's inputs alone (input.NAME), which are known when it starts; %s is not.",
					l.kind, lang.TraversalString(tr))...)
				bad = true
				continue
			}
			ref, d := c.resolveTraversal(tr, refContext{what: l.kind})
			if d.HasErrors() {
				diags = append(diags, d...)
				bad = true
			} else if in := p.InputsByName[ref.Name]; in != nil && in.Sensitive {
				diags = append(diags, lang.Error(tr.SourceRange(), "Sensitive limit key",
					"Input %q is sensitive, and a run's key is shown where it waits (waiting_for) and kept in the state: key a %s block on inputs that are not sensitive.",
					ref.Name, l.kind)...)
				bad = true
			}
		}
		if d := c.checkFunctions(l.expr); d.HasErrors() {
			diags = append(diags, d...)
			bad = true
		}
		if bad {
			continue
		}
		_, d := p.limitKey(l, inputs)
		diags = append(diags, d...)
	}
	return diags
}

// LimitKeys are the keys of a run with the given inputs (resolved:
// ResolveInputs).
func (p *Program) LimitKeys(inputs map[string]cty.Value) (LimitKeys, hcl.Diagnostics) {
	var keys LimitKeys
	var diags hcl.Diagnostics
	for _, l := range p.limitKeys(&keys) {
		k, d := p.limitKey(l, inputs)
		diags = append(diags, d...)
		if !d.HasErrors() && k.IsKnown() {
			s := k.AsString()
			*l.out = &s
		}
	}
	return keys, diags
}

// limitKey evaluates a limit's key: a string, unknown while an input is.
func (p *Program) limitKey(l limitKey, inputs map[string]cty.Value) (cty.Value, hcl.Diagnostics) {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{lang.RootInput: cty.ObjectVal(inputs)},
		Functions: p.Functions,
	}
	if ctx.Functions == nil {
		ctx.Functions = lang.Functions(p.Dir)
	}
	v, diags := l.expr.Value(ctx)
	if diags.HasErrors() {
		return cty.UnknownVal(cty.String), diags
	}
	v, _ = v.Unmark()
	if !v.Type().IsPrimitiveType() && v.Type() != cty.DynamicPseudoType {
		return cty.UnknownVal(cty.String), lang.Error(l.expr.Range(), "Invalid limit key",
			"The key of a %s block is a string, a number or a bool; this one is %s.", l.kind, lang.FriendlyTypeName(v.Type()))
	}
	if !v.IsKnown() {
		return cty.UnknownVal(cty.String), nil
	}
	if v.IsNull() {
		return cty.UnknownVal(cty.String), lang.Error(l.expr.Range(), "Invalid limit key",
			"The key of the %s block is null for these inputs; give it a value.", l.kind)
	}
	if v.Type() == cty.Number {
		// 17, not 17.000: the key of a whole number reads as it is written.
		if i, acc := v.AsBigFloat().Int64(); acc == big.Exact {
			return cty.StringVal(fmt.Sprint(i)), nil
		}
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return cty.UnknownVal(cty.String), lang.Error(l.expr.Range(), "Invalid limit key", "The key of a %s block is a string: %s.", l.kind, err)
	}
	return s, nil
}
