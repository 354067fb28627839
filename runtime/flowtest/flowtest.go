// Package flowtest runs the tests of flows (test blocks of *.test.hcl
// files, checked by compiler.CompileTest): each test applies its flow once
// with a state of its own and no cache, with the steps its mocks and
// overrides replace giving what they say, and then checks that exactly the
// expected steps failed and that every assert holds.
package flowtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/flowtest/result"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// Status is how a test ended (result.Status).
type Status = result.Status

// The statuses of a Result (result's).
const (
	StatusPassed  = result.StatusPassed
	StatusFailed  = result.StatusFailed
	StatusErrored = result.StatusErrored
)

// Result is the outcome of one test (result.Result).
type Result = result.Result

// Aggregate is the result of a test run several times: passed when every
// run passed, or when at least minRate of them did (minRate > 0); else
// failed, errored when no run got as far as failing. Its failures are
// those of the first run that did not pass, and its duration the runs'
// sum.
func Aggregate(runs []Result, minRate float64) Result {
	out := runs[0]
	out.Runs, out.Passes, out.Duration, out.Failures = len(runs), 0, 0, nil
	errored := 0
	for _, r := range runs {
		out.Duration += r.Duration
		switch r.Status {
		case StatusPassed:
			out.Passes++
		case StatusErrored:
			errored++
		}
		if r.Status != StatusPassed && out.Failures == nil {
			out.Failures = r.Failures
		}
	}
	rate := float64(out.Passes) / float64(out.Runs)
	switch {
	case out.Passes == out.Runs, minRate > 0 && rate >= minRate:
		out.Status = StatusPassed
	case errored == out.Runs:
		out.Status = StatusErrored
	default:
		out.Status = StatusFailed
	}
	return out
}

// Options configure Run.
type Options struct {
	// Executors run the steps no mock or override replaces.
	Executors *blocks.Executors
	// Live lets steps that call a model or the network run unmocked.
	Live bool
}

// Run runs one test.
func Run(ctx context.Context, t *compiler.Test, opts Options) Result {
	start := time.Now()
	res := Result{Test: t.Def.Name, Range: t.Def.NameRange}
	res.Status, res.Failures = run(ctx, t, opts)
	res.Duration = time.Since(start)
	return res
}

func run(ctx context.Context, t *compiler.Test, opts Options) (Status, hcl.Diagnostics) {
	if diags := unmocked(t, opts.Live); diags.HasErrors() {
		return StatusErrored, diags
	}
	dir, err := os.MkdirTemp("", "flowctl-test-")
	if err != nil {
		return StatusErrored, errorDiag(t.Def.NameRange, "No state for the test", err.Error())
	}
	defer os.RemoveAll(dir)
	st, err := state.Open(filepath.Join(dir, "state"))
	if err != nil {
		return StatusErrored, errorDiag(t.Def.NameRange, "No state for the test", err.Error())
	}
	defer st.Close()

	functions := lang.Functions(t.Program.Dir)
	var mu sync.Mutex
	failed := map[string]string{} // step → its first error
	res, err := runtime.Apply(ctx, t.Program, runtime.Options{
		Inputs: t.Inputs, Secrets: t.Secrets, Store: st, NoCache: true, Executors: opts.Executors, StepValues: true,
		Replace: &replacer{t: t, functions: functions},
		Offline: !opts.Live,
		Observe: func(e runtime.Event) {
			if f, ok := e.(runtime.StepFinished); ok && f.Status == runtime.StatusFailed {
				mu.Lock()
				if _, ok := failed[f.Step]; !ok {
					failed[f.Step] = f.Error
				}
				mu.Unlock()
			}
		},
	})
	if err != nil {
		return StatusErrored, errorDiag(t.Def.NameRange, "The test's run was not recorded", err.Error())
	}
	if res.RunID == "" {
		// The run did not start (a missing secret, say).
		return StatusErrored, res.Diagnostics
	}

	var diags hcl.Diagnostics
	expected := map[string]bool{}
	for _, s := range t.Expect {
		expected[s.Name] = true
		if _, ok := failed[s.Name]; !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Expected failure did not happen",
				Detail:  fmt.Sprintf("Test %q expects step %q to fail, and it did not.", t.Def.Name, s.Name),
				Subject: t.Def.ExpectRange.Ptr(),
			})
		}
	}
	for _, name := range lang.SortedKeys(failed) {
		if !expected[name] {
			s := t.Program.StepsByName[name]
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Step failed",
				Detail:  fmt.Sprintf("Step %q failed: %s. Test %q does not expect it to (expect_failures).", name, strings.TrimSuffix(failed[name], "."), t.Def.Name),
				Subject: s.DeclRange.Ptr(),
			})
		}
	}

	ctx2 := assertContext(t, res, failed, functions)
	status := StatusPassed
	if diags.HasErrors() {
		status = StatusFailed
	}
	for _, a := range t.Def.Asserts {
		v, d := a.Condition.Value(ctx2)
		if d.HasErrors() {
			diags = append(diags, d...)
			status = StatusErrored
			continue
		}
		ok, err := isTrue(v)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid assert condition", Detail: err.Error() + ".",
				Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx2,
			})
			status = StatusErrored
			continue
		}
		if ok {
			continue
		}
		msg := "the condition is false"
		if m, d := a.ErrorMessage.Value(ctx2); !d.HasErrors() {
			m, _ = m.UnmarkDeep()
			if m, err := convert.Convert(m, cty.String); err == nil && m.IsKnown() && !m.IsNull() {
				msg = m.AsString()
			}
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Test assertion failed", Detail: msg,
			Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx2,
		})
		if status == StatusPassed {
			status = StatusFailed
		}
	}
	return status, diags
}

// isTrue reads an assert's value.
func isTrue(v cty.Value) (bool, error) {
	v, _ = v.UnmarkDeep()
	b, err := convert.Convert(v, cty.Bool)
	switch {
	case err != nil:
		return false, fmt.Errorf("the condition must be true or false; it is %s", lang.FriendlyTypeName(v.Type()))
	case b.IsNull():
		return false, errors.New("the condition is null")
	case !b.IsKnown():
		return false, errors.New("the condition is not known")
	}
	return b.True(), nil
}

// assertContext is what asserts see: the flow's inputs, every step's
// value, the outputs (null for those the run could not evaluate), and the
// run's status and failed steps.
func assertContext(t *compiler.Test, res *runtime.Result, failed map[string]string, functions map[string]function.Function) *hcl.EvalContext {
	outputs := map[string]cty.Value{}
	for _, o := range t.Program.Outputs {
		v, ok := res.Outputs[o.Name]
		if !ok {
			v = cty.NullVal(cty.DynamicPseudoType)
		}
		outputs[o.Name] = v
	}
	// A tuple, so that run.failed_steps == ["a", "b"] holds.
	names := lang.SortedKeys(failed)
	vals := make([]cty.Value, len(names))
	for i, n := range names {
		vals[i] = cty.StringVal(n)
	}
	failedSteps := cty.TupleVal(vals)
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{
			"input":  structural(cty.ObjectVal(t.Inputs)),
			"step":   structural(cty.ObjectVal(res.Steps)),
			"output": structural(cty.ObjectVal(outputs)),
			"run": cty.ObjectVal(map[string]cty.Value{
				"status":       cty.StringVal(string(res.Status)),
				"failed_steps": failedSteps,
			}),
		},
		Functions: functions,
	}
}

// structural makes every list and set in v a tuple, and every map an
// object, so that an assert compares them with what it writes: in HCL a
// list never equals a tuple, and ["a", "b"] is a tuple.
func structural(v cty.Value) cty.Value {
	v, marks := v.Unmark()
	ty := v.Type()
	switch {
	case !v.IsKnown():
		if ty.IsListType() || ty.IsSetType() || ty.IsMapType() {
			v = cty.DynamicVal
		}
	case v.IsNull():
		if ty.IsListType() || ty.IsSetType() || ty.IsMapType() {
			v = cty.NullVal(cty.DynamicPseudoType)
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		var elems []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			elems = append(elems, structural(e))
		}
		v = cty.TupleVal(elems)
		if elems == nil {
			v = cty.EmptyTupleVal
		}
	case ty.IsMapType() || ty.IsObjectType():
		attrs := map[string]cty.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			attrs[k.AsString()] = structural(e)
		}
		v = cty.ObjectVal(attrs)
	}
	return v.WithMarks(marks)
}

// unmocked reports the steps of the tree of flows that would call a
// model or the network without a mock or override (unless live), and the
// approval steps without one: a test has nobody to ask. The steps of a
// flow whose step is replaced do not run, nor, unless live, those of tool
// flows. (The run is offline too: a step this missed would fail rather
// than call out.)
func unmocked(t *compiler.Test, live bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	// runs: no step on the way is replaced, and, unless live, none is a
	// tool flow's (only a model that runs calls one).
	runs := func(ts *compiler.TreeStep) bool {
		for ; ts != nil; ts = ts.Parent {
			if t.Replaced[ts.Path] != nil || !live && ts.Tool != "" {
				return false
			}
		}
		return true
	}
	for _, ts := range t.Tree {
		s := ts.Step
		if !runs(ts) {
			continue
		}
		what, fix := "", "or run the test with --live"
		switch reach := s.Block.Reaches(); {
		case s.Block.Builtin() && s.Block.Name == "approval":
			what, fix = "waits for a person's decision", "as a test has nobody to ask"
		case live || reach == "":
			continue
		case reach == blocks.RemoteModel:
			what = "calls a model"
		case reach == blocks.RemoteMCP:
			what = "calls a tool of an MCP server"
		default:
			what = "calls the network (" + s.Block.Name + ")"
		}
		step, how := fmt.Sprintf("Step %q", s.Name), fmt.Sprintf("mock %q { outputs = { ... } } or override \"step.%s\"", s.Block.Name, s.Name)
		if ts.Parent != nil {
			step = ts.Where()
			how = fmt.Sprintf("mock %q { outputs = { ... } }, which replaces it wherever it is used, or, for this step only, mock %q { step = %q ... } or override \"step.%s\"",
				s.Block.Name, s.Block.Name, ts.Path, ts.Path)
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Unmocked step",
			Detail:  fmt.Sprintf("%s %s: mock it (%s), %s.", step, what, how, fix),
			Subject: s.DeclRange.Ptr(),
		})
	}
	return diags
}

// replacer gives the steps a test's mocks and overrides replace their
// replacements, in the test's flow and in the flows it runs: it follows
// the path of the run (prefix) down the tree.
type replacer struct {
	t         *compiler.Test
	prefix    string // the path of the run's steps: "" or "summarize."
	functions map[string]function.Function
}

func (x *replacer) Executor(s *compiler.Step) blocks.Executor {
	if r := x.t.Replaced[x.prefix+s.Name]; r != nil {
		return &replacement{step: s, r: r, functions: x.functions}
	}
	return nil
}

func (x *replacer) Flow(s *compiler.Step, tool string) runtime.Replacer {
	prefix := x.prefix + s.Name + "."
	if tool != "" {
		prefix += tool + "."
	}
	return &replacer{t: x.t, prefix: prefix, functions: x.functions}
}

func errorDiag(rng hcl.Range, summary, detail string) hcl.Diagnostics {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail + ".", Subject: rng.Ptr()}}
}

// replacement runs a step that a mock or override replaces: it gives the
// outputs (evaluated with args, the step's arguments) or fails with the
// error, which is not retried.
type replacement struct {
	step      *compiler.Step
	r         *lang.Replacement
	functions map[string]function.Function
}

func (x *replacement) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	if x.r.HasError {
		return nil, fmt.Errorf("%s (%w by the test)", x.r.Error, errMocked)
	}
	args := map[string]cty.Value{}
	for k, v := range call.Inputs {
		args[k] = v
	}
	v, diags := x.r.Outputs.Value(&hcl.EvalContext{
		Variables: map[string]cty.Value{"args": cty.ObjectVal(args)},
		Functions: x.functions,
	})
	if diags.HasErrors() {
		return nil, fmt.Errorf("the test's outputs for step %q: %s", x.step.Name, lang.ErrorSentence(diags, true))
	}
	outs := map[string]cty.Value{}
	for _, f := range x.step.Outputs {
		if v.Type().IsObjectType() && v.Type().HasAttribute(f.Name) {
			outs[f.Name] = v.GetAttr(f.Name)
		} else {
			outs[f.Name] = cty.NullVal(f.Type.Type)
		}
	}
	return &blocks.Result{Outputs: outs}, nil
}

// errMocked marks a mocked failure: final, so not retried.
var errMocked = fmt.Errorf("mocked: %w", blocks.ErrFinal)
