package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/evaluate/result"
	jsonschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// scorer scores the cases of an eval by one of its scores.
type scorer struct {
	def *lang.EvalScore
	ev  *compiler.Eval
	// prog is the one-step flow a similarity (embed) or judge (llm)
	// score runs, through the result cache as the eval's flow runs.
	prog *compiler.Program
	// schema is a json_schema score's schema when it is the same for
	// every case; schemas the others', by their JSON text, at most
	// maxSchemas of them (a dataset may give each row a schema of its
	// own).
	schema   *jsonschema.Resolved
	schemas  sync.Map
	nSchemas atomic.Int64
	// re is a regex score's pattern when it is the same for every case.
	re *regexp.Regexp
}

// The one-step flows of the scores that call a model. Their steps' cache
// keys are those of any step: the same text scored with the same model
// makes no call again.
const judgeFlow = `flow "eval_judge" {}
input "model" { type = string }
input "prompt" { type = string }
step "judge" {
  use         = "llm"
  model       = input.model
  temperature = 0
  system      = "You grade a response against a rubric. Reply with a JSON object: the grade and a one-sentence reason."
  prompt      = input.prompt
  output "grade" {
    type        = %s
    description = "%s"
  }
  output "reason" {
    type        = string
    description = "why, in one sentence"
  }
}
output "grade" { value = step.judge.grade }
output "reason" { value = step.judge.reason }
`

const similarityFlow = `flow "eval_similarity" {}
input "model" {
  type    = string
  default = null
}
input "texts" { type = list(string) }
step "embed" {
  use   = "embed"
  texts = input.texts
  model = input.model
}
output "vectors" { value = step.embed.vectors }
`

// newScorer prepares a score: the flow a judge or similarity score runs,
// and a pattern or schema that does not depend on the case.
func newScorer(ev *compiler.Eval, def *lang.EvalScore, opts compiler.Options) (*scorer, error) {
	x := &scorer{def: def, ev: ev}
	constant := func(name string) (cty.Value, bool) {
		a := def.Attrs[name]
		if a == nil || len(a.Expr.Variables()) > 0 {
			return cty.NilVal, false
		}
		v, d := a.Expr.Value(&hcl.EvalContext{Functions: ev.Functions})
		return v, !d.HasErrors() && v.IsWhollyKnown()
	}
	var src string
	switch def.Kind {
	case lang.ScoreRegex:
		if v, ok := constant("pattern"); ok && v.Type() == cty.String {
			re, err := regexp.Compile(v.AsString())
			if err != nil {
				return nil, fmt.Errorf("score %q: the pattern is not a regular expression: %v", def.Name, err)
			}
			x.re = re
		}
	case lang.ScoreJSONSchema:
		if v, ok := constant("schema"); ok {
			s, err := x.resolveSchema(v)
			if err != nil {
				return nil, fmt.Errorf("score %q: %v", def.Name, err)
			}
			x.schema = s
		}
	case lang.ScoreJudge:
		grade, desc := "number", "the grade: a whole number from 1 (worst) to 5 (best)"
		if v, ok := constant("scale"); ok && v.Type() == cty.String && v.AsString() == "pass_fail" {
			grade, desc = "bool", "true when the response meets the rubric, false when it does not"
		}
		src = fmt.Sprintf(judgeFlow, grade, desc)
	case lang.ScoreSimilarity:
		src = similarityFlow
	}
	if src == "" {
		return x, nil
	}
	o := opts
	o.Source, o.Overrides, o.Parser = []byte(src), nil, lang.NewParser()
	name := filepath.Join(ev.Program.Dir, "eval_"+def.Kind+"_"+def.Name+".flow.hcl")
	prog, diags := compiler.Compile(name, o)
	if diags.HasErrors() {
		return nil, fmt.Errorf("score %q: %s", def.Name, lang.ErrorSentence(diags, false))
	}
	if a := def.Attrs["provider"]; a != nil {
		// The provider of the eval's flow, with the secret of its key.
		tr, _ := hcl.AbsTraversalForExpr(a.Expr)
		p := ev.Program.ProvidersByName[tr[1].(hcl.TraverseAttr).Name]
		prog.Steps[0].Provider = p
		if name := p.APIKeySecret(); name != "" && ev.Program.SecretsByName[name] != nil {
			prog.Secrets = append(prog.Secrets, ev.Program.SecretsByName[name])
			prog.SecretsByName = map[string]*lang.Secret{name: ev.Program.SecretsByName[name]}
		}
	}
	x.prog = prog
	return x, nil
}

// resolveSchema reads a json_schema score's schema: an object, or the
// path of a JSON file relative to the eval file (compiler.EvalSchemaText).
func (x *scorer) resolveSchema(v cty.Value) (*jsonschema.Resolved, error) {
	text, err := compiler.EvalSchemaText(filepath.Dir(x.def.DeclRange.Filename), v)
	if err != nil {
		return nil, err
	}
	if r, ok := x.schemas.Load(string(text)); ok {
		return r.(*jsonschema.Resolved), nil
	}
	r, err := compiler.ResolveEvalSchema(text)
	if err != nil {
		return nil, err
	}
	if x.nSchemas.Add(1) <= maxSchemas {
		x.schemas.Store(string(text), r)
	}
	return r, nil
}

// maxSchemas is how many schemas that differ by case a json_schema score
// keeps resolved.
const maxSchemas = 64

// scoring is what a case's scores see and add to.
type scoring struct {
	ctx   *hcl.EvalContext
	run   runtime.Options // the options of the scorers' runs
	c     *result.Case
	calls int // model calls the scorers made
}

// score scores one case. A case whose run failed scores 0 on every score
// but those whose arguments still have values.
func (x *scorer) score(ctx context.Context, sc *scoring) result.Score {
	out := result.Score{Name: x.def.Name}
	args := map[string]cty.Value{}
	sensitive := false
	for name, a := range x.def.Attrs {
		if name == "provider" {
			continue
		}
		v, d := a.Expr.Value(sc.ctx)
		if d.HasErrors() {
			out.Error = lang.ErrorSentence(d, false)
			return out
		}
		sensitive = sensitive || v.ContainsMarked()
		v, _ = v.UnmarkDeep()
		args[name] = v
	}
	if sensitive && (x.def.Kind == lang.ScoreJudge || x.def.Kind == lang.ScoreSimilarity) {
		out.Error = "a sensitive value is not sent to a model to be scored"
		return out
	}
	if v := args["value"]; v == cty.NilVal || v.IsNull() {
		out.Error = "the value is null"
		if sc.c.Error != "" {
			out.Error = "the run failed"
		}
		return out
	}
	var err error
	switch x.def.Kind {
	case lang.ScoreExact:
		err = x.exact(&out, args)
	case lang.ScoreContains:
		err = x.contains(&out, args)
	case lang.ScoreRegex:
		err = x.regex(&out, args)
	case lang.ScoreJSONSchema:
		err = x.jsonSchema(&out, args)
	case lang.ScoreNumeric:
		err = x.numeric(&out, args)
	case lang.ScoreSimilarity:
		err = x.similarity(ctx, &out, args, sc)
	case lang.ScoreJudge:
		err = x.judge(ctx, &out, args, sc)
	}
	if err != nil {
		out.Value, out.Pass, out.Error = 0, false, err.Error()
	}
	if sensitive && out.Reason != "" {
		// A reason, or an error, may quote the values.
		out.Reason = "(sensitive)"
	}
	if sensitive && out.Error != "" {
		out.Error = "the score failed on a sensitive value"
	}
	return out
}

func pass(out *result.Score, ok bool, reason string, a ...any) {
	out.Pass = ok
	if ok {
		out.Value = 1
	} else {
		out.Reason = fmt.Sprintf(reason, a...)
	}
}

func str(v cty.Value, name string) (string, error) {
	s, err := convert.Convert(v, cty.String)
	if err != nil || s.IsNull() || !s.IsKnown() {
		return "", fmt.Errorf("the %s is not a string", name)
	}
	return s.AsString(), nil
}

// show is a value as a message shows it: a string as it is, else JSON.
func show(v cty.Value) string {
	if v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		return v.AsString()
	}
	b, err := jsonval.Marshal(v)
	if err != nil {
		return lang.FriendlyTypeName(v.Type())
	}
	return string(b)
}

// exact: the value equals the expected one. Primitive values are compared
// as text (the number 3 equals "3", as a model's reply read as text
// would); others as JSON.
func (x *scorer) exact(out *result.Score, args map[string]cty.Value) error {
	v, e := args["value"], args["expected"]
	var same bool
	if v.Type().IsPrimitiveType() && e.Type().IsPrimitiveType() && !e.IsNull() {
		vs, err1 := str(v, "value")
		es, err2 := str(e, "expected value")
		same = err1 == nil && err2 == nil && vs == es
	} else {
		a, err1 := jsonval.Marshal(v)
		b, err2 := jsonval.Marshal(e)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		same = string(a) == string(b)
	}
	pass(out, same, "got %s, expected %s", clip(show(v)), clip(show(e)))
	return nil
}

func (x *scorer) contains(out *result.Score, args map[string]cty.Value) error {
	v, err := str(args["value"], "value")
	if err != nil {
		return err
	}
	e, err := str(args["expected"], "expected value")
	if err != nil {
		return err
	}
	pass(out, strings.Contains(v, e), "%s does not contain %q", clip(v), e)
	return nil
}

func (x *scorer) regex(out *result.Score, args map[string]cty.Value) error {
	v, err := str(args["value"], "value")
	if err != nil {
		return err
	}
	re := x.re
	if re == nil {
		p, err := str(args["pattern"], "pattern")
		if err != nil {
			return err
		}
		if re, err = regexp.Compile(p); err != nil {
			return fmt.Errorf("the pattern is not a regular expression: %v", err)
		}
	}
	pass(out, re.MatchString(v), "%s does not match %s", clip(v), re)
	return nil
}

// jsonSchema: the value holds to the schema. A string value is read as
// JSON when it is JSON (a model's reply), else checked as a string.
func (x *scorer) jsonSchema(out *result.Score, args map[string]cty.Value) error {
	r := x.schema
	if r == nil {
		var err error
		if r, err = x.resolveSchema(args["schema"]); err != nil {
			return err
		}
	}
	v := args["value"]
	var instance any
	text, err := jsonval.Marshal(v)
	if err != nil {
		return err
	}
	if v.Type() == cty.String && json.Valid([]byte(v.AsString())) {
		text = []byte(v.AsString())
	}
	if err := json.Unmarshal(text, &instance); err != nil {
		return err
	}
	if err := r.Validate(instance); err != nil {
		pass(out, false, "%s", clip(err.Error()))
		return nil
	}
	pass(out, true, "")
	return nil
}

func (x *scorer) numeric(out *result.Score, args map[string]cty.Value) error {
	num := func(v cty.Value, name string) (float64, error) {
		n, err := convert.Convert(v, cty.Number)
		if err != nil || n.IsNull() {
			return 0, fmt.Errorf("the %s %s is not a number", name, clip(show(v)))
		}
		f, _ := n.AsBigFloat().Float64()
		return f, nil
	}
	v, err := num(args["value"], "value")
	if err != nil {
		return err
	}
	e, err := num(args["expected"], "expected value")
	if err != nil {
		return err
	}
	tol := 0.0
	if t := args["tolerance"]; t != cty.NilVal && !t.IsNull() {
		tol, _ = t.AsBigFloat().Float64()
	}
	pass(out, math.Abs(v-e) <= tol, "%g is %g from %g, more than the tolerance %g", v, math.Abs(v-e), e, tol)
	return nil
}

// similarity: the cosine of the embeddings of the value and the expected
// text, which passes at the threshold (0.8 by default).
func (x *scorer) similarity(ctx context.Context, out *result.Score, args map[string]cty.Value, sc *scoring) error {
	v, err := str(args["value"], "value")
	if err != nil {
		return err
	}
	e, err := str(args["expected"], "expected value")
	if err != nil {
		return err
	}
	in := map[string]cty.Value{"texts": cty.ListVal([]cty.Value{cty.StringVal(v), cty.StringVal(e)}), "model": cty.NullVal(cty.String)}
	if m := args["model"]; m != cty.NilVal && !m.IsNull() {
		in["model"] = m
	}
	outs, err := x.runFlow(ctx, in, sc)
	if err != nil {
		return err
	}
	var vecs [][]float64
	if err := jsonUnmarshalValue(outs["vectors"], &vecs); err != nil || len(vecs) != 2 {
		return fmt.Errorf("the embeddings are not two vectors")
	}
	cos := cosine(vecs[0], vecs[1])
	threshold := 0.8
	if t := args["threshold"]; t != cty.NilVal && !t.IsNull() {
		threshold, _ = t.AsBigFloat().Float64()
	}
	out.Value = max(cos, 0)
	out.Pass = cos >= threshold
	if !out.Pass {
		out.Reason = fmt.Sprintf("similarity %.3f is below the threshold %g", cos, threshold)
	}
	return nil
}

func cosine(a, b []float64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// judge asks a model to grade the value against the rubric: on the 1–5
// scale a grade n scores (n-1)/4 and passes at the threshold (0.75 by
// default: 4 of 5); pass_fail scores 1 or 0. The model's reason is kept.
func (x *scorer) judge(ctx context.Context, out *result.Score, args map[string]cty.Value, sc *scoring) error {
	v, err := str(args["value"], "value")
	if err != nil {
		return err
	}
	model, err := str(args["model"], "model")
	if err != nil {
		return err
	}
	rubric, err := str(args["rubric"], "rubric")
	if err != nil {
		return err
	}
	passFail := false
	if s := args["scale"]; s != cty.NilVal && !s.IsNull() {
		passFail = s.AsString() == "pass_fail"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Rubric: %s\n\nThe input:\n%s\n\nThe response to grade:\n%s\n", rubric, sc.c.Inputs, v)
	if e := args["expected"]; e != cty.NilVal && !e.IsNull() {
		fmt.Fprintf(&b, "\nA reference answer:\n%s\n", show(e))
	}
	if passFail {
		b.WriteString("\nDoes the response meet the rubric? Answer with grade true or false, and a reason.")
	} else {
		b.WriteString("\nGrade the response against the rubric from 1 (fails it) to 5 (meets it fully), and give a reason.")
	}
	outs, err := x.runFlow(ctx, map[string]cty.Value{"model": cty.StringVal(model), "prompt": cty.StringVal(b.String())}, sc)
	if err != nil {
		return err
	}
	grade, reason := outs["grade"], outs["reason"]
	if reason.Type() == cty.String && !reason.IsNull() {
		out.Reason = reason.AsString()
	}
	if passFail {
		if grade.Type() != cty.Bool || grade.IsNull() {
			return fmt.Errorf("the judge gave no grade")
		}
		out.Pass = grade.True()
		if out.Pass {
			out.Value = 1
		}
		return nil
	}
	if grade.Type() != cty.Number || grade.IsNull() {
		return fmt.Errorf("the judge gave no grade")
	}
	n, _ := grade.AsBigFloat().Float64()
	if n < 1 || n > 5 {
		return fmt.Errorf("the judge's grade %g is not from 1 to 5", n)
	}
	threshold := 0.75
	if t := args["threshold"]; t != cty.NilVal && !t.IsNull() {
		threshold, _ = t.AsBigFloat().Float64()
	}
	out.Value = (n - 1) / 4
	out.Pass = out.Value >= threshold
	return nil
}

// runFlow runs a scorer's one-step flow, through the result cache, and
// adds its tokens and cost to the case's.
func (x *scorer) runFlow(ctx context.Context, inputs map[string]cty.Value, sc *scoring) (map[string]cty.Value, error) {
	o := sc.run
	o.Inputs = inputs
	o.Observe = nil
	res, err := runtime.Apply(ctx, x.prog, o)
	if err != nil {
		return nil, err
	}
	if res.Usage != nil {
		addUsage(sc.c, res.Usage)
		sc.calls += res.Usage.Calls
	}
	if res.Status != runtime.StatusOK {
		return nil, errors.New(strings.TrimSuffix(lang.ErrorSentence(res.Diagnostics, false), "."))
	}
	out := map[string]cty.Value{}
	for k, v := range res.Outputs {
		out[k], _ = v.UnmarkDeep()
	}
	return out, nil
}

func jsonUnmarshalValue(v cty.Value, into any) error {
	if v == cty.NilVal {
		return errors.New("no value")
	}
	b, err := jsonval.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// clip shortens a text for a reason.
func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", s[:n])
}
