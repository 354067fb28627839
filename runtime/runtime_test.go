package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/gocty"
)

// compile compiles a flow from source in a temporary directory.
func compile(t *testing.T, src string) *compiler.Program {
	t.Helper()
	return compileFiles(t, "test.flow.hcl", src, nil)
}

// compileFiles writes a flow file named name and the given other files to
// a temporary directory and compiles the flow.
func compileFiles(t *testing.T, name, src string, files map[string]string) *compiler.Program {
	t.Helper()
	dir := t.TempDir()
	for f, content := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := compiler.Compile(path, compiler.Options{})
	if diags.HasErrors() {
		t.Fatalf("compile: %s", diags.Error())
	}
	return prog
}

// recorder collects a run's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) observe(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// finished returns the StepFinished events by label.
func (r *recorder) finished() map[string]StepFinished {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]StepFinished{}
	for _, e := range r.events {
		if f, ok := e.(StepFinished); ok {
			out[Label(f.Step, f.Instance)] = f
		}
	}
	return out
}

// fakeJS runs "js" blocks with Go functions chosen by block name.
type fakeJS map[string]func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error)

func (f fakeJS) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	fn := f[call.Block.Name]
	if fn == nil {
		return nil, fmt.Errorf("no fake for %s", call.Block.Name)
	}
	out, err := fn(ctx, call.Inputs)
	if err != nil {
		return nil, err
	}
	return &blocks.Result{Outputs: out}, nil
}

func apply(t *testing.T, prog *compiler.Program, opts Options) (*Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.Observe = rec.observe
	if opts.Inputs == nil {
		in, diags := prog.ResolveInputs(nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		opts.Inputs = in
	}
	res, err := Apply(context.Background(), prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, rec
}

func outputJSON(t *testing.T, v cty.Value) string {
	t.Helper()
	b, err := json.Marshal(PlainJSON(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValuesForEachAndOutputs(t *testing.T) {
	prog := compile(t, `
flow "fan" {}

input "names" {
  type    = list(string)
  default = ["ada", "grace"]
}

step "greet" {
  use      = "value"
  for_each = input.names
  value    = "hi ${each.value} #${each.key}"
}

step "by_key" {
  use      = "value"
  for_each = { a = 1, b = 2 }
  value    = each.value * 10
}

step "count" {
  use   = "value"
  value = length(step.greet)
}

step "off" {
  use   = "value"
  when  = false
  value = 1
}

step "after_off" {
  use   = "value"
  value = coalesce(step.off.value, 42)
}

output "all" {
  value = step.greet[*].value
}

output "one" {
  value = step.greet[1].value
}

output "b" {
  value = step.by_key["b"].value
}

output "keys" {
  value = keys(step.by_key)
}

output "count" {
  value = step.count.value
}

output "after_off" {
  value = step.after_off.value
}
`)
	res, rec := apply(t, prog, Options{})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	want := map[string]string{
		"all":       `["hi ada #0","hi grace #1"]`,
		"one":       `"hi grace #1"`,
		"b":         `20`,
		"keys":      `["a","b"]`,
		"count":     `2`,
		"after_off": `42`,
	}
	for name, w := range want {
		if got := outputJSON(t, res.Outputs[name]); got != w {
			t.Errorf("output %s = %s, want %s", name, got, w)
		}
	}
	f := rec.finished()
	if f["off"].Status != StatusSkipped || f["after_off"].Status != StatusOK {
		t.Errorf("off: %s, after_off: %s", f["off"].Status, f["after_off"].Status)
	}
	if f[`greet[1]`].Status != StatusOK || f[`by_key["a"]`].Status != StatusOK {
		t.Errorf("instances: %v", f)
	}
}

// TestEager checks that a step starts as soon as its own dependencies are
// done: c (after the fast b) finishes while the slow a is still running,
// which stage-by-stage scheduling would not allow.
func TestEager(t *testing.T) {
	prog := compile(t, `
flow "eager" {}

block "gate" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "name" {
    type = string
  }
  output "name" {
    type = string
  }
}

step "a" {
  use  = "gate"
  name = "a"
}

step "b" {
  use  = "gate"
  name = "b"
}

step "c" {
  use  = "gate"
  name = "${step.b.name}c"
}

step "d" {
  use  = "gate"
  name = "${step.a.name}${step.c.name}"
}
`)
	release := make(chan struct{})
	cDone := make(chan struct{})
	fake := fakeJS{"gate": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		name := in["name"].AsString()
		switch name {
		case "a":
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case "bc":
			close(cDone)
		}
		return map[string]cty.Value{"name": cty.StringVal(name)}, nil
	}}
	go func() {
		select {
		case <-cDone:
		case <-time.After(10 * time.Second):
		}
		close(release)
	}()
	res, _ := apply(t, prog, Options{Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": fake}}})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	select {
	case <-cDone:
	default:
		t.Fatal("c never ran")
	}
}

func TestFailurePropagation(t *testing.T) {
	prog := compile(t, `
flow "fail" {}

block "boom" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "n" {
    type = number
  }
  output "n" {
    type = number
  }
}

step "bad" {
  use = "boom"
  n   = 1
}

step "child" {
  use   = "value"
  value = step.bad.n
}

step "grandchild" {
  use   = "value"
  value = step.child.value
}

step "independent" {
  use   = "value"
  value = "fine"
}

step "tolerant" {
  use      = "boom"
  n        = 2
  on_error = "continue"
}

step "after_tolerant" {
  use   = "value"
  value = step.tolerant.n == null ? "null" : "set"
}

output "after_tolerant" {
  value = step.after_tolerant.value
}
`)
	fake := fakeJS{"boom": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return nil, errors.New("it broke")
	}}
	res, rec := apply(t, prog, Options{Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": fake}}})
	if res.Status != StatusFailed {
		t.Fatalf("status %s, want failed", res.Status)
	}
	f := rec.finished()
	for label, want := range map[string]Status{
		"bad": StatusFailed, "child": StatusSkipped, "grandchild": StatusSkipped,
		"independent": StatusOK, "tolerant": StatusFailed, "after_tolerant": StatusOK,
	} {
		if f[label].Status != want {
			t.Errorf("%s: %s, want %s", label, f[label].Status, want)
		}
	}
	if !strings.Contains(f["child"].Reason, "upstream step bad failed") {
		t.Errorf("child's reason: %q", f["child"].Reason)
	}
	if !strings.Contains(f["bad"].Error, "it broke") {
		t.Errorf("bad's error: %q", f["bad"].Error)
	}
	// The failure is a diagnostic at the step's declaration.
	found := false
	for _, d := range res.Diagnostics {
		if d.Summary == "Step failed" && d.Subject != nil && d.Subject.Start.Line == 15 {
			found = true
		}
	}
	if !found {
		t.Errorf("no diagnostic at step bad: %v", res.Diagnostics)
	}
}

func TestRetryTimeoutAndCancel(t *testing.T) {
	prog := compile(t, `
flow "retry" {}

block "flaky" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "mode" {
    type = string
  }
  output "ok" {
    type = bool
  }
}

step "flaky" {
  use  = "flaky"
  mode = "flaky"
  retry {
    attempts = 3
    backoff  = "1ms"
  }
}

step "slow" {
  use     = "flaky"
  mode    = "slow"
  timeout = "50ms"
  retry {
    attempts = 2
    backoff  = "1ms"
  }
}
`)
	var calls atomic.Int32
	fake := fakeJS{"flaky": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		if in["mode"].AsString() == "slow" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		if calls.Add(1) < 3 {
			return nil, errors.New("try again")
		}
		return map[string]cty.Value{"ok": cty.True}, nil
	}}
	// The slow step waits for its context: it fails only if its timeouts
	// end its attempts.
	res, rec := apply(t, prog, Options{Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": fake}}})
	f := rec.finished()
	if f["flaky"].Status != StatusOK || f["flaky"].Attempts != 3 {
		t.Errorf("flaky: %s after %d attempts", f["flaky"].Status, f["flaky"].Attempts)
	}
	if f["slow"].Status != StatusFailed || f["slow"].Attempts != 2 || !strings.Contains(f["slow"].Error, "exceeded its 50ms timeout (after 2 attempts)") {
		t.Errorf("slow: %s, %d attempts, %q", f["slow"].Status, f["slow"].Attempts, f["slow"].Error)
	}
	if res.Status != StatusFailed {
		t.Errorf("run: %s", res.Status)
	}

	// Cancelling the run cancels the running step and keeps the finished.
	ctx, cancel := context.WithCancel(context.Background())
	rec = &recorder{}
	in, _ := prog.ResolveInputs(nil)
	go func() {
		for {
			if _, ok := rec.finished()["flaky"]; ok {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	calls.Store(2)
	prog2 := compile(t, strings.Replace(strings.Replace(string(mustRead(t, prog.Filename)), `timeout = "50ms"`, `timeout = "1h"`, 1), `attempts = 2`, `attempts = 1`, 1))
	res, err := Apply(ctx, prog2, Options{Inputs: in, Observe: rec.observe, Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": fake}}})
	if err != nil {
		t.Fatal(err)
	}
	f = rec.finished()
	if res.Status != StatusCancelled || f["slow"].Status != StatusCancelled || f["flaky"].Status != StatusOK {
		t.Errorf("after cancel: run %s, slow %s, flaky %s", res.Status, f["slow"].Status, f["flaky"].Status)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParallelismBounds(t *testing.T) {
	prog := compile(t, `
flow "bounded" {}

block "track" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "i" {
    type = number
  }
  output "i" {
    type = number
  }
}

step "wide" {
  use      = "track"
  for_each = range(12)
  i        = each.value
}

step "narrow" {
  use         = "track"
  for_each    = range(12)
  parallelism = 2
  i           = each.value + 100
}
`)
	var mu sync.Mutex
	running := map[bool]int{}
	peak := map[bool]int{}
	fake := fakeJS{"track": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		var i int
		gocty.FromCtyValue(in["i"], &i)
		narrow := i >= 100
		mu.Lock()
		running[narrow]++
		peak[narrow] = max(peak[narrow], running[narrow])
		total := running[true] + running[false]
		peak[false] = max(peak[false], 0)
		if total > peakTotal {
			peakTotal = total
		}
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		running[narrow]--
		mu.Unlock()
		return map[string]cty.Value{"i": in["i"]}, nil
	}}
	peakTotal = 0
	res, _ := apply(t, prog, Options{Parallelism: 4, Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": fake}}})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	if peakTotal > 4 {
		t.Errorf("%d instances ran at once; --parallelism is 4", peakTotal)
	}
	if peak[true] > 2 {
		t.Errorf("%d instances of narrow ran at once; its parallelism is 2", peak[true])
	}
}

var peakTotal int

// TestNoOverallCapByDefault: steps that wait do not hold places of a
// CPU-sized pool. Every instance of a wide for_each waits until all have
// started, which only happens when none is held back.
func TestNoOverallCapByDefault(t *testing.T) {
	const n = 200
	prog := compile(t, fmt.Sprintf(`
flow "wide" {}

block "meet" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
}

step "all" {
  use      = "meet"
  for_each = range(%d)
}
`, n))
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	fake := fakeJS{"meet": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		arrived.Done()
		select {
		case <-all:
			return map[string]cty.Value{}, nil
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("not every instance started within a minute")
		}
	}}
	res, _ := apply(t, prog, Options{Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": fake}}})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
}

// TestBoundedExecutorTakesInstancesInOrder: the instances of a step whose
// executor runs one call at a time start one after another, in order, and
// all of them run.
func TestBoundedExecutorTakesInstancesInOrder(t *testing.T) {
	prog := compile(t, `
flow "ordered" {}

block "note" {
  runtime = "js"
  input "i" { type = number }
  output "i" { type = number }
  source = "function execute(input) { return input }"
}

step "each" {
  use      = "note"
  for_each = range(50)
  i        = each.value
}

output "sum" {
  value = sum(step.each[*].i)
}
`)
	var mu sync.Mutex
	var order []int
	running := 0
	fake := fakeJS{"note": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		var i int
		if err := gocty.FromCtyValue(in["i"], &i); err != nil {
			return nil, err
		}
		mu.Lock()
		running++
		if running > 1 {
			mu.Unlock()
			return nil, fmt.Errorf("instance %d started while another ran", i)
		}
		order = append(order, i)
		mu.Unlock()
		mu.Lock()
		running--
		mu.Unlock()
		return map[string]cty.Value{"i": in["i"]}, nil
	}}
	res, _ := apply(t, prog, Options{Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": oneAtATime{fake}}}})
	if res.Status != StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
	}
	if got := res.Outputs["sum"]; !got.RawEquals(cty.NumberIntVal(49 * 50 / 2)) {
		t.Errorf("sum = %#v", got)
	}
	for k, i := range order {
		if i != k {
			t.Fatalf("instances ran in the order %v", order)
		}
	}
	if len(order) != 50 {
		t.Errorf("%d instances ran, want 50", len(order))
	}
}

// oneAtATime is an executor that says it runs one call at a time.
type oneAtATime struct{ blocks.Executor }

func (oneAtATime) Width(*blocks.Block) int { return 1 }

// replaceFunc is a Replacer of the steps of a run, not of the flows it
// starts.
type replaceFunc func(*compiler.Step) blocks.Executor

func (f replaceFunc) Executor(s *compiler.Step) blocks.Executor { return f(s) }
func (f replaceFunc) Flow(*compiler.Step, string) Replacer      { return nil }

// TestReplaceAndFinalErrors: Options.Replace gives a step an executor of
// its own, and an error that wraps blocks.ErrFinal is not retried.
func TestReplaceAndFinalErrors(t *testing.T) {
	prog := compile(t, `
flow "r" {}

block "echo" {
  runtime = "js"
  input "v" { type = number }
  output "v" { type = number }
  source = "function execute(input) { return input }"
}

step "a" {
  use = "echo"
  v   = 1
}

step "b" {
  use = "echo"
  v   = step.a.v + 1
  retry {
    attempts = 3
    backoff  = "1ms"
  }
}
`)
	calls := 0
	fake := fakeJS{"echo": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return map[string]cty.Value{"v": in["v"]}, nil
	}}
	res, rec := apply(t, prog, Options{
		Executors:  &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": fake}},
		StepValues: true,
		Replace: replaceFunc(func(s *compiler.Step) blocks.Executor {
			if s.Name != "b" {
				return nil
			}
			return blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
				calls++
				if !call.Inputs["v"].RawEquals(cty.NumberIntVal(2)) {
					return nil, fmt.Errorf("b was given %#v", call.Inputs["v"])
				}
				return nil, fmt.Errorf("refused: %w", blocks.ErrFinal)
			})
		}),
	})
	if res.Status != StatusFailed || calls != 1 {
		t.Fatalf("status %s after %d calls: %v", res.Status, calls, res.Diagnostics)
	}
	if f := rec.finished()["b"]; f.Attempts != 1 || !strings.Contains(f.Error, "refused") {
		t.Errorf("b: %+v", f)
	}
	if !res.Steps["a"].GetAttr("v").RawEquals(cty.NumberIntVal(1)) {
		t.Errorf("Steps[a] = %#v", res.Steps["a"])
	}
}

func TestMissingSecretRunsNothing(t *testing.T) {
	prog := compile(t, `
flow "secretive" {}

secret "token" {
  env = "FLOWCTL_TEST_NO_SUCH_VARIABLE"
}

step "use" {
  use   = "value"
  value = "Bearer ${secret.token}"
}
`)
	res, rec := apply(t, prog, Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if res.Status != StatusFailed || len(rec.events) != 0 {
		t.Fatalf("status %s with %d events", res.Status, len(rec.events))
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Summary != "Missing secret" || res.Diagnostics[0].Subject.Start.Line != 4 ||
		!strings.Contains(res.Diagnostics[0].Detail, "FLOWCTL_TEST_NO_SUCH_VARIABLE") {
		t.Fatalf("diagnostics: %v", res.Diagnostics)
	}
}

func TestRuntimeTypeErrorHasPath(t *testing.T) {
	prog := compile(t, `
flow "types" {}

input "raw" {
  type    = any
  default = { items = [{ url = "a" }, { name = "b" }] }
}

block "urls" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "items" {
    type = list(object({ url = string }))
  }
  output "n" {
    type = number
  }
}

step "parse" {
  use   = "urls"
  items = input.raw.items
}
`)
	res, rec := apply(t, prog, Options{Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": fakeJS{}}}})
	if res.Status != StatusFailed {
		t.Fatalf("status %s", res.Status)
	}
	got := rec.finished()["parse"].Error
	if !strings.Contains(got, `input "items" of block "urls"`) || !strings.Contains(got, `attribute "url" is required`) || !strings.Contains(got, "test.flow.hcl:22,11") {
		t.Errorf("error: %s", got)
	}
}

// TestForEachWidth: a for_each step runs at most as many instances at once
// as its executor's Width, and, when nothing bounds them,
// maxInstanceGoroutines; all of them run.
func TestForEachWidth(t *testing.T) {
	prog := compile(t, fanFlow(200))
	defer func(n int) { maxInstanceGoroutines = n }(maxInstanceGoroutines)
	maxInstanceGoroutines = 8
	for _, c := range []struct {
		bounded bool
		want    int
	}{{true, 1}, {false, 8}} {
		var mu sync.Mutex
		running, most, calls := 0, 0, 0
		var fake blocks.Executor = fakeJS{"echo": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
			mu.Lock()
			running++
			calls++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(100 * time.Microsecond)
			mu.Lock()
			running--
			mu.Unlock()
			return in, nil
		}}
		if c.bounded {
			fake = oneAtATime{fake}
		}
		res, _ := apply(t, prog, Options{Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": fake}}})
		if res.Status != StatusOK || !res.Outputs["n"].RawEquals(cty.NumberIntVal(200)) || calls != 200 {
			t.Fatalf("bounded %v: status %s, %d calls, outputs %#v: %v", c.bounded, res.Status, calls, res.Outputs, res.Diagnostics)
		}
		if most > c.want {
			t.Errorf("bounded %v: %d instances ran at once, want at most %d", c.bounded, most, c.want)
		}
	}
}

// TestForEachWidens: a for_each step asks its executor's Width again as
// instances end, and runs more at once when it has grown (as the
// sandbox's does once it knows the block's calls are short).
func TestForEachWidens(t *testing.T) {
	prog := compile(t, fanFlow(100))
	var mu sync.Mutex
	running, calls := 0, 0
	four, gaveUp := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fake := fakeJS{"echo": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		mu.Lock()
		running++
		calls++
		after := calls > 5
		if running == 4 {
			select {
			case <-four:
			default:
				close(four)
			}
		}
		mu.Unlock()
		if after {
			// Once the width is 4, four instances run at once: each of
			// these waits until they have (far sooner than the minute
			// after which the first gives up, and the others with it).
			select {
			case <-four:
			case <-gaveUp:
			case <-time.After(time.Minute):
				once.Do(func() { close(gaveUp) })
			}
		}
		mu.Lock()
		running--
		mu.Unlock()
		return in, nil
	}}
	ex := &growing{Executor: fake, calls: &calls, mu: &mu}
	res, _ := apply(t, prog, Options{Executors: &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": ex}}})
	if res.Status != StatusOK || !res.Outputs["n"].RawEquals(cty.NumberIntVal(100)) {
		t.Fatalf("status %s, outputs %#v: %v", res.Status, res.Outputs, res.Diagnostics)
	}
	select {
	case <-four:
	default:
		t.Error("four instances never ran at once after the executor's width grew to 4")
	}
}

// growing is an executor whose width is 1 for its first five calls and 4
// after them.
type growing struct {
	blocks.Executor
	mu    *sync.Mutex
	calls *int
}

func (g *growing) Width(*blocks.Block) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if *g.calls < 5 {
		return 1
	}
	return 4
}

// fanFlow is a flow whose step fan calls the js block echo for each of n
// numbers.
func fanFlow(n int) string {
	return fmt.Sprintf(`
flow "w" {}

block "echo" {
  runtime = "js"
  input "i" { type = number }
  output "i" { type = number }
  source = "function execute(input) { return input }"
}

step "fan" {
  use      = "echo"
  for_each = range(%d)
  i        = each.value
}

output "n" {
  value = length(step.fan)
}
`, n)
}

// TestOfflineAtEveryDepth: an offline run calls no model and no network,
// in the flows its steps use and in the tool calls of a model, and a
// replaced step runs its replacement instead, in a sub-flow too (the
// Replacer the run gives the flow's run).
func TestOfflineAtEveryDepth(t *testing.T) {
	child := `flow "child" {}

step "get" {
  use = "http"
  url = "http://127.0.0.1:1/"
}

step "ask" {
  use    = "llm"
  prompt = "say"
}

output "body" {
  value = step.get.text
}
`
	prog := compileFiles(t, "parent.flow.hcl", `flow "parent" {}

step "sub" {
  use = "flow.child"
}

step "agent" {
  use    = "llm"
  prompt = "go"
  tools  = [flow.child, block.http]
}
`, map[string]string{"child.flow.hcl": child})
	var real atomic.Int32
	counting := blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		real.Add(1)
		return &blocks.Result{Outputs: map[string]cty.Value{"text": cty.StringVal("real")}}, nil
	})
	ex := &blocks.Executors{Builtins: map[string]blocks.Executor{"http": counting, "llm": counting}}
	var toolErrs []string
	// The agent's model is replaced by one that calls both its tools.
	agent := blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		for _, tc := range []struct{ name, args string }{{"child", "{}"}, {"http", `{"url": "http://127.0.0.1:1/"}`}} {
			if _, err := call.Tools.Call(ctx, tc.name, tc.name, tc.args); err != nil {
				toolErrs = append(toolErrs, err.Error())
			}
		}
		return &blocks.Result{Outputs: map[string]cty.Value{"text": cty.StringVal("done")}}, nil
	})
	res, rec := apply(t, prog, Options{Executors: ex, Offline: true, Replace: replaceFunc(func(s *compiler.Step) blocks.Executor {
		if s.Name == "agent" {
			return agent
		}
		return nil
	})})
	if real.Load() != 0 {
		t.Fatalf("%d real calls", real.Load())
	}
	if f := rec.finished()["sub"]; res.Status != StatusFailed || f.Status != StatusFailed ||
		!strings.Contains(f.Error, "block http calls the network, and the run is offline") {
		t.Fatalf("status %s; sub: %+v", res.Status, f)
	}
	if len(toolErrs) != 2 || !strings.Contains(toolErrs[0], "flow child") || !strings.Contains(toolErrs[1], "block http calls the network, and the run is offline") {
		t.Fatalf("tool calls: %q", toolErrs)
	}

	// The sub-flow's steps replaced through the Replacer: it runs, and
	// still nothing real is called.
	res, _ = apply(t, prog, Options{Executors: ex, Offline: true, Replace: treeReplacer{}})
	if real.Load() != 0 || res.Status != StatusOK {
		t.Fatalf("status %s with %d real calls: %v", res.Status, real.Load(), res.Diagnostics)
	}
}

// treeReplacer replaces every http and llm step, at every depth.
type treeReplacer struct{}

func (treeReplacer) Executor(s *compiler.Step) blocks.Executor {
	if s.Block.Name != "http" && s.Block.Name != "llm" {
		return nil
	}
	return blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		out := map[string]cty.Value{}
		for _, f := range call.Outputs {
			out[f.Name] = cty.NullVal(f.Type.Type)
		}
		out["text"] = cty.StringVal("replaced")
		return &blocks.Result{Outputs: out}, nil
	})
}

func (r treeReplacer) Flow(*compiler.Step, string) Replacer { return r }
