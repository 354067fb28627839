// Package evaluate runs evals (eval blocks of *.eval.hcl files, checked
// by compiler.CompileEval): every row of the dataset, by every variant of
// the flow, as a run of the flow through the result cache of the state,
// scored by the eval's scores. The cases stream to a result.Sink as they
// finish; the summary sums them up and gives the gates' verdicts.
package evaluate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/evaluate/baseline"
	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Options configure Run.
type Options struct {
	// Store is the state the runs are recorded in and whose result cache
	// they use: a rerun with nothing changed calls no model.
	Store     *state.Store
	Executors *blocks.Executors
	// Secrets and LookupEnv give the flow's secrets (runtime.Options).
	Secrets   map[string]string
	LookupEnv func(string) (string, bool)
	// Variants, when set, are the variants to run, by name; all of them
	// otherwise.
	Variants []string
	// Only, when set, selects the cases whose name (CaseName) it matches.
	Only *regexp.Regexp
	// Limit, when above 0, runs only the dataset's first Limit rows.
	Limit int
	// Repeat runs each case this many times (at least once); each
	// repetition has results of its own in the cache (runtime.Options'
	// CacheTag), so that pass^k says whether a flow passes every time.
	Repeat int
	// Parallelism is how many cases run at once; 0: DefaultParallelism.
	Parallelism int
	// Compile are the options the scorers' flows are compiled with (the
	// eval's flow's).
	Compile compiler.Options
	// Sink receives every case as it finishes, then the summary; before
	// the summary, a sink that is a Comparing gets the comparison with
	// the baseline, when there is one.
	Sink result.Sink
	// Baseline, when set, is what each eval is compared with
	// (baseline.Load): latest, an ID of results in Store, or a results
	// file. A gate's max_regression is checked against the comparison.
	Baseline string
	// JUnit and Report, when set, are the files Files writes (eval
	// --junit, --report) once an eval's results are kept in Store; they
	// name one eval's (RunAll refuses several).
	JUnit, Report string
	Files         func(junit, report string, sum result.Summary, cmp *result.Comparison, cases func(func(result.Case) error) error) error
}

// Comparing is a sink that shows an evaluation's comparison with its
// baseline.
type Comparing interface {
	Compared(*result.Comparison) error
}

// DefaultParallelism is how many cases run at once by default: cases
// mostly wait for models, whose providers' limits bound them further.
func DefaultParallelism() int { return 8 * goruntime.GOMAXPROCS(0) }

// CaseName names a case for --only: VARIANT/ROW, ROW being the row's id
// or name field when it has one, else its number (1-based).
func CaseName(variant string, row int, fields map[string]cty.Value) string {
	for _, k := range []string{"id", "name"} {
		v, ok := fields[k]
		if !ok || v.IsNull() || !v.IsKnown() {
			continue
		}
		switch v.Type() {
		case cty.String:
			return variant + "/" + v.AsString()
		case cty.Number:
			return variant + "/" + v.AsBigFloat().Text('f', -1)
		}
	}
	return variant + "/" + strconv.Itoa(row+1)
}

// job is a case to run.
type job struct {
	row     int
	fields  map[string]cty.Value
	variant *compiler.EvalVariant
	repeat  int
}

// Run runs an eval. It returns an error when the eval cannot run (a
// variant that does not exist, a dataset that cannot be read, a sink
// that fails); a case whose run fails is a case with an error, scored 0.
func Run(ctx context.Context, ev *compiler.Eval, o Options) (result.Summary, error) {
	start := time.Now()
	sum := result.Summary{Eval: ev.Def.Name, File: ev.Def.DeclRange.Filename, Flow: ev.Program.Flow.Name, StartedAt: start}
	variants, err := selectVariants(ev, o.Variants)
	if err != nil {
		return sum, err
	}
	scorers := make([]*scorer, 0, len(ev.Def.Scores))
	for _, s := range ev.Def.Scores {
		x, err := newScorer(ev, s, o.Compile)
		if err != nil {
			return sum, err
		}
		scorers = append(scorers, x)
	}
	r, err := compiler.OpenDataset(ev.Dataset)
	if err != nil {
		return sum, fmt.Errorf("the dataset %s cannot be read: %s", ev.Def.Dataset, lang.PathErrorText(err))
	}
	defer r.Close()
	sinks, cmpr, baseID, err := keep(ev, o, &sum)
	if err != nil {
		return sum, err
	}
	sink := result.Tee(sinks...)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	par := o.Parallelism
	if par <= 0 {
		par = DefaultParallelism()
	}
	repeat := max(o.Repeat, 1)
	jobs := make(chan job, par)
	agg := result.NewAggregator()
	var mu sync.Mutex // the sink and the aggregator
	var sinkErr error
	var wg sync.WaitGroup
	for range par {
		wg.Go(func() {
			for j := range jobs {
				c := runCase(ctx, ev, scorers, j, o)
				mu.Lock()
				if sinkErr == nil && ctx.Err() == nil {
					agg.Add(c)
					if err := sink.Case(c); err != nil {
						sinkErr = err
						cancel()
					}
				}
				mu.Unlock()
			}
		})
	}
	var readErr error
	for row := 0; o.Limit <= 0 || row < o.Limit; row++ {
		fields, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = fmt.Errorf("the dataset %s: %v", ev.Def.Dataset, err)
			break
		}
		for _, v := range variants {
			if o.Only != nil && !o.Only.MatchString(CaseName(v.Name, row, fields)) {
				continue
			}
			for n := range repeat {
				select {
				case jobs <- job{row: row, fields: fields, variant: v, repeat: n}:
				case <-ctx.Done():
				}
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(readErr, sinkErr); err != nil {
		return sum, err
	}
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	sum.Duration = time.Since(start)
	// The variants in the eval's order, not in that their first cases
	// finished in.
	sum.Variants = agg.Stats()
	slices.SortStableFunc(sum.Variants, func(a, b result.Variant) int {
		return slices.IndexFunc(variants, func(v *compiler.EvalVariant) bool { return v.Name == a.Name }) -
			slices.IndexFunc(variants, func(v *compiler.EvalVariant) bool { return v.Name == b.Name })
	})
	var cmp *result.Comparison
	if cmpr != nil {
		cmp = cmpr.Compare(baseID, sum.ID)
		sum.Baseline = baseID
		if c, ok := o.Sink.(Comparing); ok {
			if err := c.Compared(cmp); err != nil {
				return sum, err
			}
		}
	}
	sum.Gates = Gates(ev.Def, sum.Variants, cmp)
	if err := sink.Summary(sum); err != nil {
		return sum, err
	}
	if o.Files != nil && (o.JUnit != "" || o.Report != "") && o.Store != nil {
		if err := o.Files(o.JUnit, o.Report, sum, cmp, o.Store.EvalCasesOf(sum.ID)); err != nil {
			return sum, fmt.Errorf("writing the reports: %w", err)
		}
	}
	return sum, nil
}

// keep returns the sinks of an eval's cases: the options' sink, the
// state's (the results kept, sum.ID theirs) and the baseline's comparer
// (with the baseline's ID), when there are.
func keep(ev *compiler.Eval, o Options, sum *result.Summary) (sinks []result.Sink, cmpr *result.Comparer, baseID string, err error) {
	if o.Sink != nil {
		sinks = append(sinks, o.Sink)
	}
	if o.Store == nil {
		return sinks, nil, "", nil
	}
	if o.Baseline != "" {
		cmpr, baseID, err = baseline.Load(o.Store, ev.Def.Name, o.Baseline)
		switch {
		case errors.Is(err, baseline.ErrNoBaseline) && o.Baseline == baseline.Latest:
			cmpr, err = nil, nil // the eval's first results: nothing to compare with
		case err != nil:
			return nil, nil, "", err
		default:
			sinks = append(sinks, cmpr.Heads())
		}
	}
	w, err := o.Store.NewEvalResult(&state.EvalResult{Eval: sum.Eval, File: sum.File, Flow: sum.Flow, StartedAt: sum.StartedAt})
	if err != nil {
		return nil, nil, "", err
	}
	sum.ID = w.ID()
	// The state's first: the summary the view prints is kept already.
	return append([]result.Sink{w}, sinks...), cmpr, baseID, nil
}

// RunAll runs evals one after the other, with the same options, and
// reports whether every gate of every eval held. It stops at the first
// eval that cannot run.
func RunAll(ctx context.Context, evals []*compiler.Eval, o Options) (held bool, err error) {
	if err := checkOneEval(evals, o); err != nil {
		return false, err
	}
	held = true
	ran := false
	for _, ev := range evals {
		sum, err := Run(ctx, ev, o)
		if err != nil {
			return false, fmt.Errorf("eval %q did not finish: %w", ev.Def.Name, err)
		}
		held = held && sum.Held()
		ran = ran || len(sum.Variants) > 0
	}
	if !ran && o.Only != nil {
		// Gates that judged no case hold: a filter that matches none
		// would pass every gate unseen.
		return false, fmt.Errorf("no case ran: --only %q matches no case's name (VARIANT/ROW, such as %s)", o.Only, CaseName(evals[0].Variants[0].Name, 0, nil))
	}
	return held, nil
}

// CheckUse checks, before anything runs, what of the options would make
// RunAll refuse evals: every eval has the variants named (--variant),
// when some are, and the options that are one eval's (JUnit, Report, a
// Baseline other than latest) are given for one eval only.
func CheckUse(evals []*compiler.Eval, o Options) error {
	if err := checkOneEval(evals, o); err != nil {
		return err
	}
	for _, ev := range evals {
		if _, err := selectVariants(ev, o.Variants); err != nil {
			return err
		}
	}
	return nil
}

func checkOneEval(evals []*compiler.Eval, o Options) error {
	if len(evals) > 1 && (o.JUnit != "" || o.Report != "" || o.Baseline != "" && o.Baseline != baseline.Latest) {
		return fmt.Errorf("--junit, --report and a --baseline other than latest are of one eval, and %d evals were found: name one eval file", len(evals))
	}
	return nil
}

// selectVariants are the variants named, in the eval's order; all of
// them when none is.
func selectVariants(ev *compiler.Eval, names []string) ([]*compiler.EvalVariant, error) {
	if len(names) == 0 {
		return ev.Variants, nil
	}
	all := make([]string, len(ev.Variants))
	for i, v := range ev.Variants {
		all[i] = v.Name
	}
	for _, n := range names {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("eval %q has no variant %q; it has %s%s", ev.Def.Name, n, joinNames(all), lang.Suggest(n, all))
		}
	}
	var out []*compiler.EvalVariant
	for _, v := range ev.Variants {
		if slices.Contains(names, v.Name) {
			out = append(out, v)
		}
	}
	return out, nil
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(n)
	}
	return out
}

// runCase runs one case: the flow with the row's inputs, then the
// scores.
func runCase(ctx context.Context, ev *compiler.Eval, scorers []*scorer, j job, o Options) result.Case {
	start := time.Now()
	c := result.Case{Eval: ev.Def.Name, Variant: j.variant.Name, Row: j.row, Repeat: j.repeat, Scores: []result.Score{}}
	prog := j.variant.Program
	row := cty.ObjectVal(j.fields)
	if len(j.fields) == 0 {
		row = cty.EmptyObjectVal
	}
	base := runtime.Options{
		Secrets: o.Secrets, LookupEnv: o.LookupEnv, Store: o.Store, Executors: o.Executors,
		CacheAll: true, Origin: "eval",
	}
	if j.repeat > 0 {
		base.CacheTag = "repeat " + strconv.Itoa(j.repeat)
	}
	inputs, diags := caseInputs(ev, prog, row, j.row)
	var outputs map[string]cty.Value
	flowCalls := 0
	if diags.HasErrors() {
		c.Error = lang.ErrorSentence(diags, false)
	} else {
		c.Inputs, _ = jsonval.MarshalAttrs(plain(inputs))
		opts := base
		opts.Inputs = inputs
		res, err := runtime.Apply(ctx, prog, opts)
		switch {
		case err != nil:
			c.Error = err.Error()
		default:
			c.RunID = res.RunID
			outputs = res.Outputs
			if res.Status != runtime.StatusOK {
				c.Error = lang.ErrorSentence(res.Diagnostics, false)
			}
			if res.Usage != nil {
				addUsage(&c, res.Usage)
				flowCalls = res.Usage.Calls
			}
		}
		c.Outputs, _ = jsonval.MarshalAttrs(plain(outputs))
	}
	if c.Inputs == nil {
		c.Inputs = []byte("{}")
	}
	out := map[string]cty.Value{}
	for _, oo := range prog.Outputs {
		v, ok := outputs[oo.Name]
		if !ok {
			v = cty.NullVal(cty.DynamicPseudoType)
		}
		out[oo.Name] = v
	}
	in := objectOf(inputs)
	sc := &scoring{
		ctx: &hcl.EvalContext{Variables: map[string]cty.Value{"row": row, "input": in, "output": objectOf(out)}, Functions: ev.Functions},
		run: base, c: &c,
	}
	for _, x := range scorers {
		c.Scores = append(c.Scores, x.score(ctx, sc))
	}
	c.Cached = c.Error == "" && flowCalls == 0 && sc.calls == 0
	c.Duration = time.Since(start)
	return c
}

func objectOf(m map[string]cty.Value) cty.Value {
	if len(m) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(m)
}

// caseInputs are the flow's inputs of a row: the eval's inputs evaluated
// with it, resolved as the flow's.
func caseInputs(ev *compiler.Eval, prog *compiler.Program, row cty.Value, n int) (map[string]cty.Value, hcl.Diagnostics) {
	given := map[string]compiler.InputValue{}
	src := fmt.Sprintf("row %d of %s", n+1, ev.Def.Dataset)
	if ev.Def.Inputs != nil {
		v, d := ev.Def.Inputs.Value(&hcl.EvalContext{Variables: map[string]cty.Value{"row": row}, Functions: ev.Functions})
		if d.HasErrors() {
			return nil, d
		}
		if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
			return nil, lang.Error(ev.Def.Inputs.Range(), "Invalid inputs", "The inputs of eval %q are not an object for %s.", ev.Def.Name, src)
		}
		for k, iv := range v.AsValueMap() {
			given[k] = compiler.InputValue{Value: iv, Source: src}
		}
	}
	inputs, diags := prog.ResolveInputs(given)
	for k, v := range inputs {
		if in := prog.InputsByName[k]; in != nil && in.Sensitive {
			inputs[k] = v.Mark(lang.Sensitive)
		}
	}
	return inputs, diags
}

// plain is what a case records of values: a sensitive value is
// "(sensitive)", never itself.
func plain(m map[string]cty.Value) map[string]cty.Value {
	out := make(map[string]cty.Value, len(m))
	for k, v := range m {
		if v.ContainsMarked() {
			out[k] = cty.StringVal("(sensitive)")
			continue
		}
		out[k] = v
	}
	return out
}

func addUsage(c *result.Case, u *blocks.Usage) {
	c.Tokens += int64(u.TotalTokens)
	if u.CostUSD != nil {
		c.CostUSD += *u.CostUSD
	}
}
