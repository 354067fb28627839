package compiler

import (
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// types evaluates every expression with unknown values of the declared
// types and checks that each result converts to its target type, as
// Terraform's validate does. Values of type any defer the check to run time.
func (c *compilation) types() hcl.Diagnostics {
	p := c.prog
	p.OutputTypes = make(map[string]cty.Type, len(p.Outputs))
	tv := &typeValues{c: c, state: map[*Step]int{}}
	tv.scope = NewScope(p, tv)
	var diags hcl.Diagnostics
	for _, l := range p.Locals {
		_, d := tv.scope.Local(l)
		diags = append(diags, d...)
	}
	for _, s := range p.Steps {
		tv.Step(s)
	}
	diags = append(diags, tv.diags...)
	// With every step's value known, find splats over map-keyed steps.
	for _, l := range p.Locals {
		diags = append(diags, c.checkSplats(l.Expr)...)
	}
	for _, s := range p.Steps {
		for _, a := range s.Args {
			diags = append(diags, c.checkSplats(a.Expr)...)
		}
		if s.When != nil {
			diags = append(diags, c.checkSplats(s.When)...)
		}
		if s.ForEach != nil {
			diags = append(diags, c.checkSplats(s.ForEach)...)
		}
	}
	for _, o := range p.Outputs {
		if o.Value == nil {
			continue
		}
		diags = append(diags, c.checkSplats(o.Value)...)
		v, _, d := tv.eval(o.Value, nil)
		diags = append(diags, d...)
		if !d.HasErrors() {
			p.OutputTypes[o.Name] = v.Type()
		}
		if !d.HasErrors() && lang.IsSensitive(v) && !o.Sensitive {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Output refers to sensitive values",
				Detail: "Output " + strconv.Quote(o.Name) + " may be derived from a secret or a sensitive input. " +
					"Set sensitive = true in the output block to confirm that it is meant to be returned; it is then shown as (sensitive).",
				Subject: o.Value.Range().Ptr(),
			})
		}
	}
	for _, m := range p.Memories {
		if m.Value == nil {
			continue
		}
		v, ctx, d := tv.eval(m.Value, nil)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if lang.IsSensitive(v) {
			diags = append(diags, lang.Error(m.Value.Range(), "Sensitive memory value",
				"Memory %q would store a value derived from a secret or a sensitive input; sensitive values are never stored in the state.", m.Name)...)
			continue
		}
		diags = append(diags, checkConversion(v, m.Type, m.Value, ctx, "Incorrect memory value type",
			sprintf("The value of memory %q must be %s", m.Name, lang.FriendlyTypeName(m.Type.Type)))...)
	}
	return append(diags, c.checkMCP(tv)...)
}

// staticValues are the values known before a run: the given inputs (none
// at validate time) and, for everything else, unknown values of the
// declared types. Sensitive inputs and secrets are marked.
type staticValues struct {
	inputs map[string]cty.Value
}

func (sv *staticValues) Input(in *lang.Input) cty.Value {
	v, ok := sv.inputs[in.Name]
	if !ok {
		v = cty.UnknownVal(in.Type.Type)
	}
	if in.Sensitive {
		v = v.Mark(lang.Sensitive)
	}
	return v
}

func (sv *staticValues) Secret(*lang.Secret) cty.Value {
	return cty.UnknownVal(cty.String).Mark(lang.Sensitive)
}

func (sv *staticValues) Memory(m *lang.Memory) cty.Value { return cty.UnknownVal(m.Type.Type) }

func (sv *staticValues) RunID() cty.Value { return cty.UnknownVal(cty.String) }

// typeValues are the compile-time values: each step's value is computed by
// checking the step when it is first referred to.
type typeValues struct {
	staticValues
	c     *compilation
	scope *Scope
	state map[*Step]int // 0 unvisited, 1 in progress, 2 done
	diags hcl.Diagnostics
	// objects are the primitive object types steps have had (intern).
	objects map[string]cty.Type
}

// eval evaluates an expression for the types pass. Some functions (try,
// can) and object keys drop the sensitive mark when their arguments are
// unknown, as every value is here: a result that is not known yet is
// marked sensitive when anything the expression refers to is.
func (tv *typeValues) eval(expr hcl.Expression, each *Each) (cty.Value, *hcl.EvalContext, hcl.Diagnostics) {
	v, ctx, diags := tv.scope.Eval(expr, each)
	if diags.HasErrors() || v.IsWhollyKnown() || lang.IsSensitive(v) || isNonsensitive(expr) {
		return v, ctx, diags
	}
	if ctx == nil {
		ctx = tv.scope.EvalContext(expr, each)
	}
	for _, tr := range tv.scope.variables(expr).traversals {
		if rv, d := tr.TraverseAbs(ctx); !d.HasErrors() && lang.IsSensitive(rv) {
			return v.Mark(lang.Sensitive), ctx, diags
		}
		if root, ok := ctx.Variables[tr.RootName()]; ok && len(tr) >= 2 {
			// step.x where x is sensitive as a whole, even if the
			// traversal goes deeper than its known type.
			if attr, ok := tr[1].(hcl.TraverseAttr); ok && root.Type().IsObjectType() && root.Type().HasAttribute(attr.Name) &&
				lang.IsSensitive(root.GetAttr(attr.Name)) {
				return v.Mark(lang.Sensitive), ctx, diags
			}
		}
	}
	return v, ctx, diags
}

// isNonsensitive reports whether an expression is a call of nonsensitive(),
// whose value is not sensitive whatever it refers to.
func isNonsensitive(expr hcl.Expression) bool {
	for {
		switch e := expr.(type) {
		case *hclsyntax.ParenthesesExpr:
			expr = e.Expression
		case *hclsyntax.TemplateWrapExpr:
			expr = e.Wrapped
		case *hclsyntax.FunctionCallExpr:
			return e.Name == "nonsensitive"
		default:
			return false
		}
	}
}

// Step checks a step on first use and returns its compile-time value. A step
// reached again while it is being checked is part of a cycle, which the
// cycles pass reports; it gets a placeholder here.
func (tv *typeValues) Step(s *Step) cty.Value {
	switch tv.state[s] {
	case 1:
		return cty.DynamicVal
	case 2:
		return s.Value
	}
	tv.state[s] = 1
	tv.diags = append(tv.diags, tv.checkStep(s)...)
	tv.state[s] = 2
	return s.Value
}

func (tv *typeValues) checkStep(s *Step) hcl.Diagnostics {
	s.Value = cty.DynamicVal
	if s.Block == nil {
		return nil
	}
	var diags hcl.Diagnostics
	each, wrap, d := tv.forEach(s)
	diags = append(diags, d...)
	tv.c.hintEach(s, each)

	argTypes := map[string]cty.Type{}
	for _, a := range s.Args {
		in := s.Block.Input(a.Name)
		if in == nil {
			continue // not an input of the block: resolve said so
		}
		v, ctx, d := tv.eval(a.Expr, each)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if lang.IsSensitive(v) && s.PassesSensitive(a.Name) {
			s.Sensitive = true
		}
		d = checkConversion(v, in.Type, a.Expr, ctx, "Incorrect input type",
			sprintf("Input %q of block %q must be %s", in.Name, s.Block.Name, lang.FriendlyTypeName(in.Type.Type)))
		if !d.HasErrors() {
			d = checkInputValue(s.Block, in, v, a.Expr, ctx)
		}
		diags = append(diags, d...)
		if !d.HasErrors() {
			argTypes[a.Name] = v.Type()
		}
	}
	if s.When != nil {
		v, ctx, d := tv.eval(s.When, each)
		diags = append(diags, d...)
		if !d.HasErrors() {
			diags = append(diags, checkConversion(v, lang.TypeSpec{Type: cty.Bool}, s.When, ctx, "Invalid when condition",
				"The when condition must be a bool")...)
			if v.IsKnown() && v.IsNull() {
				diags = append(diags, lang.Error(s.When.Range(), "Invalid when condition", "The when condition must not be null.")...)
			}
		}
	}

	if s.Flow != nil && s.Flow.SensitiveOutputs() {
		s.Sensitive = true
	}
	s.OutputType = tv.intern(outputType(s.Outputs, s.Block, argTypes))
	inst := cty.UnknownVal(s.OutputType)
	if s.Sensitive {
		inst = inst.Mark(lang.Sensitive)
	}
	s.Value = wrap(inst)
	return diags
}

// intern returns the object type equal to ty that an earlier step got,
// when ty's attributes are primitive: the steps of a flow of thousands of
// steps of a few blocks then share a few types.
func (tv *typeValues) intern(ty cty.Type) cty.Type {
	var key strings.Builder
	for _, name := range lang.SortedKeys(ty.AttributeTypes()) {
		at := ty.AttributeType(name)
		if !at.IsPrimitiveType() && at != cty.DynamicPseudoType {
			return ty
		}
		key.WriteString(name)
		key.WriteByte(0)
		key.WriteString(at.FriendlyName())
		key.WriteByte(0)
	}
	if t, ok := tv.objects[key.String()]; ok {
		return t
	}
	if tv.objects == nil {
		tv.objects = map[string]cty.Type{}
	}
	tv.objects[key.String()] = ty
	return ty
}

// outputType is the object type of a step instance's outputs; an output
// that takes its type from an input gets the type of the value given.
func outputType(outputs []*lang.Field, b *blocks.Block, argTypes map[string]cty.Type) cty.Type {
	attrs := make(map[string]cty.Type, len(outputs))
	for _, f := range outputs {
		attrs[f.Name] = f.Type.Type
		if in, ok := b.OutputTypeFrom[f.Name]; ok {
			if ty, ok := argTypes[in]; ok {
				attrs[f.Name] = ty
			}
		}
	}
	return cty.Object(attrs)
}

// forEach checks a step's for_each and returns the each value its
// instances see and how one instance's value becomes the step's value.
func (tv *typeValues) forEach(s *Step) (*Each, func(cty.Value) cty.Value, hcl.Diagnostics) {
	single := func(v cty.Value) cty.Value { return v }
	if s.ForEach == nil {
		return nil, single, nil
	}
	v, _, diags := tv.eval(s.ForEach, nil)
	dynamic := &Each{Key: cty.DynamicVal, Value: cty.DynamicVal}
	asDynamic := func(cty.Value) cty.Value { return cty.DynamicVal }
	if diags.HasErrors() {
		return dynamic, asDynamic, diags
	}
	if d := CheckForEach(s, v); d.HasErrors() {
		return dynamic, asDynamic, d
	}
	ty := v.Type()
	elem := func(t cty.Type) cty.Value { return cty.UnknownVal(t) }
	switch {
	case ty == cty.DynamicPseudoType:
		return dynamic, asDynamic, nil
	case ty.IsListType(), ty.IsSetType():
		return &Each{Key: cty.UnknownVal(cty.Number), Value: elem(ty.ElementType())},
			func(i cty.Value) cty.Value { return cty.UnknownVal(cty.List(i.Type())).WithMarks(i.Marks()) }, nil
	case ty.IsTupleType():
		return &Each{Key: cty.UnknownVal(cty.Number), Value: elem(unifiedType(ty.TupleElementTypes()))},
			func(i cty.Value) cty.Value { return cty.UnknownVal(cty.List(i.Type())).WithMarks(i.Marks()) }, nil
	case ty.IsMapType():
		return &Each{Key: cty.UnknownVal(cty.String), Value: elem(ty.ElementType())},
			func(i cty.Value) cty.Value { return cty.UnknownVal(cty.Map(i.Type())).WithMarks(i.Marks()) }, nil
	case ty.IsObjectType():
		var types []cty.Type
		for _, name := range lang.SortedKeys(ty.AttributeTypes()) {
			types = append(types, ty.AttributeType(name))
		}
		return &Each{Key: cty.UnknownVal(cty.String), Value: elem(unifiedType(types))},
			func(i cty.Value) cty.Value { return cty.UnknownVal(cty.Map(i.Type())).WithMarks(i.Marks()) }, nil
	}
	return dynamic, asDynamic, nil // CheckForEach reported any other type
}

// CheckForEach checks a for_each value, known or not: it may not be
// sensitive (instance keys are shown and stored), null, or anything but a
// list, set, tuple, map or object.
func CheckForEach(s *Step, v cty.Value) hcl.Diagnostics {
	return CheckForEachSensitive(s, v, lang.IsSensitive(v))
}

// CheckForEachSensitive is CheckForEach of a value whose caller knows
// already whether anything inside it is sensitive.
func CheckForEachSensitive(s *Step, v cty.Value, sensitive bool) hcl.Diagnostics {
	rng := s.ForEach.Range()
	if sensitive {
		return lang.Error(rng, "Sensitive for_each",
			"The for_each value of step %q is derived from a secret or a sensitive input; instance keys are shown and stored, so they may not be sensitive.", s.Name)
	}
	if v.IsKnown() && v.IsNull() {
		return lang.Error(rng, "Invalid for_each", "The for_each value of step %q is null; it must be a list, set, tuple or map.", s.Name)
	}
	ty := v.Type()
	if ty == cty.DynamicPseudoType || ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType() {
		return nil
	}
	return lang.Error(rng, "Invalid for_each",
		"The for_each value of step %q must be a list, set, tuple or map; this is %s %s.", s.Name, lang.Article(ty.FriendlyName()), ty.FriendlyName())
}

// checkConversion reports a value that cannot convert to a declared type,
// with the path inside the value where conversion failed.
func checkConversion(v cty.Value, ts lang.TypeSpec, expr hcl.Expression, ctx *hcl.EvalContext, summary, prefix string) hcl.Diagnostics {
	if ts.Defaults != nil && v.IsWhollyKnown() && !v.IsNull() {
		v = ts.Defaults.Apply(v)
	}
	if _, err := convert.Convert(v, ts.Type); err != nil {
		return hcl.Diagnostics{{
			Severity:    hcl.DiagError,
			Summary:     summary,
			Detail:      prefix + ": " + lang.FormatConvertError(err) + ".",
			Subject:     expr.Range().Ptr(),
			Expression:  expr,
			EvalContext: ctx,
		}}
	}
	return nil
}

// unifiedType is the one type all of types convert to, or any when there is
// none (a tuple of mixed elements).
func unifiedType(types []cty.Type) cty.Type {
	if len(types) == 0 {
		return cty.DynamicPseudoType
	}
	ty, _ := convert.UnifyUnsafe(types)
	if ty == cty.NilType {
		return cty.DynamicPseudoType
	}
	return ty
}

// checkInputValue checks a value that is already known at compile time:
// null for a required input, and the block's own rules for the input
// (http's body_type, sleep's duration, …).
func checkInputValue(b *blocks.Block, in *lang.Field, v cty.Value, expr hcl.Expression, ctx *hcl.EvalContext) hcl.Diagnostics {
	if !v.IsWhollyKnown() {
		return nil
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() {
		if in.Required() {
			return hcl.Diagnostics{{
				Severity: hcl.DiagError, Summary: "Null value for required input",
				Detail:  sprintf("Input %q of block %q is required and may not be null.", in.Name, b.Name),
				Subject: expr.Range().Ptr(), Expression: expr, EvalContext: ctx,
			}}
		}
		return nil
	}
	cv, err := lang.Convert(v, in.Type.Type)
	if err != nil {
		return nil
	}
	if err := b.CheckInput(in.Name, cv); err != nil {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid value for input",
			Detail:  sprintf("Input %q of block %q: %s.", in.Name, b.Name, err),
			Subject: expr.Range().Ptr(), Expression: expr, EvalContext: ctx,
		}}
	}
	return nil
}
