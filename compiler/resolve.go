package compiler

import (
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty/function"
)

// resolve looks up every step's block, checks its arguments against the
// block's inputs, and resolves every reference and function name.
func (c *compilation) resolve() hcl.Diagnostics {
	p := c.prog
	var diags hcl.Diagnostics
	for _, s := range p.Steps {
		diags = append(diags, c.resolveBlock(s)...)
		diags = append(diags, c.resolveTools(s)...)
		diags = append(diags, c.resolveProvider(s)...)
		diags = append(diags, c.resolveCollection(s)...)
	}
	diags = append(diags, c.resolveProviderKeys()...)
	for _, l := range p.Locals {
		var d hcl.Diagnostics
		l.Refs, d = c.resolveExpr(l.Expr, refContext{what: "a local value"})
		diags = append(diags, d...)
		for _, r := range l.Refs {
			switch r.Root {
			case lang.RootLocal:
				if dep := p.LocalsByName[r.Name]; dep != nil {
					l.Deps = append(l.Deps, dep)
				}
			case lang.RootStep:
				if dep := p.StepsByName[r.Name]; dep != nil {
					l.Steps = append(l.Steps, dep)
				}
			}
		}
	}
	if d := c.localCycles(); d.HasErrors() {
		// Evaluating a local of a cycle would never end: the passes
		// that evaluate do not run.
		c.noEval = true
		diags = append(diags, d...)
	}
	c.stepRefs = make([][]*lang.Ref, len(p.Steps))
	for _, s := range p.Steps {
		ctx := refContext{what: "step " + strconv.Quote(s.Name), self: s, each: s.ForEach != nil}
		var srefs []*lang.Ref
		for _, a := range s.Args {
			refs, d := c.resolveExpr(a.Expr, ctx)
			diags = append(diags, d...)
			srefs = append(srefs, refs...)
		}
		if s.When != nil {
			refs, d := c.resolveExpr(s.When, ctx)
			diags = append(diags, d...)
			srefs = append(srefs, refs...)
		}
		if s.ForEach != nil {
			refs, d := c.resolveExpr(s.ForEach, refContext{what: "for_each", self: s})
			diags = append(diags, d...)
			srefs = append(srefs, refs...)
		}
		c.stepRefs[s.Index] = srefs
		for _, tr := range s.DependsOn {
			ref, _ := lang.ParseRef(tr)
			diags = append(diags, c.resolveStepName(ref, refContext{self: s})...)
		}
	}
	c.outputRefs = map[*lang.Output][]*lang.Ref{}
	for _, o := range p.Outputs {
		if o.Value != nil {
			refs, d := c.resolveExpr(o.Value, refContext{what: "an output"})
			diags = append(diags, d...)
			c.outputRefs[o] = refs
		}
	}
	c.memoryRefs = map[*lang.Memory][]*lang.Ref{}
	for _, m := range p.Memories {
		if m.Value != nil {
			refs, d := c.resolveExpr(m.Value, refContext{what: "a memory value"})
			diags = append(diags, d...)
			c.memoryRefs[m] = refs
		}
	}
	return diags
}

// resolveBlock finds the step's block and checks the step's arguments and
// output declarations against it.
func (c *compilation) resolveBlock(s *Step) hcl.Diagnostics {
	if s.Use == "" {
		return nil // reported by lang
	}
	var b *blocks.Block
	if name, ok := strings.CutPrefix(s.Use, lang.ToolFlow+"."); ok {
		prog, d := c.flowByName(name, s.UseRange)
		if d.HasErrors() {
			return d
		}
		b = FlowBlock(prog)
		c.prog.Fingerprints[b] = prog.SourceHash
		s.Flow = prog
	} else {
		b = c.prog.Registry.Lookup(s.Use)
	}
	if b == nil {
		return c.unknownBlock(s.Use, s.UseRange)
	}
	s.Block = b
	s.Outputs = b.Outputs
	diags := approvalFields(s, b)
	for _, a := range s.Args {
		if b.Input(a.Name) != nil {
			continue
		}
		options := append(b.InputNames(), lang.MetaArguments...)
		diags = append(diags, lang.Error(a.NameRange, "Unsupported argument",
			"Block %q has no input named %q; its inputs are %s.%s",
			b.Name, a.Name, listOrNone(b.InputNames()), lang.Suggest(a.Name, options))...)
	}
	for _, in := range b.Inputs {
		if !in.Required() || s.Arg(in.Name) != nil || lang.IsMetaArgument(in.Name) {
			continue // (an input named as a meta-argument is an error of the block's)
		}
		detail := "Step %q uses block %q, which requires input %q (%s)."
		if in.Description != "" {
			detail += " " + strings.TrimSuffix(in.Description, ".") + "."
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing required input",
			Detail:   sprintf(detail, s.Name, b.Name, in.Name, lang.TypeString(in.Type.Type)),
			Subject:  s.DeclRange.Ptr(),
		})
	}
	if len(s.Step.Outputs) > 0 {
		switch {
		case len(b.TypedOutputs) > 0:
			var typed []*lang.Field
			for _, f := range s.Step.Outputs {
				if slices.Contains(b.TypedOutputs, f.Name) {
					if f.Enum != nil {
						diags = append(diags, lang.Error(f.EnumRange, "Unexpected enum",
							"An enum constrains what a model may reply, so it is only for the outputs of llm steps; step %q uses block %q.", s.Name, b.Name)...)
					}
					typed = append(typed, f)
					continue
				}
				diags = append(diags, lang.Error(f.NameRange, "Unexpected output block",
					"A step of block %q may declare the type of its output %q, not an output %q.%s",
					b.Name, b.TypedOutputs[0], f.Name, lang.Suggest(f.Name, b.TypedOutputs))...)
			}
			s.Outputs = blocks.MergeOutputs(b.Outputs, typed)
		case !b.OpenOutputs:
			diags = append(diags, lang.Error(*s.OutputRange, "Unexpected output block",
				"Only steps that use the llm block can declare output fields (and http steps the type of their body); block %q has the fixed outputs %s.",
				b.Name, listOrNone(b.OutputNames()))...)
		default:
			diags = append(diags, blocks.CheckReservedOutputs(b.Outputs, s.Step.Outputs)...)
			s.Outputs = blocks.MergeOutputs(b.Outputs, s.Step.Outputs)
		}
	}
	return diags
}

// refContext says where an expression stands, for the rules on references.
type refContext struct {
	what string // "step \"x\"", "an output", …
	self *Step  // the step the expression belongs to
	each bool   // each.key and each.value are available
}

// resolveExpr checks every reference and function call of an expression.
func (c *compilation) resolveExpr(expr hcl.Expression, ctx refContext) ([]*lang.Ref, hcl.Diagnostics) {
	var refs []*lang.Ref
	var diags hcl.Diagnostics
	r := newExprRefs(expr)
	c.prog.vars[expr] = r
	for _, tr := range r.traversals {
		ref, d := c.resolveTraversal(tr, ctx)
		diags = append(diags, d...)
		if ref != nil && !d.HasErrors() {
			refs = append(refs, ref)
		}
	}
	diags = append(diags, c.checkFunctions(expr)...)
	return refs, diags
}

func (c *compilation) resolveTraversal(tr hcl.Traversal, ctx refContext) (*lang.Ref, hcl.Diagnostics) {
	p := c.prog
	root := tr.RootName()
	switch root {
	case lang.RootInput, lang.RootSecret, lang.RootLocal, lang.RootMemory, lang.RootStep, lang.RootEach, lang.RootRun, lang.RootFlow:
	case lang.RootProvider:
		return nil, lang.Error(tr.SourceRange(), "Invalid reference",
			"%s names a provider, which is not a value: only an llm step's provider argument takes one, as in provider = %s.",
			lang.TraversalString(tr), lang.TraversalString(tr))
	case lang.RootCollection:
		return nil, lang.Error(tr.SourceRange(), "Invalid reference",
			"%s names a collection, which is not a value: only a vector step's collection argument takes one, as in collection = %s.",
			lang.TraversalString(tr), lang.TraversalString(tr))
	default:
		return nil, lang.Error(tr[0].SourceRange(), "Unknown variable",
			"There is no variable named %q. References start with one of %s.%s",
			root, strings.Join(lang.Roots, ", "), lang.Suggest(root, lang.Roots))
	}
	ref, diags := lang.ParseRef(tr)
	if diags.HasErrors() {
		return nil, diags
	}
	unknown := func(kind string, names []string) hcl.Diagnostics {
		return lang.Error(ref.NameRange(), "Unknown "+kind,
			"There is no %s named %q in this flow.%s", kind, ref.Name, lang.Suggest(ref.Name, names))
	}
	switch root {
	case lang.RootInput:
		if p.InputsByName[ref.Name] == nil {
			diags = unknown("input", lang.SortedKeys(p.InputsByName))
		}
	case lang.RootSecret:
		if p.SecretsByName[ref.Name] == nil {
			diags = unknown("secret", lang.SortedKeys(p.SecretsByName))
		}
	case lang.RootLocal:
		if p.LocalsByName[ref.Name] == nil {
			diags = unknown("local value", lang.SortedKeys(p.LocalsByName))
		}
	case lang.RootMemory:
		if p.MemoriesByName[ref.Name] == nil {
			diags = unknown("memory", lang.SortedKeys(p.MemoriesByName))
		}
	case lang.RootStep:
		diags = c.resolveStepRef(ref, ctx)
	case lang.RootEach:
		switch {
		case !ctx.each && ctx.self != nil && ctx.self.ForEach != nil:
			diags = lang.Error(tr.SourceRange(), "Invalid each reference",
				"The for_each expression itself cannot use %s: each refers to the instances it creates.", lang.TraversalString(tr))
		case !ctx.each:
			diags = lang.Error(tr.SourceRange(), "Reference to each outside for_each",
				"%s is only available in the arguments and when condition of a step that has for_each; %s has none.",
				lang.TraversalString(tr), ctx.what)
		case ref.Name != "key" && ref.Name != "value":
			diags = lang.Error(ref.NameRange(), "Invalid each reference",
				"each has only the attributes key and value.%s", lang.Suggest(ref.Name, []string{"key", "value"}))
			// The types pass, which knows the elements' type, may say
			// each.value.NAME.
			c.eachMisses = append(c.eachMisses, eachMiss{step: ctx.self, name: ref.Name, diag: diags[0]})
		}
	case lang.RootRun:
		if ref.Name != "id" {
			diags = lang.Error(ref.NameRange(), "Invalid run reference", "run has only the attribute id.%s",
				lang.Suggest(ref.Name, []string{"id"}))
		}
	case lang.RootFlow:
		if ref.Name != "name" {
			diags = lang.Error(ref.NameRange(), "Invalid flow reference", "flow has only the attribute name.%s",
				lang.Suggest(ref.Name, []string{"name"}))
		}
	}
	return ref, diags
}

func (c *compilation) resolveStepName(ref *lang.Ref, ctx refContext) hcl.Diagnostics {
	target := c.prog.StepsByName[ref.Name]
	if target == nil {
		names := lang.SortedKeys(c.prog.StepsByName)
		hint := lang.Suggest(ref.Name, names)
		switch {
		case hint != "":
		case len(names) == 0:
			hint = " The flow has no steps."
		case len(names) <= maxListedNames:
			hint = " Its steps are " + strings.Join(names, ", ") + "."
		}
		return lang.Error(ref.NameRange(), "Unknown step",
			"There is no step named %q in this flow.%s", ref.Name, hint)
	}
	if target == ctx.self {
		return lang.Error(ref.NameRange(), "Self-referential step",
			"Step %q refers to itself; a step cannot depend on itself.", ref.Name)
	}
	return nil
}

// unknownBlock is the error of a use or tool naming no block: it names the
// closest blocks there are.
func (c *compilation) unknownBlock(name string, rng hcl.Range) hcl.Diagnostics {
	return lang.Error(rng, "Unknown block",
		"There is no block named %q among the built-in blocks, the flow's inline blocks, blocks/ and the registries.%s",
		name, lang.SuggestAmong(name, c.prog.Registry.Names()))
}

// resolveStepRef checks step.NAME.FIELD, or step.NAME[KEY].FIELD for a step
// with for_each.
func (c *compilation) resolveStepRef(ref *lang.Ref, ctx refContext) hcl.Diagnostics {
	if d := c.resolveStepName(ref, ctx); d.HasErrors() {
		return d
	}
	target := c.prog.StepsByName[ref.Name]
	rest := ref.Traversal[2:]
	if len(rest) == 0 {
		return nil
	}
	if target.ForEach != nil {
		if attr, ok := rest[0].(hcl.TraverseAttr); ok {
			return lang.Error(hcl.RangeBetween(ref.NameRange(), attr.SrcRange), "Missing instance key",
				"Step %q has for_each, so step.%s is a collection of instances: use step.%s[KEY].%s for one instance, or for all of them step.%s[*].%s when for_each is a list or set and values(step.%s)[*].%s when it is a map.",
				ref.Name, ref.Name, ref.Name, attr.Name, ref.Name, attr.Name, ref.Name, attr.Name)
		}
		rest = rest[1:]
		if len(rest) == 0 {
			return nil
		}
	} else if idx, ok := rest[0].(hcl.TraverseIndex); ok {
		return lang.Error(idx.SrcRange, "Unexpected instance key",
			"Step %q has no for_each, so it has one instance and no keys: refer to its outputs as step.%s.FIELD.", ref.Name, ref.Name)
	}
	attr, ok := rest[0].(hcl.TraverseAttr)
	if !ok || target.Block == nil {
		return nil // an index into the outputs object; the types pass checks it
	}
	for _, f := range target.Outputs {
		if f.Name == attr.Name {
			return nil
		}
	}
	names := make([]string, len(target.Outputs))
	for i, f := range target.Outputs {
		names[i] = f.Name
	}
	return lang.Error(attr.SrcRange, "Unknown output field",
		"Step %q (block %q) has no output named %q; its outputs are %s.%s",
		ref.Name, target.Block.Name, attr.Name, listOrNone(names), lang.Suggest(attr.Name, names))
}

// checkFunctions reports calls to functions that are not in the table.
func (c *compilation) checkFunctions(expr hcl.Expression) hcl.Diagnostics {
	var diags hcl.Diagnostics
	visit(expr, func(call *hclsyntax.FunctionCallExpr) {
		if _, ok := c.prog.Functions[call.Name]; !ok {
			diags = append(diags, lang.Error(call.NameRange, "Call to unknown function",
				"There is no function named %q.%s", call.Name, suggestFunction(call.Name, c.prog.Functions))...)
		}
	})
	return diags
}

// functionSynonyms are the names other languages give the functions a
// flow has.
var functionSynonyms = map[string]string{
	"uppercase": "upper", "toupper": "upper", "to_upper": "upper", "lowercase": "lower", "tolower": "lower", "to_lower": "lower",
	"len": "length", "size": "length", "count": "length", "strlen": "length",
	"str": "tostring", "string": "tostring", "to_string": "tostring", "int": "tonumber", "toint": "tonumber", "parseint": "tonumber", "number": "tonumber",
	"stringify": "jsonencode", "tojson": "jsonencode", "to_json": "jsonencode", "json_encode": "jsonencode",
	"parse_json": "jsondecode", "fromjson": "jsondecode", "from_json": "jsondecode", "json_decode": "jsondecode",
	"sprintf": "format", "printf": "format", "strip": "trimspace", "trim_space": "trimspace", "now": "timestamp",
	"startswith": "startswith", "starts_with": "startswith", "endswith": "endswith", "ends_with": "endswith",
	"includes": "contains", "has": "contains", "sum": "sum", "unique": "distinct", "uniq": "distinct",
}

// suggestFunction is " Did you mean …?" for an unknown function: the
// function other languages call by that name, a name near it, or a
// function whose name begins or ends it ("uppercase" → "upper").
func suggestFunction(name string, funcs map[string]function.Function) string {
	names := lang.SortedKeys(funcs)
	lower := strings.ToLower(name)
	if f, ok := functionSynonyms[lower]; ok {
		if _, exists := funcs[f]; exists {
			return " Did you mean " + strconv.Quote(f) + "?"
		}
	}
	if s := lang.Suggest(name, names); s != "" {
		return s
	}
	best := ""
	for _, n := range names {
		if len(n) >= 3 && len(n) > len(best) && (strings.HasPrefix(lower, n) || strings.HasSuffix(lower, n)) {
			best = n
		}
	}
	if best == "" {
		return ""
	}
	return " Did you mean " + strconv.Quote(best) + "?"
}

// localCycles reports locals that depend on themselves, one diagnostic
// per cycle, at the first local of the cycle in declaration order.
func (c *compilation) localCycles() hcl.Diagnostics {
	locals := c.prog.Locals
	at := make(map[*Local]int, len(locals))
	for i, l := range locals {
		at[l] = i
	}
	deps := func(i int) []int {
		var out []int
		for _, d := range locals[i].Deps {
			if j, ok := at[d]; ok {
				out = append(out, j)
			}
		}
		return out
	}
	var diags hcl.Diagnostics
	for _, comp := range components(len(locals), deps) {
		if !cyclic(comp, deps) {
			continue
		}
		cycle := cycleThrough(comp, deps)
		names := make([]string, 0, len(cycle)+1)
		for _, v := range cycle {
			names = append(names, "local."+locals[v].Name)
		}
		names = append(names, "local."+locals[cycle[0]].Name)
		diags = append(diags, lang.Error(locals[cycle[0]].NameRange, "Cycle in locals",
			"These local values refer to each other in a cycle: %s.", strings.Join(names, " → "))...)
	}
	return diags
}

// maxListedNames is how many names an error lists when it lists them
// all.
const maxListedNames = 12

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// An eachMiss is a reference each.NAME that is neither each.key nor
// each.value, in a step with for_each: NAME may be an attribute of the
// elements, which each.value.NAME reads.
type eachMiss struct {
	step *Step
	name string
	diag *hcl.Diagnostic
}

// hintEach adds to the diagnostics of a step's each.NAME references, now
// that each.value's type is known, "Did you mean each.value.NAME?" when
// the elements have an attribute NAME (or one NAME is a misspelling of,
// when each.NAME is no misspelling of key or value).
func (c *compilation) hintEach(s *Step, each *Each) {
	if each == nil || !each.Value.Type().IsObjectType() {
		return
	}
	attrs := lang.SortedKeys(each.Value.Type().AttributeTypes())
	for _, m := range c.eachMisses {
		if m.step != s {
			continue
		}
		attr := ""
		switch {
		case slices.Contains(attrs, m.name):
			attr = m.name
		case lang.Suggest(m.name, []string{"key", "value"}) == "":
			if best := lang.Closest(m.name, attrs, 1); len(best) == 1 && lang.Suggest(m.name, best) != "" {
				attr = best[0]
			}
		}
		if attr == "" {
			continue
		}
		m.diag.Detail = sprintf("each has only the attributes key and value; the elements of the for_each collection are each.value, which has the attribute %q. Did you mean each.value.%s?", attr, attr)
	}
}
