package lang

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// IsEvalFile reports whether a path names an evaluation file (*.eval.hcl).
func IsEvalFile(path string) bool { return strings.HasSuffix(path, ".eval.hcl") }

// EvalDef is an `eval "NAME"` block of an evaluation file: a flow run on
// every row of a dataset, by one or more variants of it, each run scored.
type EvalDef struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// Flow names the flow: a flow of the eval file's directory by its
	// name ("triage"), or a flow file relative to that directory.
	Flow      string
	FlowRange hcl.Range
	// Dataset is the JSONL or CSV file of the cases, relative to the
	// eval file's directory: one case a row.
	Dataset      string
	DatasetRange hcl.Range
	// Inputs is the object of the flow's input values, over row (the
	// case's row); nil for none.
	Inputs   hcl.Expression
	Variants []*EvalVariant
	Scores   []*EvalScore
	Gates    []*EvalGate
}

// EvalVariant is a `variant "NAME"` of an eval: the flow with some
// steps' arguments replaced.
type EvalVariant struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	Overrides []*EvalOverride
}

// EvalOverride is an `override "step.NAME" { ARG = EXPR ... }` of a
// variant: the arguments that replace the step's (a block's inputs, or
// its provider), evaluated in the flow as the step's own are.
type EvalOverride struct {
	Step      string // the step's name
	StepRange hcl.Range
	DeclRange hcl.Range
	// Attrs are the arguments, in source order.
	Attrs []*hcl.Attribute
}

// EvalScore is a `score "NAME"` of an eval: a scorer of a kind and its
// arguments (expressions over row, input and output).
type EvalScore struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	Kind      string
	KindRange hcl.Range
	// Attrs are the scorer's arguments but kind, by name.
	Attrs map[string]*hcl.Attribute
}

// Score kinds.
const (
	ScoreExact      = "exact"
	ScoreContains   = "contains"
	ScoreRegex      = "regex"
	ScoreJSONSchema = "json_schema"
	ScoreNumeric    = "numeric"
	ScoreSimilarity = "similarity"
	ScoreJudge      = "judge"
)

// ScoreKinds are the kinds of scorer, each with the arguments it needs
// and those it may take.
var ScoreKinds = map[string]struct{ Required, Optional []string }{
	ScoreExact:      {Required: []string{"value", "expected"}},
	ScoreContains:   {Required: []string{"value", "expected"}},
	ScoreRegex:      {Required: []string{"value", "pattern"}},
	ScoreJSONSchema: {Required: []string{"value", "schema"}},
	ScoreNumeric:    {Required: []string{"value", "expected"}, Optional: []string{"tolerance"}},
	ScoreSimilarity: {Required: []string{"value", "expected"}, Optional: []string{"threshold", "model", "provider"}},
	ScoreJudge:      {Required: []string{"value", "model", "rubric"}, Optional: []string{"expected", "scale", "provider", "threshold"}},
}

// ScoreKindNames are the kinds of scorer, in the order the docs list them.
var ScoreKindNames = []string{ScoreExact, ScoreContains, ScoreRegex, ScoreJSONSchema, ScoreNumeric, ScoreSimilarity, ScoreJudge}

// EvalGate is a `gate` of an eval: a bound on a score's mean, for every
// variant or one.
type EvalGate struct {
	Score         string
	ScoreRange    hcl.Range
	Variant       string // "": every variant
	VariantRange  hcl.Range
	Min           *float64
	MaxRegression *float64
	DeclRange     hcl.Range
}

var evalFileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "eval", LabelNames: []string{"name"}}},
}

var evalSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "flow", Required: true}, {Name: "dataset", Required: true}, {Name: "inputs"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variant", LabelNames: []string{"name"}},
		{Type: "score", LabelNames: []string{"name"}},
		{Type: "gate"},
	},
}

var variantSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "override", LabelNames: []string{"step"}}},
}

var gateSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "score", Required: true}, {Name: "variant"}, {Name: "min"}, {Name: "max_regression"}},
}

// DecodeEvalFile decodes a parsed evaluation file into its evals, as far
// as it can.
func DecodeEvalFile(f *hcl.File) ([]*EvalDef, hcl.Diagnostics) {
	if f == nil || f.Body == nil {
		return nil, nil
	}
	content, diags := f.Body.Content(evalFileSchema)
	var out []*EvalDef
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		e, d := decodeEval(b)
		diags = append(diags, d...)
		if prev, ok := seen[e.Name]; ok {
			diags = append(diags, Error(e.NameRange, "Duplicate eval",
				"An eval named %s is already defined at %s.", quote(e.Name), prev)...)
			continue
		}
		seen[e.Name] = e.NameRange
		out = append(out, e)
	}
	return out, diags
}

func decodeEval(b *hcl.Block) (*EvalDef, hcl.Diagnostics) {
	e := &EvalDef{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(evalSchema)
	for _, a := range sortedAttributes(content.Attributes) {
		var d hcl.Diagnostics
		switch a.Name {
		case "flow":
			e.Flow, d = stringAttr(a)
			e.FlowRange = a.Expr.Range()
		case "dataset":
			e.Dataset, d = stringAttr(a)
			e.DatasetRange = a.Expr.Range()
		case "inputs":
			e.Inputs = a.Expr
		}
		diags = append(diags, d...)
	}
	names := map[string]map[string]hcl.Range{"variant": {}, "score": {}}
	for _, blk := range content.Blocks {
		if len(blk.Labels) == 1 {
			if prev, ok := names[blk.Type][blk.Labels[0]]; ok {
				diags = append(diags, Error(blk.LabelRanges[0], "Duplicate "+blk.Type,
					"Eval %s already has a %s named %s, at %s.", quote(e.Name), blk.Type, quote(blk.Labels[0]), RangeString(prev))...)
				continue
			}
			names[blk.Type][blk.Labels[0]] = blk.LabelRanges[0]
		}
		var d hcl.Diagnostics
		switch blk.Type {
		case "variant":
			var v *EvalVariant
			v, d = decodeVariant(blk)
			e.Variants = append(e.Variants, v)
		case "score":
			var s *EvalScore
			s, d = decodeScore(blk)
			if s != nil {
				e.Scores = append(e.Scores, s)
			}
		case "gate":
			var g *EvalGate
			g, d = decodeGate(blk)
			if g != nil {
				e.Gates = append(e.Gates, g)
			}
		}
		diags = append(diags, d...)
	}
	return e, diags
}

func decodeVariant(b *hcl.Block) (*EvalVariant, hcl.Diagnostics) {
	v := &EvalVariant{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	diags := checkName("variant", v.Name, v.NameRange)
	content, d := b.Body.Content(variantSchema)
	diags = append(diags, d...)
	seen := map[string]bool{}
	for _, blk := range content.Blocks {
		o := &EvalOverride{StepRange: blk.LabelRanges[0], DeclRange: blk.DefRange}
		name, ok := strings.CutPrefix(blk.Labels[0], "step.")
		if !ok || !ValidName(name) {
			diags = append(diags, Error(o.StepRange, "Invalid override",
				"A variant's override names one step of the eval's flow, as override \"step.NAME\", not %s.", quote(blk.Labels[0]))...)
			continue
		}
		if seen[name] {
			diags = append(diags, Error(o.StepRange, "Duplicate override",
				"Variant %s already overrides step %s: give all its arguments in one override.", quote(v.Name), quote(name))...)
			continue
		}
		seen[name] = true
		o.Step = name
		attrs, d := blk.Body.JustAttributes()
		diags = append(diags, d...)
		o.Attrs = sortedAttributes(attrs)
		v.Overrides = append(v.Overrides, o)
	}
	return v, diags
}

func decodeScore(b *hcl.Block) (*EvalScore, hcl.Diagnostics) {
	s := &EvalScore{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange, Attrs: map[string]*hcl.Attribute{}}
	diags := checkName("score", s.Name, s.NameRange)
	attrs, d := b.Body.JustAttributes()
	diags = append(diags, d...)
	kind := attrs["kind"]
	if kind == nil {
		return nil, append(diags, Error(b.DefRange, "Missing kind",
			"Score %s needs a kind: one of %s.", quote(s.Name), strings.Join(ScoreKindNames, ", "))...)
	}
	s.KindRange = kind.Expr.Range()
	s.Kind, d = stringAttr(kind)
	if d.HasErrors() {
		return nil, append(diags, d...)
	}
	spec, ok := ScoreKinds[s.Kind]
	if !ok {
		return nil, append(diags, Error(s.KindRange, "Unknown score kind",
			"There is no score kind %s; the kinds are %s.%s", quote(s.Kind), strings.Join(ScoreKindNames, ", "), Suggest(s.Kind, ScoreKindNames))...)
	}
	for _, a := range sortedAttributes(attrs) {
		if a.Name == "kind" {
			continue
		}
		if !slices.Contains(spec.Required, a.Name) && !slices.Contains(spec.Optional, a.Name) {
			all := append(slices.Clone(spec.Required), spec.Optional...)
			diags = append(diags, Error(a.NameRange, "Unsupported argument",
				"A %s score takes %s, not %s.%s", s.Kind, strings.Join(all, ", "), quote(a.Name), Suggest(a.Name, all))...)
			continue
		}
		s.Attrs[a.Name] = a
	}
	for _, name := range spec.Required {
		if s.Attrs[name] == nil {
			diags = append(diags, Error(b.DefRange, "Missing argument",
				"A %s score needs %s (score %s).", s.Kind, name, quote(s.Name))...)
		}
	}
	return s, diags
}

func decodeGate(b *hcl.Block) (*EvalGate, hcl.Diagnostics) {
	g := &EvalGate{DeclRange: b.DefRange}
	content, diags := b.Body.Content(gateSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	for _, a := range sortedAttributes(content.Attributes) {
		var d hcl.Diagnostics
		switch a.Name {
		case "score":
			g.Score, d = stringAttr(a)
			g.ScoreRange = a.Expr.Range()
		case "variant":
			g.Variant, d = stringAttr(a)
			g.VariantRange = a.Expr.Range()
		case "min", "max_regression":
			var f float64
			if f, d = numberAttr(a); !d.HasErrors() {
				if f < 0 || f > 1 {
					d = Error(a.Expr.Range(), "Invalid "+a.Name, "A gate's %s is a share of a score, between 0 and 1; got %g.", a.Name, f)
				} else if a.Name == "min" {
					g.Min = &f
				} else {
					g.MaxRegression = &f
				}
			}
		}
		diags = append(diags, d...)
	}
	if g.Min == nil && g.MaxRegression == nil && !diags.HasErrors() {
		diags = append(diags, Error(b.DefRange, "Empty gate",
			"A gate bounds its score with min, max_regression or both.")...)
	}
	return g, diags
}

// ApplyOverride replaces the arguments of step s with an override's: a
// block input replaces or adds the step's argument of that name, and
// provider the step's provider. Other meta-arguments cannot be
// overridden.
func ApplyOverride(s *Step, o *EvalOverride) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range o.Attrs {
		switch {
		case a.Name == "provider":
			ref, d := decodeProviderRef(a)
			diags = append(diags, d...)
			if !d.HasErrors() {
				s.ProviderRef, s.ProviderRange = ref, a.Expr.Range()
			}
		case IsMetaArgument(a.Name):
			diags = append(diags, Error(a.NameRange, "Meta-argument in an override",
				"A variant overrides a step's block inputs and its provider, not %s.", quote(a.Name))...)
		default:
			i := slices.IndexFunc(s.Args, func(x *hcl.Attribute) bool { return x.Name == a.Name })
			s.Args = slices.Clone(s.Args)
			if i < 0 {
				s.Args = append(s.Args, a)
			} else {
				s.Args[i] = a
			}
		}
	}
	return diags
}
