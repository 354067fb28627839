package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// Eval is an eval checked against its flow and its dataset.
type Eval struct {
	Def *lang.EvalDef
	// Program is the flow as written.
	Program *Program
	// Dataset is the dataset's path; Fields its fields' types, from its
	// first rows (DatasetFields).
	Dataset string
	Fields  map[string]cty.Type
	// Variants are the variants in the order written; an eval without
	// any has one, "default": the flow as written.
	Variants []*EvalVariant
	// Functions are what the eval's expressions may call.
	Functions map[string]function.Function
}

// EvalVariant is a variant of an eval's flow.
type EvalVariant struct {
	Name string
	// Def is nil for the default variant of an eval without variants.
	Def *lang.EvalVariant
	// Program is the flow with the variant's overrides.
	Program *Program
}

// DefaultVariant names the one variant of an eval that declares none.
const DefaultVariant = "default"

// evalRoots are the variables an eval's inputs and scores may refer to.
var evalRoots = []string{"row", lang.RootInput, "output"}

// CompileEval checks an eval: its flow compiles, with each variant's
// overrides (which must name steps and block inputs, of their types);
// its dataset is readable and its fields are of one type each in its
// first rows; its inputs name the flow's inputs from fields the dataset
// has; each score refers to the flow's outputs and the dataset's fields
// with arguments of the types its kind needs; each gate names a score
// (and a variant). opts are the flow's compile options; Overrides is set
// per variant. Diagnostics have the ranges of the eval file.
func CompileEval(def *lang.EvalDef, opts Options) (*Eval, hcl.Diagnostics) {
	dir := filepath.Dir(def.DeclRange.Filename)
	e := &Eval{Def: def, Functions: lang.Functions(dir)}
	flow, diags := EvalFlowFile(def)
	if diags.HasErrors() {
		return e, diags
	}
	prog, d := Compile(flow, opts)
	diags = append(diags, d...)
	if d.HasErrors() {
		return e, diags
	}
	e.Program = prog
	if len(def.Variants) == 0 {
		e.Variants = []*EvalVariant{{Name: DefaultVariant, Program: prog}}
	}
	for _, v := range def.Variants {
		if len(v.Overrides) == 0 {
			e.Variants = append(e.Variants, &EvalVariant{Name: v.Name, Def: v, Program: prog})
			continue
		}
		vo := opts
		vo.Overrides = v.Overrides
		vp, d := Compile(flow, vo)
		diags = append(diags, d...)
		if !d.HasErrors() {
			e.Variants = append(e.Variants, &EvalVariant{Name: v.Name, Def: v, Program: vp})
		}
	}

	path, err := lang.ResolveLocalPath(dir, def.Dataset)
	if err == nil {
		e.Dataset = path
		e.Fields, err = DatasetFields(path)
	}
	if err != nil {
		return e, append(diags, lang.Error(def.DatasetRange, "Invalid dataset",
			"The dataset of eval %q cannot be read: %s.", def.Name, strings.TrimSuffix(lang.PathErrorText(err), "."))...)
	}
	diags = append(diags, e.checkInputs()...)
	for _, s := range def.Scores {
		diags = append(diags, e.checkScore(s)...)
	}
	for _, g := range def.Gates {
		diags = append(diags, e.checkGate(g)...)
	}
	return e, diags
}

// EvalFlowFile is the flow file an eval runs: its flow argument, a flow
// file relative to the eval file (it ends in .hcl), else the flow of that
// name in the eval file's directory (NAME.flow.hcl, or the flow file
// whose flow block has the name).
func EvalFlowFile(def *lang.EvalDef) (string, hcl.Diagnostics) {
	dir := filepath.Dir(def.DeclRange.Filename)
	if strings.HasSuffix(def.Flow, ".hcl") {
		p, err := lang.ResolveLocalPath(dir, def.Flow)
		if err == nil {
			_, err = os.Stat(p)
		}
		if err != nil {
			return "", lang.Error(def.FlowRange, "Invalid flow", "The flow of eval %q cannot be read: %s.", def.Name, lang.PathErrorText(err))
		}
		return p, nil
	}
	if p := filepath.Join(dir, def.Flow+".flow.hcl"); fileExists(p) {
		return p, nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.flow.hcl"))
	var names []string
	for _, f := range files {
		if name := flowNameOf(f); name == def.Flow {
			return f, nil
		} else if name != "" {
			names = append(names, name)
		}
	}
	return "", lang.Error(def.FlowRange, "Unknown flow",
		"Eval %q runs flow %q, which no flow file of %s declares.%s", def.Name, def.Flow, dir, lang.Suggest(def.Flow, names))
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// flowNameOf reads the name of the flow a flow file declares; "" when
// it cannot tell.
func flowNameOf(path string) string {
	f, diags := lang.NewParser().ParseFile(path)
	if diags.HasErrors() {
		return ""
	}
	file, _ := lang.DecodeFlowFile(f, path)
	if file == nil || len(file.Flows) == 0 {
		return ""
	}
	return file.Flows[0].Name
}

// RowType is the type row has in an eval's expressions: the dataset's
// fields.
func (e *Eval) RowType() cty.Type { return cty.Object(e.Fields) }

// typeContext is what an eval's expressions are checked with: the row's
// fields, the flow's inputs and outputs, all unknown of their types.
func (e *Eval) typeContext() *hcl.EvalContext {
	row := map[string]cty.Value{}
	for k, ty := range e.Fields {
		row[k] = cty.UnknownVal(ty)
	}
	inputs := map[string]cty.Value{}
	for _, in := range e.Program.Inputs {
		inputs[in.Name] = cty.UnknownVal(in.Type.Type)
	}
	outputs := map[string]cty.Value{}
	for _, o := range e.Program.Outputs {
		ty := e.Program.OutputTypes[o.Name]
		if ty == cty.NilType {
			ty = cty.DynamicPseudoType
		}
		outputs[o.Name] = cty.UnknownVal(ty)
	}
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{"row": cty.ObjectVal(row), "input": cty.ObjectVal(inputs), "output": cty.ObjectVal(outputs)},
		Functions: e.Functions,
	}
}

// checkRefs checks that an expression refers to the dataset's fields and
// the flow's inputs and outputs (and, for inputs, to rows only).
func (e *Eval) checkRefs(expr hcl.Expression, roots []string, where string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, tr := range expr.Variables() {
		root := tr.RootName()
		if !slices.Contains(roots, root) {
			diags = append(diags, lang.Error(tr[0].SourceRange(), "Unknown variable",
				"There is no variable named %q in %s; it can refer to %s.%s", root, where, strings.Join(roots, ", "), lang.Suggest(root, roots))...)
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
		var msg string
		switch root {
		case "row":
			names = lang.SortedKeys(e.Fields)
			msg = fmt.Sprintf("The dataset %s has no field %q in its first rows; it has %s.", e.Def.Dataset, attr.Name, strings.Join(names, ", "))
		case lang.RootInput:
			names = lang.SortedKeys(e.Program.InputsByName)
			msg = fmt.Sprintf("Flow %q has no input %q.", e.Program.Flow.Name, attr.Name)
		case "output":
			names = lang.SortedKeys(e.Program.OutputsByName)
			msg = fmt.Sprintf("Flow %q has no output %q; it has %s.", e.Program.Flow.Name, attr.Name, strings.Join(names, ", "))
		}
		if !slices.Contains(names, attr.Name) {
			diags = append(diags, lang.Error(attr.SrcRange, "Unknown "+map[string]string{"row": "field", "input": "input", "output": "output"}[root],
				"%s%s", msg, lang.Suggest(attr.Name, names))...)
		}
	}
	return diags
}

// checkInputs checks the eval's inputs: an object over row whose fields
// are the flow's inputs, of their types, with every required input.
func (e *Eval) checkInputs() hcl.Diagnostics {
	def, p := e.Def, e.Program
	given := map[string]cty.Value{}
	rng := def.NameRange
	if def.Inputs != nil {
		rng = def.Inputs.Range()
		if d := e.checkRefs(def.Inputs, []string{"row"}, "an eval's inputs"); d.HasErrors() {
			return d
		}
		v, d := def.Inputs.Value(e.typeContext())
		if d.HasErrors() {
			return d
		}
		if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) || !v.IsKnown() && !v.Type().IsObjectType() {
			return lang.Error(rng, "Invalid inputs",
				"The inputs of eval %q are an object of the flow's input values, such as { ticket = row.text }.", def.Name)
		}
		if v.Type().IsObjectType() {
			for name := range v.Type().AttributeTypes() {
				given[name] = v.GetAttr(name)
			}
		} else if v.IsKnown() {
			given = v.AsValueMap()
		}
	}
	var diags hcl.Diagnostics
	for _, name := range lang.SortedKeys(given) {
		in := p.InputsByName[name]
		if in == nil {
			diags = append(diags, lang.Error(rng, "Unknown input",
				"Eval %q sets input %q, but flow %q declares no such input.%s", def.Name, name, p.Flow.Name, lang.Suggest(name, lang.SortedKeys(p.InputsByName)))...)
			continue
		}
		if _, err := convert.Convert(given[name], in.Type.Type); err != nil {
			diags = append(diags, lang.Error(rng, "Wrong input type",
				"Input %q of flow %q is %s; eval %q gives it %s: %s.", name, p.Flow.Name, lang.FriendlyTypeName(in.Type.Type), def.Name, lang.FriendlyTypeName(given[name].Type()), lang.FormatConvertError(err))...)
		}
	}
	for _, in := range p.Inputs {
		if _, ok := given[in.Name]; !ok && in.Required() {
			diags = append(diags, lang.Error(rng, "Missing input",
				"Flow %q needs input %q, which has no default: give it in the eval's inputs, such as { %s = row.FIELD }.", p.Flow.Name, in.Name, in.Name)...)
		}
	}
	return diags
}

// scoreArgTypes are the types of scorers' arguments other than value,
// expected and schema (which take any value).
var scoreArgTypes = map[string]cty.Type{
	"pattern": cty.String, "tolerance": cty.Number, "threshold": cty.Number,
	"model": cty.String, "rubric": cty.String, "scale": cty.String,
}

// checkScore checks a score's arguments: their references, and the
// types its kind needs.
func (e *Eval) checkScore(s *lang.EvalScore) hcl.Diagnostics {
	var diags hcl.Diagnostics
	ctx := e.typeContext()
	for _, name := range lang.SortedKeys(s.Attrs) {
		a := s.Attrs[name]
		if name == "provider" {
			tr, d := hcl.AbsTraversalForExpr(a.Expr)
			if d.HasErrors() || len(tr) != 2 || tr.RootName() != "provider" {
				diags = append(diags, lang.Error(a.Expr.Range(), "Invalid provider",
					"A score's provider names a provider of the eval's flow, as provider.NAME.")...)
				continue
			}
			pn := tr[1].(hcl.TraverseAttr).Name
			if e.Program.ProvidersByName[pn] == nil {
				diags = append(diags, lang.Error(a.Expr.Range(), "Unknown provider",
					"Flow %q declares no provider %q.%s", e.Program.Flow.Name, pn, lang.Suggest(pn, lang.SortedKeys(e.Program.ProvidersByName)))...)
			}
			continue
		}
		if d := e.checkRefs(a.Expr, evalRoots, "a score"); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		want, typed := scoreArgTypes[name]
		switch {
		case name == "value" && s.Kind == lang.ScoreNumeric, name == "expected" && s.Kind == lang.ScoreNumeric:
			want, typed = cty.Number, true
		case (name == "value" || name == "expected") && (s.Kind == lang.ScoreContains || s.Kind == lang.ScoreRegex ||
			s.Kind == lang.ScoreSimilarity || s.Kind == lang.ScoreJudge):
			want, typed = cty.String, true
		}
		if typed {
			cv, err := convert.Convert(v, want)
			if err != nil {
				diags = append(diags, lang.Error(a.Expr.Range(), "Wrong argument type",
					"The %s of a %s score is %s: %s.", name, s.Kind, lang.FriendlyTypeName(want), lang.FormatConvertError(err))...)
				continue
			}
			v = cv
		}
		if !v.IsWhollyKnown() || v.IsNull() {
			continue
		}
		diags = append(diags, checkScoreConst(filepath.Dir(e.Def.DeclRange.Filename), s, a, v)...)
	}
	return diags
}

// checkScoreConst checks a score's argument whose value is known when the
// eval is checked; dir is the eval file's directory.
func checkScoreConst(dir string, s *lang.EvalScore, a *hcl.Attribute, v cty.Value) hcl.Diagnostics {
	switch a.Name {
	case "pattern":
		if _, err := regexp.Compile(v.AsString()); err != nil {
			return lang.Error(a.Expr.Range(), "Invalid pattern", "The pattern of score %q is not a regular expression: %v.", s.Name, err)
		}
	case "scale":
		if sc := v.AsString(); sc != "1-5" && sc != "pass_fail" {
			return lang.Error(a.Expr.Range(), "Invalid scale", "A judge's scale is \"1-5\" or \"pass_fail\", not %q.", sc)
		}
	case "threshold", "tolerance":
		f, _ := v.AsBigFloat().Float64()
		if f < 0 || a.Name == "threshold" && f > 1 {
			return lang.Error(a.Expr.Range(), "Invalid "+a.Name, "A score's %s is %s; got %g.", a.Name,
				map[string]string{"threshold": "between 0 and 1", "tolerance": "at least 0"}[a.Name], f)
		}
	case "schema":
		if v.Type() != cty.String && !v.Type().IsObjectType() && !v.Type().IsMapType() {
			return lang.Error(a.Expr.Range(), "Invalid schema", "The schema of score %q is a JSON Schema: an object, or the path of a JSON file that holds one.", s.Name)
		}
		text, err := EvalSchemaText(dir, v)
		if err == nil {
			_, err = ResolveEvalSchema(text)
		}
		if err != nil {
			return lang.Error(a.Expr.Range(), "Invalid schema", "The schema of score %q: %s.", s.Name, strings.TrimSuffix(err.Error(), "."))
		}
	}
	return nil
}

// checkGate checks that a gate names a score of the eval and, when it
// names one, a variant.
func (e *Eval) checkGate(g *lang.EvalGate) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var scores []string
	for _, s := range e.Def.Scores {
		scores = append(scores, s.Name)
	}
	if !slices.Contains(scores, g.Score) {
		diags = append(diags, lang.Error(g.ScoreRange, "Unknown score",
			"Eval %q has no score %q.%s", e.Def.Name, g.Score, lang.Suggest(g.Score, scores))...)
	}
	if g.Variant != "" {
		var names []string
		for _, v := range e.Variants {
			names = append(names, v.Name)
		}
		if len(e.Def.Variants) > 0 && !slices.ContainsFunc(e.Def.Variants, func(v *lang.EvalVariant) bool { return v.Name == g.Variant }) ||
			len(e.Def.Variants) == 0 && g.Variant != DefaultVariant {
			diags = append(diags, lang.Error(g.VariantRange, "Unknown variant",
				"Eval %q has no variant %q.%s", e.Def.Name, g.Variant, lang.Suggest(g.Variant, names))...)
		}
	}
	return diags
}
