package blocktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Status is how the test of one example ended.
type Status string

// The statuses of a Result.
const (
	StatusPassed  Status = "passed"
	StatusFailed  Status = "failed"
	StatusSkipped Status = "skipped"
)

// DefaultTimeout bounds one example of a block that has no timeout of its
// own.
const DefaultTimeout = 10 * time.Second

// Result is the outcome of one example.
type Result struct {
	Block   string // block name
	Example int    // 1-based index of the example in the block
	Status  Status
	// Error says why the example failed (the block's error, an output of
	// the wrong shape with its path, outputs that differ) or why it was
	// skipped.
	Error string
	// Diff shows, for outputs that differ, each differing field with its
	// path: a line "- PATH = VALUE" for what the example expects and
	// "+ PATH = VALUE" for what the block returned.
	Diff string
	// Expected holds the output fields the example gives, converted to
	// their types; Actual every output the block returned, converted to
	// its type, or cty.NilVal when the block failed or returned outputs
	// that do not convert.
	Expected cty.Value
	Actual   cty.Value
	Duration time.Duration
	Range    hcl.Range // the example block's header
}

// Options configure Run.
type Options struct {
	// Dir is the directory of the file that defines the block (Call.Dir).
	Dir string
	// Timeout bounds each example of a block without a timeout of its
	// own; DefaultTimeout when zero.
	Timeout time.Duration
	// Log, when set, receives the lines the block prints (console.log,
	// print).
	Log func(block, line string)
	// LLM runs the examples of llm blocks too. By default they are
	// skipped: a model's reply is not deterministic and needs a provider.
	LLM bool
}

// skipLLM is the reason llm examples are skipped.
const skipLLM = "the examples of llm blocks are not run: a model's reply is not deterministic and needs a provider"

// abandonAfter is how long Run waits, after an example's timeout, for an
// executor that does not return. It then reports the example as failed
// and goes on; the executor's goroutine is left behind.
var abandonAfter = 2 * time.Second

// Run runs every example of a user block with the executors and returns
// one Result per example, in order. Built-in blocks have no examples.
func Run(ctx context.Context, b *blocks.Block, ex *blocks.Executors, opts Options) []Result {
	if b == nil || b.Def == nil {
		return nil
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	results := make([]Result, 0, len(b.Def.Examples))
	for i, e := range b.Def.Examples {
		results = append(results, runExample(ctx, b, ex, opts, i+1, e))
	}
	return results
}

// runExample runs one example: it checks the example's outputs, converts
// its inputs, calls the block and compares.
func runExample(ctx context.Context, b *blocks.Block, ex *blocks.Executors, opts Options, n int, e *lang.Example) Result {
	start := time.Now()
	r := Result{Block: b.Name, Example: n, Expected: cty.NilVal, Actual: cty.NilVal}
	end := func(status Status, msg string) Result {
		r.Status, r.Error, r.Duration = status, msg, time.Since(start)
		return r
	}
	if e == nil {
		return end(StatusFailed, "the example is empty")
	}
	r.Range = e.DeclRange

	expected, order, err := expectedOutputs(b, e.Output)
	r.Expected = expected
	switch {
	case err != nil:
		return end(StatusFailed, err.Error())
	case b.Runtime == lang.RuntimeLLM && !opts.LLM:
		return end(StatusSkipped, skipLLM)
	case ctx.Err() != nil:
		return end(StatusSkipped, "the tests were cancelled")
	}
	inputs, err := callInputs(b, e.Input)
	if err != nil {
		return end(StatusFailed, err.Error())
	}
	if ex == nil {
		return end(StatusFailed, fmt.Sprintf("block %q has runtime %q, and no executors were given", b.Name, b.Runtime))
	}
	exec, err := ex.For(b)
	if err != nil {
		return end(StatusFailed, err.Error())
	}
	timeout := opts.Timeout
	if b.Def.Timeout != nil && b.Def.Timeout.Duration > 0 {
		timeout = b.Def.Timeout.Duration
	}
	call := &blocks.Call{
		Block: b, Inputs: inputs, Outputs: b.Outputs, Dir: opts.Dir,
		Step: fmt.Sprintf("%s example %d", b.Name, n),
	}
	var abandoned atomic.Bool
	if opts.Log != nil {
		call.Log = func(line string) {
			if !abandoned.Load() {
				opts.Log(b.Name, line)
			}
		}
	}
	res, err := execute(ctx, exec, call, timeout, &abandoned)
	if err != nil {
		return end(StatusFailed, err.Error())
	}
	actual, err := actualOutputs(b, res)
	if err != nil {
		return end(StatusFailed, err.Error())
	}
	r.Actual = actual
	var differing []string
	var diff strings.Builder
	for _, name := range order {
		want, got := expected.GetAttr(name), actual.GetAttr(name)
		if equalValues(want, got) {
			continue
		}
		differing = append(differing, name)
		writeDiff(&diff, name, want, got)
	}
	if len(differing) > 0 {
		r.Diff = diff.String()
		return end(StatusFailed, differMessage(differing))
	}
	return end(StatusPassed, "")
}

// execute calls the executor with the example's timeout. An executor that
// panics fails the example with the panic's value; one that outlives its
// timeout by abandonAfter is left behind, its log silenced. An error that
// comes back when the deadline has passed is the timeout, said as the
// runtime says it ("exceeded its 1s timeout"); the sandbox's workers stop
// code only after the caller's deadline, so it has always passed by then.
// An executor that waits for capacity (blocks.Queued: the sandbox's
// workers, which build a compiled block first) starts the timeout itself
// when the block starts, as it does under apply: a first build is not the
// example's time.
func execute(ctx context.Context, exec blocks.Executor, call *blocks.Call, timeout time.Duration, abandoned *atomic.Bool) (*blocks.Result, error) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	_, queued := exec.(blocks.Queued)
	if queued {
		call.Timeout = timeout
		actx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	type outcome struct {
		res *blocks.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("the %s executor panicked: %v", call.Block.Runtime, p)}
			}
		}()
		res, err := exec.Execute(actx, call)
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-actx.Done():
		t := time.NewTimer(abandonAfter)
		defer t.Stop()
		select {
		case o = <-done:
		case <-t.C:
			abandoned.Store(true)
			if ctx.Err() != nil {
				return nil, errors.New("the tests were cancelled, and the block did not stop")
			}
			return nil, fmt.Errorf("exceeded its %s timeout and did not stop", timeout)
		}
	}
	if o.err == nil {
		return o.res, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, errors.New("the tests were cancelled")
	case actx.Err() == context.DeadlineExceeded, queued && errors.Is(o.err, context.DeadlineExceeded):
		return nil, fmt.Errorf("exceeded its %s timeout", timeout)
	}
	return nil, o.err
}

// fieldValues returns the fields of an example's input or output object.
func fieldValues(v cty.Value, what string) (map[string]cty.Value, error) {
	bad := fmt.Errorf("the example's %s must be an object of field values", what)
	if v == cty.NilVal {
		return nil, bad
	}
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, bad
	}
	out := make(map[string]cty.Value, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		out[k.AsString()] = e
	}
	return out, nil
}

// unknownField reports a field the example gives that the block lacks.
func unknownField(b *blocks.Block, given map[string]cty.Value, fields []*lang.Field, what string) error {
	for _, name := range lang.SortedKeys(given) {
		if findField(fields, name) == nil {
			return fmt.Errorf("the example gives %s %q, which block %q does not have", what, name, b.Name)
		}
	}
	return nil
}

// callInputs converts the example's inputs to the block's input types,
// defaults applied, as the runtime converts a step's arguments.
func callInputs(b *blocks.Block, input cty.Value) (map[string]cty.Value, error) {
	given, err := fieldValues(input, "input")
	if err != nil {
		return nil, err
	}
	if err := unknownField(b, given, b.Inputs, "input"); err != nil {
		return nil, err
	}
	out := make(map[string]cty.Value, len(b.Inputs))
	for _, in := range b.Inputs {
		if in == nil {
			continue
		}
		v, ok := given[in.Name]
		if !ok {
			if in.Required() {
				return nil, fmt.Errorf("the example gives no value for the required input %q", in.Name)
			}
			if !in.Default.IsWhollyKnown() {
				return nil, fmt.Errorf("the default of input %q is not a known value", in.Name)
			}
			out[in.Name] = in.Default
			continue
		}
		if !v.IsWhollyKnown() {
			return nil, fmt.Errorf("the example's input %q is not a known value", in.Name)
		}
		if in.Type.Defaults != nil && !v.IsNull() {
			v = in.Type.Defaults.Apply(v)
		}
		cv, err := convert.Convert(v, in.Type.Type)
		if err != nil {
			return nil, fmt.Errorf("the example's input %q must be %s: %s", in.Name, lang.FriendlyTypeName(in.Type.Type), lang.FormatConvertError(err))
		}
		if cv.IsNull() && in.Required() {
			return nil, fmt.Errorf("the example's input %q is required and may not be null", in.Name)
		}
		if err := b.CheckInput(in.Name, cv); err != nil {
			return nil, fmt.Errorf("the example's input %q: %s", in.Name, err)
		}
		out[in.Name] = cv
	}
	return out, nil
}

// expectedOutputs converts the output fields the example gives to their
// types. It returns them as an object and their names in the block's order.
// When they do not convert, the value is the example's own.
func expectedOutputs(b *blocks.Block, output cty.Value) (cty.Value, []string, error) {
	given, err := fieldValues(output, "output")
	if err != nil {
		return cty.NilVal, nil, err
	}
	raw := cty.ObjectVal(given)
	if err := unknownField(b, given, b.Outputs, "output"); err != nil {
		return raw, nil, err
	}
	attrs := make(map[string]cty.Value, len(given))
	var order []string
	for _, f := range b.Outputs {
		if f == nil {
			continue
		}
		v, ok := given[f.Name]
		if !ok {
			continue
		}
		if !v.IsWhollyKnown() {
			return raw, nil, fmt.Errorf("the example's output %q is not a known value", f.Name)
		}
		cv, err := convert.Convert(v, f.Type.Type)
		if err != nil {
			return raw, nil, fmt.Errorf("the example's output %q must be %s: %s", f.Name, lang.FriendlyTypeName(f.Type.Type), lang.FormatConvertError(err))
		}
		if b.CheckNull(f, cv) != nil {
			return raw, nil, fmt.Errorf("the example's output %q is null, and the output is not optional (declare it with optional = true when the block may return no value)", f.Name)
		}
		attrs[f.Name] = cv
		order = append(order, f.Name)
	}
	return cty.ObjectVal(attrs), order, nil
}

// actualOutputs converts what the block returned to its output types, as
// the runtime converts a step's result: every output must be there and
// convert.
func actualOutputs(b *blocks.Block, res *blocks.Result) (cty.Value, error) {
	if res == nil {
		return cty.NilVal, fmt.Errorf("block %q returned no result", b.Name)
	}
	attrs := make(map[string]cty.Value, len(b.Outputs))
	for _, f := range b.Outputs {
		if f == nil {
			continue
		}
		v, ok := res.Outputs[f.Name]
		if !ok || v == cty.NilVal {
			if f.Name != "usage" || res.Usage == nil {
				return cty.NilVal, fmt.Errorf("block %q returned no output %q", b.Name, f.Name)
			}
			v = cty.ObjectVal(map[string]cty.Value{
				"prompt_tokens":     cty.NumberIntVal(int64(res.Usage.PromptTokens)),
				"completion_tokens": cty.NumberIntVal(int64(res.Usage.CompletionTokens)),
				"total_tokens":      cty.NumberIntVal(int64(res.Usage.TotalTokens)),
			})
		}
		v, _ = v.UnmarkDeep()
		cv, err := convert.Convert(v, f.Type.Type)
		if err != nil {
			return cty.NilVal, fmt.Errorf("output %q of block %q must be %s: %s",
				f.Name, b.Name, lang.FriendlyTypeName(f.Type.Type), lang.FormatConvertError(err))
		}
		if !cv.IsWhollyKnown() {
			return cty.NilVal, fmt.Errorf("output %q of block %q is not a known value", f.Name, b.Name)
		}
		if err := b.CheckNull(f, cv); err != nil {
			return cty.NilVal, err
		}
		attrs[f.Name] = cv
	}
	return cty.ObjectVal(attrs), nil
}

func findField(fields []*lang.Field, name string) *lang.Field {
	for _, f := range fields {
		if f != nil && f.Name == name {
			return f
		}
	}
	return nil
}

// differMessage names the outputs that differ from the example's.
func differMessage(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return "output " + q[0] + " differs from the example"
	}
	return "outputs " + strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1] + " differ from the example"
}
