package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// cycle is what one cycle reported.
type cycle struct {
	fin      CycleFinished
	started  CycleStarted
	statuses map[string]runtime.Status // step label → status
}

// session runs a watch loop in the background and hands out its cycles.
type testSession struct {
	t      *testing.T
	dir    string
	cycles chan cycle
	cancel func()
	done   chan struct{}
}

func start(t testing.TB, dir string, opts Options) *testSession {
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testSession{dir: dir, cycles: make(chan cycle, 16), cancel: cancel, done: make(chan struct{})}
	if tt, ok := t.(*testing.T); ok {
		ts.t = tt
	}
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	var cur cycle
	opts.Store = st
	if opts.FlowFile == "" {
		opts.FlowFile = filepath.Join(dir, "w.flow.hcl")
	}
	opts.Observe = func(e any) {
		switch e := e.(type) {
		case CycleStarted:
			cur = cycle{started: e, statuses: map[string]runtime.Status{}}
		case runtime.StepFinished:
			cur.statuses[runtime.Label(e.Step, e.Instance)] = e.Status
		case CycleFinished:
			cur.fin = e
			ts.cycles <- cur
		}
	}
	go func() {
		defer close(ts.done)
		if err := Run(ctx, opts); err != nil {
			t.Error(err)
		}
		st.Close()
	}()
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testSession) stop() {
	ts.cancel()
	<-ts.done
}

func (ts *testSession) next(t testing.TB) cycle {
	t.Helper()
	select {
	case c := <-ts.cycles:
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("no cycle finished")
	}
	return cycle{}
}

// noCycle checks that nothing starts a cycle for a while.
func (ts *testSession) noCycle(t *testing.T) {
	t.Helper()
	select {
	case c := <-ts.cycles:
		t.Fatalf("unexpected cycle %d (changed %v)", c.fin.Cycle, c.started.Changed)
	case <-time.After(300 * time.Millisecond):
	}
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const flowV1 = `
flow "w" {}

step "a" {
  use   = "value"
  value = 1
}

step "b" {
  use   = "value"
  value = 10
}

step "sum" {
  use   = "value"
  value = step.a.value + step.b.value
}

step "notes" {
  use  = "file"
  path = "notes.txt"
}

output "sum" {
  value = step.sum.value
}

output "notes" {
  value = trimspace(step.notes.text)
}
`

func wantStatuses(t *testing.T, c cycle, want map[string]runtime.Status) {
	t.Helper()
	for label, st := range want {
		if c.statuses[label] != st {
			t.Errorf("cycle %d: %s is %s, want %s (all: %v)", c.fin.Cycle, label, c.statuses[label], st, c.statuses)
		}
	}
}

func TestWatchLoop(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "w.flow.hcl")
	write(t, flow, flowV1)
	write(t, filepath.Join(dir, "notes.txt"), "first\n")
	ts := start(t, dir, Options{})

	c := ts.next(t)
	if c.fin.Status != "ok" || c.fin.Ran != 4 || c.fin.Cycle != 1 {
		t.Fatalf("first cycle: %s, %d ran: %v", c.fin.Status, c.fin.Ran, c.fin.Diagnostics)
	}

	// An edit of a leaf re-runs that step and what depends on it only.
	write(t, flow, strings.Replace(flowV1, "value = 10", "value = 20", 1))
	c = ts.next(t)
	wantStatuses(t, c, map[string]runtime.Status{"a": runtime.StatusCached, "b": runtime.StatusOK, "sum": runtime.StatusOK, "notes": runtime.StatusCached})
	if got := c.fin.Outputs["sum"]; !got.RawEquals(cty.NumberIntVal(21)) || strings.Join(c.fin.ChangedOutputs, ",") != "sum" {
		t.Errorf("outputs: sum = %#v, changed %v", got, c.fin.ChangedOutputs)
	}
	if len(c.started.Changed) != 1 || filepath.Base(c.started.Changed[0]) != "w.flow.hcl" {
		t.Errorf("changed files: %v", c.started.Changed)
	}

	// A change to a file the file block reads re-runs that step.
	write(t, filepath.Join(dir, "notes.txt"), "second\n")
	c = ts.next(t)
	wantStatuses(t, c, map[string]runtime.Status{"notes": runtime.StatusOK, "sum": runtime.StatusCached})
	if got := c.fin.Outputs["notes"]; !got.RawEquals(cty.StringVal("second")) {
		t.Errorf("notes = %#v", got)
	}

	// A broken flow reports its diagnostics, keeps the last good outputs
	// and keeps watching.
	write(t, flow, strings.Replace(flowV1, "value = 1\n", "value = step.nope.value\n", 1))
	c = ts.next(t)
	if c.fin.Status != "invalid" || len(c.fin.Diagnostics) == 0 || c.fin.Diagnostics[0].Summary != "Unknown step" {
		t.Fatalf("broken flow: %s %v", c.fin.Status, c.fin.Diagnostics)
	}
	if got := c.fin.Outputs["sum"]; !got.RawEquals(cty.NumberIntVal(21)) {
		t.Errorf("last good output sum = %#v", got)
	}

	// Fixing it resumes; a save by rename (write a temporary file, rename
	// it over the flow) is seen too.
	tmp := filepath.Join(dir, ".w.flow.hcl.swp")
	write(t, tmp, strings.Replace(flowV1, "value = 10", "value = 30", 1))
	if err := os.Rename(tmp, flow); err != nil {
		t.Fatal(err)
	}
	c = ts.next(t)
	if c.fin.Status != "ok" || !c.fin.Outputs["sum"].RawEquals(cty.NumberIntVal(31)) {
		t.Fatalf("after the fix: %s %v %#v", c.fin.Status, c.fin.Diagnostics, c.fin.Outputs["sum"])
	}
	wantStatuses(t, c, map[string]runtime.Status{"a": runtime.StatusCached, "b": runtime.StatusOK})

	// Files the flow does not depend on start nothing.
	write(t, filepath.Join(dir, "unrelated.txt"), "x")
	ts.noCycle(t)
}

// fakeJS runs js blocks by upper-casing their text input.
type fakeJS struct{}

func (fakeJS) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	return &blocks.Result{Outputs: map[string]cty.Value{"text": cty.StringVal(strings.ToUpper(call.Inputs["text"].AsString()))}}, nil
}

func TestWatchNewBlockFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "w.flow.hcl"), `
flow "w" {}

step "loud" {
  use  = "shout"
  text = "hi"
}

output "loud" {
  value = step.loud.text
}
`)
	ts := start(t, dir, Options{Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": fakeJS{}}}})
	c := ts.next(t)
	if c.fin.Status != "invalid" || c.fin.Diagnostics[0].Summary != "Unknown block" {
		t.Fatalf("without the block: %s %v", c.fin.Status, c.fin.Diagnostics)
	}
	// blocks/ does not exist yet: creating it with a block file in it is
	// picked up.
	write(t, filepath.Join(dir, "blocks", "shout.block.hcl"), `
block "shout" {
  runtime = "js"
  source  = "function execute(input) { return { text: input.text.toUpperCase() } }"
  input "text" {
    type = string
  }
  output "text" {
    type = string
  }
}
`)
	c = ts.next(t)
	for c.fin.Status == "invalid" { // the directory, then the file
		c = ts.next(t)
	}
	if c.fin.Status != "ok" || !c.fin.Outputs["loud"].RawEquals(cty.StringVal("HI")) {
		t.Fatalf("with the block: %s %v %#v", c.fin.Status, c.fin.Diagnostics, c.fin.Outputs)
	}
}

func TestWatchNoCache(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "w.flow.hcl")
	write(t, flow, flowV1)
	write(t, filepath.Join(dir, "notes.txt"), "n\n")
	ts := start(t, dir, Options{NoCache: true})
	ts.next(t)
	write(t, flow, strings.Replace(flowV1, "value = 10", "value = 11", 1))
	c := ts.next(t)
	if c.fin.Ran != 4 || c.fin.Cached != 0 {
		t.Fatalf("--no-cache: %d ran, %d cached", c.fin.Ran, c.fin.Cached)
	}
}

// BenchmarkEditToCycle measures the time from writing a one-step change in
// a 100-step flow to the end of the cycle it starts, debounce included.
func BenchmarkEditToCycle(b *testing.B) {
	dir := b.TempDir()
	flow := filepath.Join(dir, "w.flow.hcl")
	gen := func(leaf int) string {
		var sb strings.Builder
		sb.WriteString("flow \"w\" {}\n")
		for c := 0; c < 10; c++ {
			for i := 0; i < 10; i++ {
				val := fmt.Sprintf("%d", c*10+i)
				if i > 0 {
					val = fmt.Sprintf("step.c%d_%d.value + 1", c, i-1)
				}
				if c == 0 && i == 9 {
					// A value no other step has: the cache is by block and
					// inputs, so a value another step computed is reused.
					val = fmt.Sprintf("step.c0_8.value + %d", 1000000+leaf)
				}
				fmt.Fprintf(&sb, "\nstep \"c%d_%d\" {\n  use   = \"value\"\n  value = %s\n}\n", c, i, val)
			}
		}
		return sb.String()
	}
	write(b, flow, gen(0))
	ts := start(b, dir, Options{})
	ts.next(b)
	b.ResetTimer()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		write(b, flow, gen(i+1))
		c := ts.next(b)
		total += time.Since(t0)
		if c.fin.Status != "ok" || c.fin.Ran != 1 {
			b.Fatalf("cycle %d: %s, %d ran, %d cached, changed %v", c.fin.Cycle, c.fin.Status, c.fin.Ran, c.fin.Cached, c.started.Changed)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/edit")
}

// TestWatchRerunsWhatAChangeReaches: watch re-runs no more than the steps
// a change reaches (the cache keys each instance by its block's definition
// and its input values, as finely as a step's fingerprint or finer): a
// fix to an inline block re-runs its step and what depends on it, an
// edited output or a step nothing depends on re-runs nothing else.
func TestWatchRerunsWhatAChangeReaches(t *testing.T) {
	const src = `
flow "w" {}

block "shout" {
  runtime = "js"
  input "s" { type = string }
  output "s" { type = string }
  source = "function execute(input) { return { s: input.s + '%s' } }"
}

step "a" {
  use   = "value"
  value = "a"
}

step "shouted" {
  use      = "shout"
  for_each = ["x", "y"]
  s        = "${step.a.value}${each.value}"
}

step "joined" {
  use   = "value"
  value = join(",", step.shouted[*].s)
}

step "other" {
  use   = "value"
  value = 1
}

output "joined" {
  value = step.joined.value
}
`
	dir := t.TempDir()
	flow := filepath.Join(dir, "w.flow.hcl")
	write(t, flow, fmt.Sprintf(src, "!"))
	js := blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		src := call.Block.Def.Source
		suffix := src[strings.Index(src, "'")+1 : strings.LastIndex(src, "'")]
		return &blocks.Result{Outputs: map[string]cty.Value{"s": cty.StringVal(call.Inputs["s"].AsString() + suffix)}}, nil
	})
	ts := start(t, dir, Options{Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"js": js}}})
	c := ts.next(t)
	if c.fin.Status != "ok" || c.fin.Ran != 5 {
		t.Fatalf("first cycle: %s, %d ran: %v %v", c.fin.Status, c.fin.Ran, c.fin.Diagnostics, c.statuses)
	}
	for _, step := range []struct {
		what, src string
		ran       []string
	}{
		{"the block's code", fmt.Sprintf(src, "?"), []string{"joined", "shouted[0]", "shouted[1]"}},
		{"an output", strings.Replace(fmt.Sprintf(src, "?"), "value = step.joined.value", `value = "${step.joined.value}."`, 1), nil},
		{"a step nothing depends on", strings.Replace(fmt.Sprintf(src, "?"), "value = 1", "value = 2", 1), []string{"other"}},
	} {
		write(t, flow, step.src)
		c = ts.next(t)
		var ran []string
		for label, st := range c.statuses {
			if st == runtime.StatusOK {
				ran = append(ran, label)
			}
		}
		slices.Sort(ran)
		if c.fin.Status != "ok" || strings.Join(ran, " ") != strings.Join(step.ran, " ") {
			t.Errorf("after a change to %s: %s, ran %v, want %v", step.what, c.fin.Status, ran, step.ran)
		}
	}
}
