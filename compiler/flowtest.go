package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// Test is a test of a flow, checked against the flow's program.
type Test struct {
	Def     *lang.TestDef
	Program *Program
	// Inputs are the flow's input values: the test's, else the defaults.
	Inputs map[string]cty.Value
	// Secrets are the test's secret values, by name.
	Secrets map[string]string
	// Tree is every step of the tree of flows the test runs (StepTree).
	Tree []*TreeStep
	// Replaced maps the path of each step of the tree that a mock or an
	// override replaces (TreeStep.Path) to its replacement: an override
	// wins over a mock, a mock confined to a step path over one that is
	// not, and the longer path over the shorter.
	Replaced map[string]*lang.Replacement
	// Expect are the steps that must fail.
	Expect []*Step
}

// CompileTest checks a test against the program of its flow: its inputs,
// that each mock names a block some step of the tree of flows uses and
// each override a step of it,
// that what they give fits the outputs of the block, that expect_failures
// names steps, and that the asserts refer to what exists. Diagnostics have
// the ranges of the test file.
func CompileTest(prog *Program, def *lang.TestDef) (*Test, hcl.Diagnostics) {
	t := &Test{Def: def, Program: prog, Replaced: map[string]*lang.Replacement{}}
	var diags hcl.Diagnostics
	dir := filepath.Dir(def.DeclRange.Filename)
	functions := lang.Functions(dir)
	given := map[string]InputValue{}
	if def.Inputs != nil {
		v, d := def.Inputs.Value(&hcl.EvalContext{Functions: functions})
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()):
			diags = append(diags, lang.Error(def.Inputs.Range(), "Invalid inputs",
				"The inputs of test %q are an object of the flow's input values, such as { path = \"notes.txt\" }.", def.Name)...)
		default:
			for k, iv := range v.AsValueMap() {
				given[k] = InputValue{Value: iv, Source: fmt.Sprintf("test %q", def.Name)}
			}
		}
	}
	if !diags.HasErrors() {
		in, d := prog.ResolveInputs(given)
		for _, dg := range d {
			switch {
			case dg.Subject != nil:
			case def.Inputs != nil:
				dg.Subject = def.Inputs.Range().Ptr()
			default:
				dg.Subject = def.NameRange.Ptr()
			}
		}
		diags = append(diags, d...)
		t.Inputs = in
	}

	if def.Secrets != nil {
		t.Secrets = map[string]string{}
		v, d := def.Secrets.Value(&hcl.EvalContext{Functions: functions})
		diags = append(diags, d...)
		ok := !d.HasErrors() && !v.IsNull() && v.IsWhollyKnown() && (v.Type().IsObjectType() || v.Type().IsMapType())
		if ok {
			for k, sv := range v.AsValueMap() {
				s, err := convert.Convert(sv, cty.String)
				switch {
				case err != nil || s.IsNull():
					ok = false
				case prog.SecretsByName[k] == nil:
					diags = append(diags, lang.Error(def.Secrets.Range(), "Unknown secret",
						"Flow %q declares no secret %q.%s", prog.Flow.Name, k, lang.Suggest(k, lang.SortedKeys(prog.SecretsByName)))...)
				default:
					t.Secrets[k] = s.AsString()
				}
			}
		}
		if !ok && !d.HasErrors() {
			diags = append(diags, lang.Error(def.Secrets.Range(), "Invalid secrets",
				"The secrets of test %q are an object of strings, such as { token = \"test\" }.", def.Name)...)
		}
	}

	t.Tree = StepTree(prog)
	diags = append(diags, t.replace(functions)...)
	for _, tr := range def.ExpectFailures {
		name := tr[1].(hcl.TraverseAttr).Name
		s := prog.StepsByName[name]
		if s == nil {
			diags = append(diags, lang.Error(tr.SourceRange(), "Unknown step",
				"Flow %q has no step %q.%s", prog.Flow.Name, name, lang.Suggest(name, lang.SortedKeys(prog.StepsByName)))...)
			continue
		}
		t.Expect = append(t.Expect, s)
	}
	ctx := t.typeContext(functions)
	for _, a := range def.Asserts {
		if d := t.checkRefs(a.Condition, a.ErrorMessage); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		v, d := a.Condition.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() && v.Type() != cty.DynamicPseudoType {
			if _, err := convert.Convert(v, cty.Bool); err != nil {
				diags = append(diags, lang.Error(a.Condition.Range(), "Invalid assert condition",
					"The condition must be true or false; it is %s.", lang.FriendlyTypeName(v.Type()))...)
			}
		}
		_, d = a.ErrorMessage.Value(ctx)
		diags = append(diags, d...)
	}
	return t, diags
}

// replace finds the steps of the tree each mock and override replaces,
// and checks what they give.
func (t *Test) replace(functions map[string]function.Function) hcl.Diagnostics {
	prog := t.Program
	var diags hcl.Diagnostics
	byPath := make(map[string]*TreeStep, len(t.Tree))
	used := map[string]bool{}
	var paths []string
	for _, ts := range t.Tree {
		byPath[ts.Path] = ts
		used[ts.Step.Block.Name] = true
		paths = append(paths, ts.Path)
	}
	// The mocks from the widest to the narrowest, so that the narrower
	// replaces the wider; alike ones in the order written (the later
	// wins).
	mocks := slices.Clone(t.Def.Mocks)
	slices.SortStableFunc(mocks, func(a, b *lang.Replacement) int {
		return cmpSpecific(a.Step, b.Step)
	})
	checked := map[*Step]map[*lang.Replacement]bool{}
	check := func(s *Step, r *lang.Replacement) {
		if checked[s] == nil {
			checked[s] = map[*lang.Replacement]bool{}
		}
		if !checked[s][r] {
			checked[s][r] = true
			diags = append(diags, checkReplacement(s, r, functions)...)
		}
	}
	for _, m := range mocks {
		if m.Step != "" && byPath[m.Step] == nil {
			diags = append(diags, unknownStepPath(prog, "Unknown step", m.Step, m.StepRange, paths)...)
			continue
		}
		n := 0
		for _, ts := range t.Tree {
			if ts.Step.Block.Name == m.Target && (m.Step == "" || ts.Within(m.Step)) {
				t.Replaced[ts.Path] = m
				n++
				check(ts.Step, m)
			}
		}
		switch {
		case n > 0:
		case m.Step != "" && byPath[m.Step].Step.Flow == nil && len(byPath[m.Step].Step.Tools) == 0:
			at := byPath[m.Step]
			diags = append(diags, lang.Error(m.TargetRange, "Mock of an unused block",
				"%s uses the block %q, not %q, so the mock would replace nothing.", at.Where(), at.Step.Block.Name, m.Target)...)
		case m.Step != "":
			diags = append(diags, lang.Error(m.TargetRange, "Mock of an unused block",
				"No step at or under %s uses the block %q, so the mock would replace nothing.", byPath[m.Step].Where(), m.Target)...)
		default:
			where := fmt.Sprintf("flow %q", prog.Flow.Name)
			if len(t.Tree) > len(prog.Steps) {
				where += ", or of the flows it runs,"
			}
			diags = append(diags, lang.Error(m.TargetRange, "Mock of an unused block",
				"No step of %s uses the block %q, so the mock would replace nothing.%s",
				where, m.Target, lang.Suggest(m.Target, lang.SortedKeys(used)))...)
		}
	}
	for _, o := range t.Def.Overrides {
		ts := byPath[o.Target]
		if ts == nil {
			diags = append(diags, unknownStepPath(prog, "Override of an unknown step", o.Target, o.TargetRange, paths)...)
			continue
		}
		t.Replaced[ts.Path] = o
		check(ts.Step, o)
	}
	return diags
}

// cmpSpecific orders the step paths of mocks from the widest to the
// narrowest: none (every step), then by their number of steps.
func cmpSpecific(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return -1
	case b == "":
		return 1
	}
	return strings.Count(a, ".") - strings.Count(b, ".")
}

// unknownStepPath is the error of a step path that names no step of the
// tree of flows.
func unknownStepPath(prog *Program, summary, path string, rng hcl.Range, paths []string) hcl.Diagnostics {
	if !strings.Contains(path, ".") {
		return lang.Error(rng, summary,
			"Flow %q has no step %q.%s", prog.Flow.Name, path, lang.Suggest(path, lang.SortedKeys(prog.StepsByName)))
	}
	return lang.Error(rng, summary,
		"No step of flow %q or of the flows it uses has the path %q (a step's name, then the names of the steps of the flow it uses, joined by dots).%s",
		prog.Flow.Name, path, lang.Suggest(path, paths))
}

// A TreeStep is a step of the tree of flows a test runs: a step of the
// test's flow, or of a flow that such a step uses (use = "flow.NAME") or
// that its model may call as a tool, and so on down.
type TreeStep struct {
	Step *Step
	// Flow is the flow the step is in.
	Flow *Program
	// Path names the step from the test's flow: the step names joined
	// by dots, with a tool flow's name after the llm step that may call
	// it ("summarize.ask", "agent.lookup.fetch"; lang.Replacement).
	Path string
	// Parent is the step that runs Flow (nil for a step of the test's
	// flow): it uses the flow, or its model may call it as Tool.
	Parent *TreeStep
	Tool   string
}

// Within reports whether the step is the one at path or under it.
func (ts *TreeStep) Within(path string) bool {
	return ts.Path == path || strings.HasPrefix(ts.Path, path+".")
}

// Where names the step for a message, from the test's flow down:
// step.summarize → flow "chunk" → step.ask.
func (ts *TreeStep) Where() string {
	if ts.Parent == nil {
		return "step." + ts.Step.Name
	}
	kind := "flow"
	if ts.Tool != "" {
		kind = "tool flow"
	}
	return fmt.Sprintf("%s → %s %q → step.%s", ts.Parent.Where(), kind, ts.Flow.Flow.Name, ts.Step.Name)
}

// StepTree lists the steps of the tree of flows a run of prog may run:
// each of its steps, followed by the steps of the flow it uses, or of the
// flows its model may call as tools, and so on down (flows do not use
// each other in a cycle).
func StepTree(prog *Program) []*TreeStep {
	var out []*TreeStep
	var walk func(p *Program, parent *TreeStep, tool, prefix string)
	walk = func(p *Program, parent *TreeStep, tool, prefix string) {
		for _, s := range p.Steps {
			ts := &TreeStep{Step: s, Flow: p, Path: prefix + s.Name, Parent: parent, Tool: tool}
			out = append(out, ts)
			if s.Flow != nil {
				walk(s.Flow, ts, "", ts.Path+".")
			}
			for _, tool := range s.Tools {
				if tool.Flow != nil {
					walk(tool.Flow, ts, tool.Name, ts.Path+"."+tool.Name+".")
				}
			}
		}
	}
	walk(prog, nil, "", "")
	return out
}

// checkReplacement checks what a mock or override gives a step: an object
// whose fields are outputs of the step's block, each of its type.
func checkReplacement(s *Step, r *lang.Replacement, functions map[string]function.Function) hcl.Diagnostics {
	if r.Outputs == nil {
		return nil
	}
	args := map[string]cty.Value{}
	for _, in := range s.Block.Inputs {
		args[in.Name] = cty.UnknownVal(in.Type.Type)
	}
	v, diags := r.Outputs.Value(&hcl.EvalContext{
		Variables: map[string]cty.Value{"args": cty.ObjectVal(args)},
		Functions: functions,
	})
	if diags.HasErrors() {
		return diags
	}
	if v.IsNull() || !v.Type().IsObjectType() {
		return lang.Error(r.Outputs.Range(), "Invalid outputs",
			"The outputs given for step %q are an object of its block's outputs, such as { text = \"...\" }.", s.Name)
	}
	fields := map[string]*lang.Field{}
	for _, f := range s.Outputs {
		fields[f.Name] = f
	}
	for _, name := range lang.SortedKeys(v.Type().AttributeTypes()) {
		f := fields[name]
		if f == nil {
			diags = append(diags, lang.Error(r.Outputs.Range(), "Unknown output",
				"Block %q has no output %q.%s", s.Block.Name, name, lang.Suggest(name, lang.SortedKeys(fields)))...)
			continue
		}
		// An output that takes its type from an input (the value
		// block's) has the type of the value the step gives it.
		ty := f.Type.Type
		if s.OutputType.IsObjectType() && s.OutputType.HasAttribute(name) {
			ty = s.OutputType.AttributeType(name)
		}
		if _, err := convert.Convert(v.GetAttr(name), ty); err != nil {
			diags = append(diags, lang.Error(r.Outputs.Range(), "Wrong output type",
				"Output %q of step %q (block %q) must be %s: %s.", name, s.Name, s.Block.Name, lang.FriendlyTypeName(ty), lang.FormatConvertError(err))...)
		}
	}
	return diags
}

// testRoots are the variables an assert can refer to.
var testRoots = []string{lang.RootInput, lang.RootStep, "output", lang.RootRun}

// checkRefs checks that the references of an assert name what the flow
// has (HCL's own errors about objects would name no candidates).
func (t *Test) checkRefs(exprs ...hcl.Expression) hcl.Diagnostics {
	p := t.Program
	var diags hcl.Diagnostics
	for _, expr := range exprs {
		for _, tr := range expr.Variables() {
			root := tr.RootName()
			if !slices.Contains(testRoots, root) {
				diags = append(diags, lang.Error(tr[0].SourceRange(), "Unknown variable",
					"There is no variable named %q in a test's assert; it can refer to %s.%s",
					root, strings.Join(testRoots, ", "), lang.Suggest(root, testRoots))...)
				continue
			}
			if len(tr) < 2 {
				continue
			}
			attr, ok := tr[1].(hcl.TraverseAttr)
			if !ok {
				continue
			}
			var names []string
			kind := ""
			switch root {
			case lang.RootInput:
				kind, names = "input", lang.SortedKeys(p.InputsByName)
			case lang.RootStep:
				kind, names = "step", lang.SortedKeys(p.StepsByName)
			case "output":
				kind = "output"
				for _, o := range p.Outputs {
					names = append(names, o.Name)
				}
				slices.Sort(names)
			case lang.RootRun:
				kind, names = "run attribute", []string{"failed_steps", "status"}
			}
			switch {
			case slices.Contains(names, attr.Name):
			case len(names) == 0:
				diags = append(diags, lang.Error(attr.SrcRange, "Unknown "+kind,
					"Flow %q has no %ss, so none named %q.", p.Flow.Name, kind, attr.Name)...)
			default:
				diags = append(diags, lang.Error(attr.SrcRange, "Unknown "+kind,
					"Flow %q has no %s named %q; it has %s.%s", p.Flow.Name, kind, attr.Name, strings.Join(names, ", "), lang.Suggest(attr.Name, names))...)
			}
		}
	}
	return diags
}

// typeContext is what assert conditions are checked with: every input,
// step, output and run value unknown, of its type.
func (t *Test) typeContext(functions map[string]function.Function) *hcl.EvalContext {
	p := t.Program
	inputs := map[string]cty.Value{}
	for _, in := range p.Inputs {
		inputs[in.Name] = cty.UnknownVal(in.Type.Type)
	}
	steps := map[string]cty.Value{}
	for _, s := range p.Steps {
		steps[s.Name] = cty.UnknownVal(s.Value.Type())
	}
	outputs := map[string]cty.Value{}
	for _, o := range p.Outputs {
		outputs[o.Name] = cty.DynamicVal
	}
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{
			"input":  cty.ObjectVal(inputs),
			"step":   cty.ObjectVal(steps),
			"output": cty.ObjectVal(outputs),
			"run": cty.ObjectVal(map[string]cty.Value{
				"status":       cty.UnknownVal(cty.String),
				"failed_steps": cty.DynamicVal, // a tuple of strings
			}),
		},
		Functions: functions,
	}
}

// TestFlowFile is the flow file a test runs: its flow argument, relative
// to the test file, else the one flow of the test file's directory.
func TestFlowFile(testFile string, def *lang.TestDef) (string, hcl.Diagnostics) {
	dir := filepath.Dir(testFile)
	if def.Flow != "" {
		p, err := lang.ResolveLocalPath(dir, def.Flow)
		if err == nil {
			_, err = os.Stat(p)
		}
		if err != nil {
			return "", lang.Error(def.FlowRange, "Invalid flow", "The flow of test %q cannot be read: %s.", def.Name, err)
		}
		return p, nil
	}
	flows, _ := filepath.Glob(filepath.Join(dir, "*.flow.hcl"))
	if len(flows) != 1 {
		return "", lang.Error(def.NameRange, "Which flow?",
			"Test %q names no flow, and %s holds %d flow files: say which with flow = \"NAME.flow.hcl\".", def.Name, dir, len(flows))
	}
	return flows[0], nil
}
