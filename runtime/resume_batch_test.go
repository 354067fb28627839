package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// batchFlow is a for_each over n items whose parse block, as written
// first, fails on item 2; norm goes on with the others (parse has
// on_error = "continue") and fails on the one parse did not give.
const batchFlow = `
flow "batch" {}

input "items" {
  type = list(number)
}

block "parse" {
  runtime = "js"
  input "x" { type = number }
  output "y" { type = number }
  source = "function execute(input) { %s return { y: input.x * %s } }"
}

block "norm" {
  runtime = "js"
  input "y" { type = number }
  output "z" { type = number }
  source = "function execute(input) { return { z: input.y + 1 } }"
}

step "parse" {
  use      = "parse"
  for_each = input.items
  x        = each.value
  on_error = "continue"
}

step "norm" {
  use      = "norm"
  for_each = step.parse
  y        = each.value.y
}

output "total" {
  value = sum(step.norm[*].z)
}
`

// batchExec runs the two blocks as their source says, counting the calls
// of each: parse multiplies by the factor its source names, and fails on
// item 2 when its source says "fails on 2"; norm adds one, and fails on
// a null.
type batchExec struct{ parse, norm atomic.Int64 }

func (b *batchExec) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	src := call.Block.Def.Source
	switch call.Block.Name {
	case "parse":
		b.parse.Add(1)
		x := call.Inputs["x"]
		if strings.Contains(src, "fails on 2") && x.Equals(cty.NumberIntVal(2)).True() {
			return nil, errors.New("cannot parse item 2")
		}
		f := src[strings.Index(src, "input.x * ")+len("input.x * ") : strings.Index(src, " }")]
		if f == "1.5" {
			return &blocks.Result{Outputs: map[string]cty.Value{"y": x.Multiply(cty.NumberFloatVal(1.5))}}, nil
		}
		return &blocks.Result{Outputs: map[string]cty.Value{"y": x.Multiply(cty.NumberIntVal(2))}}, nil
	case "norm":
		b.norm.Add(1)
		y := call.Inputs["y"]
		if y.IsNull() {
			return nil, errors.New("no y")
		}
		return &blocks.Result{Outputs: map[string]cty.Value{"z": y.Add(cty.NumberIntVal(1))}}, nil
	}
	return nil, fmt.Errorf("no block %s", call.Block.Name)
}

func batchProgram(t *testing.T, failing bool, factor string) *compiler.Program {
	t.Helper()
	fails := ""
	if failing {
		fails = "/* fails on 2 */"
	}
	return compileWith(t, fmt.Sprintf(batchFlow, fails, factor))
}

// batchItems are the inputs of a batch of n items: 0, 1, … n-1.
func batchItems(n int) map[string]cty.Value {
	items := make([]cty.Value, n)
	for i := range items {
		items[i] = cty.NumberIntVal(int64(i))
	}
	return map[string]cty.Value{"items": cty.ListVal(items)}
}

// resumedCounts counts a resumed run's step instances by step and whether
// they kept what they recorded.
func resumedCounts(rec *recorder) map[string]int {
	out := map[string]int{}
	for label, f := range rec.finished() {
		step := label[:strings.IndexByte(label+"[", '[')]
		if f.Resumed {
			out[step+" kept"]++
		} else {
			out[step+" "+string(f.Status)]++
		}
	}
	return out
}

// TestResumeBatchAfterFix (issue 50 #1): instances 0, 1, 3, … of a
// for_each step of 5,000 finished, instance 2 failed; with the block's
// code fixed, the run resumes. With the step's succeeded instances kept
// (KeepSucceeded), the block runs once, for the instance that failed, and
// the step after it once, for the one instance whose input changed; the
// others keep what they recorded. The kept results (of the code before the
// fix) are not put in the cache under the fixed code: a new run computes
// them with it.
func TestResumeBatchAfterFix(t *testing.T) {
	const n = 5000
	ex := &batchExec{}
	opts := func(st *state.Store) Options {
		return Options{Store: st, Inputs: batchItems(n), Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": ex}}}
	}
	st := openStore(t)
	broken := batchProgram(t, true, "2")
	res, _ := apply(t, broken, opts(st))
	if res.Status != StatusFailed || ex.parse.Load() != n || ex.norm.Load() != n-1 {
		t.Fatalf("first run: %s, %d parse calls, %d norm calls", res.Status, ex.parse.Load(), ex.norm.Load())
	}
	run, _ := st.Run(res.RunID)
	steps, _ := st.Steps(res.RunID)

	// The fix changes what parse computes, so that a result it recorded
	// before could not be taken for one of the fixed code.
	fixed := batchProgram(t, false, "1.5")
	if err := ResumeCheck(fixed, run, steps); err != nil {
		t.Fatalf("resuming after fixing parse's block: %v", err)
	}
	if got := ResumeChanged(fixed, run, steps); strings.Join(got, ",") != "norm,parse" {
		t.Errorf("changed: %v", got)
	}

	resumeOpts := opts(st)
	resumeOpts.RunID, resumeOpts.Resume, resumeOpts.KeepSucceeded = res.RunID, true, []string{"step.parse"}
	resumeOpts.Inputs = inputsOf(t, fixed, run)
	plan, diags := Plan(fixed, resumeOpts)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	parse := plan.Steps[fixed.StepsByName["parse"].Index]
	if parse.Action != compiler.ActionRun || parse.ToRun != 1 || parse.Kept != n-1 || parse.Instances != n ||
		fmt.Sprint(parse.Why) != "[{failed 1}]" || fmt.Sprint(parse.RunLabels) != "[parse[2]]" {
		t.Errorf("plan of parse: %s, %d of %d to run (%v %v), %d kept", parse.Action, parse.ToRun, parse.Instances, parse.Why, parse.RunLabels, parse.Kept)
	}

	ex.parse.Store(0)
	ex.norm.Store(0)
	res2, rec := apply(t, fixed, resumeOpts)
	if res2.Status != StatusOK {
		t.Fatalf("resumed: %s %v", res2.Status, res2.Diagnostics)
	}
	if p, m := ex.parse.Load(), ex.norm.Load(); p != 1 || m != 1 {
		t.Errorf("resumed: %d parse calls, %d norm calls; want 1 and 1", p, m)
	}
	got := resumedCounts(rec)
	if got["parse kept"] != n-1 || got["parse ok"] != 1 || got["norm kept"] != n-1 || got["norm ok"] != 1 {
		t.Errorf("resumed instances: %v", got)
	}
	// Items ×2 + 1, but item 2 ×1.5 + 1 (an odd number, which no other
	// item's norm had).
	want := 0
	for i := range n {
		want += 2*i + 1
	}
	want -= 1
	if outputJSON(t, res2.Outputs["total"]) != fmt.Sprint(want) {
		t.Errorf("total = %s, want %d", outputJSON(t, res2.Outputs["total"]), want)
	}

	// A new run of the fixed flow: only item 2's parse is in the cache
	// under the fixed code.
	ex.parse.Store(0)
	res3, _ := apply(t, fixed, opts(st))
	if res3.Status != StatusOK || ex.parse.Load() != n-1 {
		t.Errorf("new run: %s, %d parse calls; want %d", res3.Status, ex.parse.Load(), n-1)
	}
}

// TestResumeBatchChangedRunsAgain: without KeepSucceeded, the instances
// of the changed step that succeeded run again, with the fixed code; the
// step after it keeps the instances whose inputs came out the same (the
// same cache key), even without the cache.
func TestResumeBatchChangedRunsAgain(t *testing.T) {
	const n = 200
	ex := &batchExec{}
	st := openStore(t)
	opts := Options{Store: st, Inputs: batchItems(n), Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": ex}}}
	res, _ := apply(t, batchProgram(t, true, "2"), opts)
	if res.Status != StatusFailed {
		t.Fatalf("first run: %s", res.Status)
	}
	run, _ := st.Run(res.RunID)
	fixed := batchProgram(t, false, "2")
	ex.parse.Store(0)
	ex.norm.Store(0)
	opts.RunID, opts.Resume, opts.NoCache, opts.Inputs = res.RunID, true, true, inputsOf(t, fixed, run)

	plan, diags := Plan(fixed, opts)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	parse := plan.Steps[fixed.StepsByName["parse"].Index]
	if parse.ToRun != n || parse.Kept != 0 || fmt.Sprint(parse.Why) != fmt.Sprintf("[{failed 1} {changed %d}]", n-1) {
		t.Errorf("plan of parse: %d of %d to run (%v), %d kept", parse.ToRun, parse.Instances, parse.Why, parse.Kept)
	}

	res2, rec := apply(t, fixed, opts)
	if res2.Status != StatusOK {
		t.Fatalf("resumed: %s %v", res2.Status, res2.Diagnostics)
	}
	if p, m := ex.parse.Load(), ex.norm.Load(); p != n || m != 1 {
		t.Errorf("resumed: %d parse calls, %d norm calls; want %d and 1", p, m, n)
	}
	if got := resumedCounts(rec); got["norm kept"] != n-1 {
		t.Errorf("resumed instances: %v", got)
	}
}

// TestKeepSucceededChecked: KeepSucceeded names steps of the flow, in a
// resumption.
func TestKeepSucceededChecked(t *testing.T) {
	prog := batchProgram(t, false, "2")
	in := batchItems(3)
	_, diags := Plan(prog, Options{Inputs: in, Resume: true, RunID: "x", KeepSucceeded: []string{"step.pars"}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `--keep-succeeded step.pars names no step of flow "batch". Did you mean "parse"?`) {
		t.Errorf("unknown step: %v", diags)
	}
	_, diags = Plan(prog, Options{Inputs: in, KeepSucceeded: []string{"parse"}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "use it with --resume") {
		t.Errorf("without a resumption: %v", diags)
	}
}
