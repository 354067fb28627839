package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

const approvalFlow = `
flow "mailer" {}

input "n" {
  type    = number
  default = 3
}

block "draft" {
  runtime = "js"
  input "n" { type = number }
  output "emails" { type = list(string) }
  source = "function execute(input) { return input }"
}

block "send" {
  runtime = "js"
  input "emails" { type = list(string) }
  output "sent" { type = number }
  source = "function execute(input) { return input }"
}

step "draft" {
  use = "draft"
  n   = input.n
}

step "review" {
  use     = "approval"
  message = "Send ${length(step.draft.emails)} emails?"
  timeout = "48h"
}

step "send" {
  use    = "send"
  emails = step.draft.emails
  depends_on = [step.review]
}

step "audit" {
  use   = "value"
  value = "by ${step.review.by}: ${step.review.comment}"
}

step "independent" {
  use   = "value"
  value = step.draft.emails[0]
}

output "sent" {
  value = step.send.sent
}

output "first" {
  value = step.independent.value
}
`

// mailerExecutors count the calls of draft and send.
func mailerExecutors(drafts, sends *atomic.Int32) *blocks.Executors {
	return &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": fakeJS{
		"draft": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
			drafts.Add(1)
			n, _ := in["n"].AsBigFloat().Int64()
			var out []cty.Value
			for i := range n {
				out = append(out, cty.StringVal(fmt.Sprintf("mail %d", i)))
			}
			return map[string]cty.Value{"emails": cty.ListVal(out)}, nil
		},
		"send": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
			sends.Add(1)
			return map[string]cty.Value{"sent": cty.NumberIntVal(int64(in["emails"].LengthInt()))}, nil
		},
	}}}
}

func openStore(t *testing.T) *state.Store {
	t.Helper()
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestApprovalWaitsThenResumes: a run stops at an approval step with
// what does not depend on it done; the decision is recorded; resuming
// the run keeps the finished steps (draft is not called again) and runs
// the rest with the decision as the step's outputs.
func TestApprovalWaitsThenResumes(t *testing.T) {
	prog := compile(t, approvalFlow)
	st := openStore(t)
	var drafts, sends atomic.Int32
	ex := mailerExecutors(&drafts, &sends)
	res, rec := apply(t, prog, Options{Store: st, Executors: ex})
	if res.Status != StatusWaiting {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	if len(res.Waiting) != 1 || res.Waiting[0].Step != "review" || res.Waiting[0].Message != "Send 3 emails?" {
		t.Fatalf("waiting: %+v", res.Waiting)
	}
	if d := res.Waiting[0].Deadline.Sub(res.Waiting[0].Since); d != 48*time.Hour {
		t.Errorf("deadline %s after the request", d)
	}
	if got := outputJSON(t, res.Outputs["first"]); got != `"mail 0"` {
		t.Errorf("first = %s", got)
	}
	if _, ok := res.Outputs["sent"]; ok || len(res.FailedOutputs) != 1 || !strings.Contains(res.FailedOutputs[0].Reason, "waits for") {
		t.Errorf("failed outputs: %+v", res.FailedOutputs)
	}
	fin := rec.finished()
	if _, ran := fin["send"]; ran {
		t.Errorf("send finished while review waits: %+v", fin["send"])
	}
	if _, ran := fin["audit"]; ran {
		t.Errorf("audit finished while review waits")
	}
	var last Event
	for _, e := range rec.events {
		last = e
	}
	if w, ok := last.(RunWaiting); !ok || len(w.Waiting) != 1 {
		t.Errorf("last event: %#v", last)
	}
	run, err := st.Run(res.RunID)
	if err != nil || run.Status != "waiting" {
		t.Fatalf("run record: %+v, %v", run, err)
	}

	// Nobody decided: resuming waits again, running nothing.
	res2, _ := apply(t, prog, Options{Store: st, Executors: ex, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, prog, run)})
	if res2.Status != StatusWaiting || drafts.Load() != 1 || sends.Load() != 0 {
		t.Fatalf("resumed undecided: %s, drafts %d, sends %d", res2.Status, drafts.Load(), sends.Load())
	}

	if _, err := st.DecideApproval(res.RunID, "review", "", true, "looks good", "ana"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideApproval(res.RunID, "review", "", false, "", "bob"); !errors.Is(err, state.ErrNotWaiting) {
		t.Errorf("a second decision: %v", err)
	}
	res3, rec3 := apply(t, prog, Options{Store: st, Executors: ex, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, prog, run), StepValues: true})
	if res3.Status != StatusOK {
		t.Fatalf("resumed: %s: %v", res3.Status, res3.Diagnostics)
	}
	if drafts.Load() != 1 || sends.Load() != 1 {
		t.Errorf("drafts %d, sends %d; want 1, 1", drafts.Load(), sends.Load())
	}
	if got := outputJSON(t, res3.Outputs["sent"]); got != "3" {
		t.Errorf("sent = %s", got)
	}
	if got := outputJSON(t, res3.Steps["audit"].GetAttr("value")); got != `"by ana: looks good"` {
		t.Errorf("audit = %s", got)
	}
	if f := rec3.finished()["draft"]; !f.Resumed || f.Status != StatusOK {
		t.Errorf("draft on resume: %+v", f)
	}
	if f := rec3.finished()["review"]; f.Resumed || f.Status != StatusOK {
		t.Errorf("review on resume: %+v", f)
	}
	if s, ok := rec3.events[0].(RunStarted); !ok || !s.Resumed {
		t.Errorf("first event: %#v", rec3.events[0])
	}
	run, _ = st.Run(res.RunID)
	if run.Status != "ok" || !strings.Contains(string(run.Outputs), `"sent":3`) {
		t.Errorf("run record: %s %s", run.Status, run.Outputs)
	}
	// A run that finished ok cannot be resumed.
	if err := ResumeCheck(prog, run, nil); err == nil {
		t.Error("ResumeCheck of an ok run")
	}
	_, err = Apply(context.Background(), prog, Options{Store: st, Executors: ex, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, prog, run)})
	if !errors.Is(err, state.ErrNotResumable) {
		t.Errorf("resuming an ok run: %v", err)
	}
}

func inputsOf(t *testing.T, prog *compiler.Program, run *state.Run) map[string]cty.Value {
	t.Helper()
	in, diags := ResumeInputs(prog, run, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return in
}

// TestApprovalRejectedAndAsked: a rejection fails the step with who and
// why, not retried, its dependents skipped; Ask answers inline; a
// deadline that passed fails the step.
func TestApprovalRejectedAndAsked(t *testing.T) {
	prog := compile(t, approvalFlow)
	st := openStore(t)
	var drafts, sends atomic.Int32
	ex := mailerExecutors(&drafts, &sends)

	asked := 0
	res, rec := apply(t, prog, Options{Store: st, Executors: ex, Ask: func(ctx context.Context, req ApprovalRequest) (Decision, error) {
		asked++
		if req.Message != "Send 3 emails?" || req.Step != "review" {
			t.Errorf("request: %+v", req)
		}
		return Decision{Approved: false, Comment: "too many", By: "ana"}, nil
	}})
	if res.Status != StatusFailed || asked != 1 || sends.Load() != 0 {
		t.Fatalf("status %s, asked %d, sends %d", res.Status, asked, sends.Load())
	}
	if f := rec.finished()["review"]; f.Status != StatusFailed || f.Error != "rejected by ana: too many" {
		t.Errorf("review: %+v", f)
	}
	if f := rec.finished()["send"]; f.Status != StatusSkipped {
		t.Errorf("send: %+v", f)
	}
	if !strings.Contains(res.Diagnostics.Error(), "rejected by ana: too many") {
		t.Errorf("diagnostics: %v", res.Diagnostics)
	}

	// Resuming the failed run asks again.
	run, _ := st.Run(res.RunID)
	res2, _ := apply(t, prog, Options{Store: st, Executors: ex, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, prog, run),
		Ask: func(ctx context.Context, req ApprovalRequest) (Decision, error) {
			return Decision{Approved: true, By: "ana"}, nil
		}})
	if res2.Status != StatusOK || drafts.Load() != 1 || sends.Load() != 1 {
		t.Fatalf("resumed: %s, drafts %d, sends %d: %v", res2.Status, drafts.Load(), sends.Load(), res2.Diagnostics)
	}

	// ErrNoAnswer lets the step wait.
	res3, _ := apply(t, prog, Options{Store: st, Executors: ex, Ask: func(context.Context, ApprovalRequest) (Decision, error) {
		return Decision{}, ErrNoAnswer
	}})
	if res3.Status != StatusWaiting {
		t.Fatalf("no answer: %s", res3.Status)
	}
}

func TestApprovalDeadline(t *testing.T) {
	prog := compile(t, approvalFlow)
	st := openStore(t)
	var drafts, sends atomic.Int32
	ex := mailerExecutors(&drafts, &sends)
	res, _ := apply(t, prog, Options{Store: st, Executors: ex})
	if res.Status != StatusWaiting {
		t.Fatalf("status %s", res.Status)
	}
	// The request as if made two days ago: its deadline has passed.
	past := time.Now().Add(-49 * time.Hour)
	if err := st.RequestApproval(&state.Approval{RunID: res.RunID, Step: "review", Message: "Send 3 emails?", RequestedAt: past, Deadline: past.Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideApproval(res.RunID, "review", "", true, "", "late"); !errors.Is(err, state.ErrNotWaiting) {
		t.Errorf("deciding after the deadline: %v", err)
	}
	run, _ := st.Run(res.RunID)
	res2, rec := apply(t, prog, Options{Store: st, Executors: ex, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, prog, run)})
	if res2.Status != StatusFailed || !strings.Contains(rec.finished()["review"].Error, "nobody decided within its 48h0m0s timeout") {
		t.Fatalf("after the deadline: %s, %+v", res2.Status, rec.finished()["review"])
	}
}

// TestResumeAfterFailure: a failed run resumed keeps what finished ok and
// runs the failed step and what it blocked; a step downstream of one that
// ran again runs again too.
func TestResumeAfterFailure(t *testing.T) {
	prog := compile(t, `
flow "flaky" {}

block "count" {
  runtime = "js"
  input "x" { type = number }
  output "x" { type = number }
  source = "function execute(input) { return input }"
}

step "a" {
  use = "count"
  x   = 1
}

step "b" {
  use = "count"
  x   = step.a.x + 1
}

step "c" {
  use = "count"
  x   = step.b.x + 1
}

step "each" {
  use      = "count"
  for_each = [1, 2, 3]
  x        = each.value * 10
}

output "c" {
  value = step.c.x
}
`)
	st := openStore(t)
	calls := map[string]int{}
	failB := true
	ex := &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		calls[call.Step]++
		if call.Step == "b" && failB {
			return nil, errors.New("b is down")
		}
		if call.Step == `each[1]` && failB {
			return nil, errors.New("each[1] is down")
		}
		return &blocks.Result{Outputs: map[string]cty.Value{"x": call.Inputs["x"]}}, nil
	})}}
	res, _ := apply(t, prog, Options{Store: st, Executors: ex, Parallelism: 1})
	if res.Status != StatusFailed {
		t.Fatalf("first run: %s", res.Status)
	}
	failB = false
	run, _ := st.Run(res.RunID)
	res2, rec := apply(t, prog, Options{Store: st, Executors: ex, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, prog, run), Parallelism: 1})
	if res2.Status != StatusOK || outputJSON(t, res2.Outputs["c"]) != "3" {
		t.Fatalf("resumed: %s %v", res2.Status, res2.Diagnostics)
	}
	want := map[string]int{"a": 1, "b": 2, "c": 1, "each[0]": 1, "each[1]": 2, "each[2]": 1}
	for k, n := range want {
		if calls[k] != n {
			t.Errorf("%s called %d times, want %d (%v)", k, calls[k], n, calls)
		}
	}
	if !rec.finished()["a"].Resumed || rec.finished()["b"].Resumed || !rec.finished()[`each[2]`].Resumed {
		t.Errorf("resumed flags: %+v", rec.finished())
	}
	steps, _ := st.Steps(res.RunID)
	for _, s := range steps {
		if s.Status != "ok" {
			t.Errorf("recorded %s[%s]: %s", s.Step, s.Instance, s.Status)
		}
	}
}

// TestTargetsAndTimeout: with targets only they and what they depend on
// run, the outputs that need other steps have none, and nothing else is
// recorded; a run past its timeout fails, its running steps cancelled.
func TestTargetsAndTimeout(t *testing.T) {
	prog := compile(t, `
flow "parts" {
  timeout = "50ms"
}

step "a" {
  use   = "value"
  value = 1
}

step "b" {
  use   = "value"
  value = step.a.value + 1
}

step "c" {
  use   = "value"
  value = step.a.value + 10
}

step "slow" {
  use      = "sleep"
  duration = "1h"
}

output "b" {
  value = step.b.value
}

output "c" {
  value = step.c.value
}
`)
	st := openStore(t)
	// An hour instead of the flow's 50ms: a busy machine may take longer
	// than that for a and b.
	res, rec := apply(t, prog, Options{Store: st, Timeout: time.Hour, Targets: []string{"step.b"}})
	if res.Status != StatusOK || outputJSON(t, res.Outputs["b"]) != "2" {
		t.Fatalf("targeted: %s %v", res.Status, res.Diagnostics)
	}
	if _, ok := res.Outputs["c"]; ok || len(res.FailedOutputs) != 1 || res.FailedOutputs[0].Reason != `step "c" was not targeted` {
		t.Errorf("failed outputs: %+v", res.FailedOutputs)
	}
	fin := rec.finished()
	if len(fin) != 2 || fin["a"].Status != StatusOK || fin["b"].Status != StatusOK {
		t.Errorf("finished: %+v", fin)
	}
	steps, _ := st.Steps(res.RunID)
	if len(steps) != 2 {
		t.Errorf("recorded %d steps", len(steps))
	}
	res, _ = apply(t, prog, Options{Targets: []string{"step.bb"}})
	if res.RunID != "" || !strings.Contains(res.Diagnostics.Error(), `Did you mean "b"?`) {
		t.Errorf("unknown target: %v", res.Diagnostics)
	}

	res, rec = apply(t, prog, Options{Store: st})
	if res.Status != StatusFailed || !strings.Contains(res.Diagnostics.Error(), "Run timed out") ||
		!strings.Contains(res.Diagnostics.Error(), "within its 50ms timeout") || rec.finished()["slow"].Status != StatusCancelled {
		t.Errorf("timed out: %s %v %+v", res.Status, res.Diagnostics, rec.finished()["slow"])
	}
	if d := res.Diagnostics[0]; d.Subject == nil || d.Subject.Start.Line != 3 {
		t.Errorf("the timeout's diagnostic is not at the flow's timeout: %+v", d.Subject)
	}
	res, _ = apply(t, prog, Options{Store: st, Timeout: time.Hour, Targets: []string{"c"}})
	if res.Status != StatusOK {
		t.Errorf("--timeout instead of the flow's: %s %v", res.Status, res.Diagnostics)
	}
}

// TestResumeAfterAFix: a run that failed can be resumed after the failing
// step is fixed (the steps that finished keep their results), but not
// after a change to a step that finished.
func TestResumeAfterAFix(t *testing.T) {
	const flow = `
flow "fix" {}

step "a" {
  use   = "value"
  value = 1
}

step "b" {
  use  = "file"
  path = %s
}

step "c" {
  use   = "value"
  value = (tonumber(trimspace(step.b.text)) + step.a.value) * 10
}

output "c" {
  value = step.c.value
}
`
	st := openStore(t)
	broken := compileWith(t, fmt.Sprintf(flow, `"missing.txt"`))
	res, _ := apply(t, broken, Options{Store: st})
	if res.Status != StatusFailed {
		t.Fatalf("first run: %s", res.Status)
	}
	run, _ := st.Run(res.RunID)
	steps, _ := st.Steps(res.RunID)

	fixed := compileWith(t, fmt.Sprintf(flow, `"data.txt"`))
	if err := ResumeCheck(fixed, run, steps); err != nil {
		t.Fatalf("resuming after fixing b: %v", err)
	}
	changedA := compileWith(t, strings.Replace(fmt.Sprintf(flow, `"data.txt"`), "value = 1", "value = 5", 1))
	// A change to a step that finished is resumed too: the step runs
	// again (ResumeChanged names it).
	if err := ResumeCheck(changedA, run, steps); err != nil {
		t.Errorf("resuming after changing a: %v", err)
	}
	if got := ResumeChanged(changedA, run, steps); !slices.Equal(got, []string{"a"}) {
		t.Errorf("changed after changing a: %v", got)
	}
	if got := ResumeChanged(fixed, run, steps); len(got) != 0 {
		t.Errorf("changed after fixing b: %v", got)
	}
	// A step that finished and is gone from the flow cannot be resumed.
	noA := compileWith(t, strings.Replace(strings.Replace(fmt.Sprintf(flow, `"data.txt"`), `step "a"`, `step "a2"`, 1), "step.a.value", "step.a2.value", 1))
	if err := ResumeCheck(noA, run, steps); !errors.Is(err, ErrFlowChanged) || !strings.Contains(err.Error(), "finished step a, which the flow no longer has; restore it") {
		t.Errorf("resuming without a: %v", err)
	}
	res2, rec := apply(t, fixed, Options{Store: st, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, fixed, run)})
	if res2.Status != StatusOK || outputJSON(t, res2.Outputs["c"]) != "30" {
		t.Fatalf("resumed: %s %v", res2.Status, res2.Diagnostics)
	}
	if !rec.finished()["a"].Resumed || rec.finished()["b"].Resumed || rec.finished()["c"].Resumed {
		t.Errorf("kept: %+v", rec.finished())
	}
}

// compileWith compiles a flow in a directory of its own, under one name.
func compileWith(t *testing.T, src string) *compiler.Program {
	t.Helper()
	return compileFiles(t, "fix.flow.hcl", src, map[string]string{"data.txt": "2\n"})
}

// TestResumeAfterFixingABlock (issue 34 #4): fixing the code of a failed
// for_each step's block, defined in the flow file, leaves every step that
// finished as it was — the resumption keeps them and runs the fixed one —
// and so does editing an output or a step nothing finished depends on; a
// change to what a finished step refers to (a local) is refused, naming
// only the steps it reaches.
func TestResumeAfterFixingABlock(t *testing.T) {
	const flow = `
flow "fix" {}

locals {
  base = 10
  unused = "x"
}

block "double" {
  runtime = "js"
  input "x" { type = number }
  output "y" { type = number }
  source = "function execute(input) { return { y: input.x * %s } }"
}

step "first" {
  use   = "value"
  value = local.base
}

step "slow" {
  use   = "value"
  value = "unrelated"
}

step "double" {
  use      = "double"
  for_each = range(3)
  x        = step.first.value + each.value
}

step "last" {
  use   = "value"
  value = sum(step.double[*].y)
}

output "total" {
  value = step.last.value
}
`
	// The fake js executor runs the factor written in the block's source.
	exec := blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		src := call.Block.Def.Source
		factor := src[strings.Index(src, "input.x * ")+len("input.x * ") : strings.Index(src, " }")]
		if factor == "boom" {
			return nil, errors.New("boom is not defined")
		}
		f, _ := strconv.Atoi(factor)
		return &blocks.Result{Outputs: map[string]cty.Value{"y": call.Inputs["x"].Multiply(cty.NumberIntVal(int64(f)))}}, nil
	})
	opts := func(st *state.Store) Options {
		return Options{Store: st, Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": exec}}}
	}
	st := openStore(t)
	broken := compileWith(t, fmt.Sprintf(flow, "boom"))
	res, _ := apply(t, broken, opts(st))
	if res.Status != StatusFailed {
		t.Fatalf("first run: %s %v", res.Status, res.Diagnostics)
	}
	run, _ := st.Run(res.RunID)
	steps, _ := st.Steps(res.RunID)

	fixedSrc := fmt.Sprintf(flow, "2")
	for _, c := range []struct{ what, src string }{
		{"fixing the block", fixedSrc},
		{"and editing the output", strings.Replace(fixedSrc, "value = step.last.value", "value = step.last.value + 0", 1)},
		{"and editing an unused local", strings.Replace(fixedSrc, `unused = "x"`, `unused = "y"`, 1)},
		{"and editing the step after", strings.Replace(fixedSrc, "sum(step.double[*].y)", "sum(step.double[*].y) * 1", 1)},
	} {
		if err := ResumeCheck(compileWith(t, c.src), run, steps); err != nil {
			t.Errorf("resuming after %s: %v", c.what, err)
		}
	}
	// A change to what a finished step refers to (a local) reaches only
	// that step and those after it: they run again.
	changedLocal := compileWith(t, strings.Replace(fixedSrc, "base = 10", "base = 11", 1))
	if err := ResumeCheck(changedLocal, run, steps); err != nil {
		t.Errorf("resuming after changing the local first uses: %v", err)
	}
	if got := ResumeChanged(changedLocal, run, steps); !slices.Equal(got, []string{"first"}) {
		t.Errorf("changed after changing the local first uses: %v", got)
	}

	fixed := compileWith(t, fixedSrc)
	res2, rec := apply(t, fixed, func() Options {
		o := opts(st)
		o.RunID, o.Resume, o.Inputs = res.RunID, true, inputsOf(t, fixed, run)
		return o
	}())
	if res2.Status != StatusOK || outputJSON(t, res2.Outputs["total"]) != "66" {
		t.Fatalf("resumed: %s %v", res2.Status, res2.Diagnostics)
	}
	fin := rec.finished()
	if !fin["first"].Resumed || !fin["slow"].Resumed || fin["double[0]"].Resumed || fin["last"].Resumed {
		t.Errorf("kept: %+v", fin)
	}
}
