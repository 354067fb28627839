package runtime

// Contract tests for the runtime, written from docs/design.md ("The language",
// "Blocks", "The runtime", "Commands") and docs/runtime.md. They use the built-in value, sleep and file
// blocks and fake js executors; nothing touches the network, and nothing
// asserts on wall-clock durations.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// ---------------------------------------------------------------------------
// Helpers

// ctCompile writes the flow (and any extra files next to it) into a fresh
// directory and compiles it.
func ctCompile(t *testing.T, src string, files map[string]string) *compiler.Program {
	t.Helper()
	return compileFiles(t, "contract.flow.hcl", src, files)
}

// ctInputs resolves the flow's inputs with the given values (the defaults
// for the others).
func ctInputs(t *testing.T, prog *compiler.Program, given map[string]cty.Value) map[string]cty.Value {
	t.Helper()
	in := map[string]compiler.InputValue{}
	for k, v := range given {
		in[k] = compiler.InputValue{Value: v, Source: "test"}
	}
	out, diags := prog.ResolveInputs(in)
	if diags.HasErrors() {
		t.Fatalf("inputs: %s", diags.Error())
	}
	return out
}

func ctStore(t *testing.T) (*state.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

type ctFn func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error)

// ctEnv provides executors that count their calls: "value" and "sleep"
// built-ins, and every js block (by block name, as "js:NAME").
type ctEnv struct {
	mu    sync.Mutex
	calls map[string]int
	js    map[string]ctFn
}

func newCtEnv(js map[string]ctFn) *ctEnv {
	return &ctEnv{calls: map[string]int{}, js: js}
}

func (e *ctEnv) count(k string) {
	e.mu.Lock()
	e.calls[k]++
	e.mu.Unlock()
}

// n returns the number of calls of k since the last reset.
func (e *ctEnv) n(k string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[k]
}

// total is the number of calls of every counted executor.
func (e *ctEnv) total() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, c := range e.calls {
		n += c
	}
	return n
}

func (e *ctEnv) reset() {
	e.mu.Lock()
	e.calls = map[string]int{}
	e.mu.Unlock()
}

type ctCounted struct {
	env   *ctEnv
	name  string
	inner blocks.Executor
}

func (c ctCounted) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	c.env.count(c.name)
	return c.inner.Execute(ctx, call)
}

type ctJSExec struct{ env *ctEnv }

func (j ctJSExec) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	j.env.count("js:" + call.Block.Name)
	fn := j.env.js[call.Block.Name]
	if fn == nil {
		return nil, fmt.Errorf("no fake for block %s", call.Block.Name)
	}
	out, err := fn(ctx, call.Inputs)
	if err != nil {
		return nil, err
	}
	return &blocks.Result{Outputs: out}, nil
}

func (e *ctEnv) executors() *blocks.Executors {
	builtins := map[string]blocks.Executor{}
	for name, ex := range blocks.BuiltinExecutors() {
		switch name {
		case "value", "sleep":
			builtins[name] = ctCounted{env: e, name: name, inner: ex}
		default:
			builtins[name] = ex
		}
	}
	return &blocks.Executors{Builtins: builtins, Runtimes: map[string]blocks.Executor{"js": ctJSExec{e}}}
}

// ctRec records events; onEvent, when set, is called after recording.
type ctRec struct {
	mu      sync.Mutex
	events  []Event
	onEvent func(Event)
}

func (r *ctRec) observe(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	f := r.onEvent
	r.mu.Unlock()
	if f != nil {
		f(e)
	}
}

// ctRun is a finished run with its events and stored state.
type ctRun struct {
	res      *Result
	events   []Event
	finished map[string]StepFinished // by Label
	started  map[string][]int        // attempts of StepStarted, by Label
	rows     map[string]*state.StepResult
	runRow   *state.Run
}

func ctRowKey(step, instance string) string { return step + "|" + instance }

// row returns the stored result of an instance ("" for a step without
// for_each).
func (r *ctRun) row(t *testing.T, step, instance string) *state.StepResult {
	t.Helper()
	row := r.rows[ctRowKey(step, instance)]
	if row == nil {
		t.Errorf("no stored step result for %s[%s]", step, instance)
		return &state.StepResult{}
	}
	return row
}

func (r *ctRun) status(label string) Status { return r.finished[label].Status }

// ctApply runs prog with opts (inputs resolved from defaults when nil, no
// environment secrets unless LookupEnv is set), checks that the events are
// well-formed and agree with the stored state, and returns the run.
func ctApply(t *testing.T, ctx context.Context, prog *compiler.Program, opts Options, rec *ctRec) *ctRun {
	t.Helper()
	if rec == nil {
		rec = &ctRec{}
	}
	if opts.Inputs == nil {
		opts.Inputs = ctInputs(t, prog, nil)
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = func(string) (string, bool) { return "", false }
	}
	opts.Observe = rec.observe
	res, err := Apply(ctx, prog, opts)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	rec.mu.Lock()
	events := append([]Event(nil), rec.events...)
	rec.mu.Unlock()
	run := &ctRun{res: res, events: events}
	ctCheckEvents(t, prog, run)
	if opts.Store != nil {
		ctCheckState(t, opts.Store, run)
	}
	return run
}

func ctStatusValid(s Status) bool {
	switch s {
	case StatusOK, StatusFailed, StatusSkipped, StatusCached, StatusCancelled:
		return true
	}
	return false
}

// ctCheckEvents checks that a run's events are well-formed (docs/design.md, "Commands";
// docs/runtime.md "Events").
func ctCheckEvents(t *testing.T, prog *compiler.Program, run *ctRun) {
	t.Helper()
	events := run.events
	run.finished = map[string]StepFinished{}
	run.started = map[string][]int{}
	if len(events) < 2 {
		t.Errorf("events: %d, want at least run_started and run_finished", len(events))
		return
	}
	rs, ok := events[0].(RunStarted)
	if !ok {
		t.Errorf("first event is %T, want RunStarted", events[0])
	} else {
		if rs.RunID != run.res.RunID {
			t.Errorf("run_started run id %q, result's %q", rs.RunID, run.res.RunID)
		}
		if rs.Flow != prog.Flow.Name {
			t.Errorf("run_started flow %q, want %q", rs.Flow, prog.Flow.Name)
		}
	}
	rf, ok := events[len(events)-1].(RunFinished)
	if !ok {
		t.Errorf("last event is %T, want RunFinished", events[len(events)-1])
	} else {
		if rf.RunID != run.res.RunID {
			t.Errorf("run_finished run id %q, result's %q", rf.RunID, run.res.RunID)
		}
		if rf.Status != run.res.Status {
			t.Errorf("run_finished status %s, result's %s", rf.Status, run.res.Status)
		}
	}
	firstEvent := map[string]int{}   // step name -> index of its first step event
	lastFinished := map[string]int{} // step name -> index of its last StepFinished
	for i, e := range events {
		var at time.Time
		switch ev := e.(type) {
		case RunStarted:
			at = ev.Time
			if i != 0 {
				t.Errorf("event %d: a second run_started", i)
			}
		case RunFinished:
			at = ev.Time
			if i != len(events)-1 {
				t.Errorf("event %d: run_finished before the end", i)
			}
		case StepStarted:
			at = ev.Time
			label := Label(ev.Step, ev.Instance)
			if _, done := run.finished[label]; done {
				t.Errorf("event %d: step_started of %s after its step_finished", i, label)
			}
			att := run.started[label]
			if ev.Attempt != len(att)+1 {
				t.Errorf("event %d: step_started of %s with attempt %d after attempts %v", i, label, ev.Attempt, att)
			}
			run.started[label] = append(att, ev.Attempt)
			if _, ok := firstEvent[ev.Step]; !ok {
				firstEvent[ev.Step] = i
			}
		case StepFinished:
			at = ev.Time
			label := Label(ev.Step, ev.Instance)
			if _, dup := run.finished[label]; dup {
				t.Errorf("event %d: a second step_finished of %s", i, label)
			}
			if !ctStatusValid(ev.Status) {
				t.Errorf("event %d: step_finished of %s with status %q", i, label, ev.Status)
			}
			run.finished[label] = ev
			if _, ok := firstEvent[ev.Step]; !ok {
				firstEvent[ev.Step] = i
			}
			lastFinished[ev.Step] = i
		default:
			t.Errorf("event %d: unexpected type %T", i, e)
		}
		// Times are checked to be set here; that they never go backwards is
		// checked by TestContractEventTimesNeverGoBackwards, which provokes
		// it with many concurrent instances (see ctTimeInversions).
		if at.IsZero() {
			t.Errorf("event %d (%T) has no time", i, e)
		}
	}
	for label := range run.started {
		f, ok := run.finished[label]
		if !ok {
			t.Errorf("%s started but never finished", label)
			continue
		}
		if f.Status == StatusCached {
			t.Errorf("%s is cached but has step_started events", label)
		}
	}
	// One step_finished per instance: a step without for_each has exactly
	// one, with no key.
	perStep := map[string][]StepFinished{}
	for _, f := range run.finished {
		perStep[f.Step] = append(perStep[f.Step], f)
	}
	for _, s := range prog.Steps {
		fs := perStep[s.Name]
		if s.ForEach == nil {
			if len(fs) != 1 || !fs[0].Instance.IsNone() {
				t.Errorf("step %s (no for_each) has %d step_finished events; want exactly one without an instance key", s.Name, len(fs))
			}
		}
		// A step starts only once the steps it depends on have finished.
		if first, ok := firstEvent[s.Name]; ok {
			for _, d := range s.Deps {
				if last, ok := lastFinished[d.Name]; ok && last > first {
					t.Errorf("step %s has an event (#%d) before its dependency %s finished (#%d)", s.Name, first, d.Name, last)
				}
				if _, ok := lastFinished[d.Name]; !ok && perStepExpected(prog, d) {
					t.Errorf("step %s ran but its dependency %s never finished", s.Name, d.Name)
				}
			}
		}
	}
}

// perStepExpected reports whether a step must have at least one
// step_finished event (a for_each step may have zero instances).
func perStepExpected(_ *compiler.Program, s *compiler.Step) bool { return s.ForEach == nil }

// ctCheckState checks that the stored run and step results agree with the
// events (docs/runtime.md "State").
func ctCheckState(t *testing.T, st *state.Store, run *ctRun) {
	t.Helper()
	rows, err := st.Steps(run.res.RunID)
	if err != nil {
		t.Fatalf("Steps: %v", err)
	}
	run.rows = map[string]*state.StepResult{}
	for _, r := range rows {
		k := ctRowKey(r.Step, r.Instance)
		if run.rows[k] != nil {
			t.Errorf("two stored results for %s[%s]", r.Step, r.Instance)
		}
		run.rows[k] = r
		if r.Sensitive && len(r.Outputs) != 0 && string(r.Outputs) != "null" {
			t.Errorf("sensitive result %s[%s] stored outputs %s", r.Step, r.Instance, r.Outputs)
		}
	}
	if len(rows) != len(run.finished) {
		t.Errorf("%d stored step results, %d step_finished events", len(rows), len(run.finished))
	}
	for label, f := range run.finished {
		r := run.rows[ctRowKey(f.Step, f.Instance.String())]
		if r == nil {
			t.Errorf("no stored result for %s", label)
			continue
		}
		if r.Status != string(f.Status) {
			t.Errorf("%s: stored status %q, event status %q", label, r.Status, f.Status)
		}
	}
	rr, err := st.Run(run.res.RunID)
	if err != nil {
		t.Fatalf("Run(%s): %v", run.res.RunID, err)
	}
	run.runRow = rr
	if rr.Status != string(run.res.Status) {
		t.Errorf("stored run status %q, result %q", rr.Status, run.res.Status)
	}
	if rr.FinishedAt.IsZero() {
		t.Errorf("stored run has no finish time")
	}
}

// ctJSON is v as JSON-shaped Go data (sensitive parts as "(sensitive)").
func ctJSON(t *testing.T, v cty.Value) any {
	t.Helper()
	b, err := json.Marshal(PlainJSON(v))
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func ctWant(t *testing.T, what string, got cty.Value, wantJSON string) {
	t.Helper()
	var want any
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatalf("bad expectation %s: %v", wantJSON, err)
	}
	if g := ctJSON(t, got); !reflect.DeepEqual(g, want) {
		gb, _ := json.Marshal(g)
		t.Errorf("%s = %s, want %s", what, gb, wantJSON)
	}
}

// ctOutput checks one of the run's outputs.
func ctOutput(t *testing.T, run *ctRun, name, wantJSON string) {
	t.Helper()
	v, ok := run.res.Outputs[name]
	if !ok {
		t.Errorf("no output %q (status %s, diagnostics %v)", name, run.res.Status, run.res.Diagnostics)
		return
	}
	ctWant(t, "output "+name, v, wantJSON)
}

// ctField is one output field of a finished instance.
func ctField(t *testing.T, run *ctRun, label, field string) cty.Value {
	t.Helper()
	f, ok := run.finished[label]
	if !ok {
		t.Errorf("no step_finished for %s", label)
		return cty.NilVal
	}
	if f.Outputs == cty.NilVal || f.Outputs.IsNull() || !f.Outputs.Type().IsObjectType() || !f.Outputs.Type().HasAttribute(field) {
		t.Errorf("%s: outputs %#v have no field %s", label, f.Outputs, field)
		return cty.NilVal
	}
	return f.Outputs.GetAttr(field)
}

// ctAllNull reports whether a skipped step's outputs are null.
func ctAllNull(v cty.Value) bool {
	if v == cty.NilVal || v.IsNull() {
		return true
	}
	if !v.Type().IsObjectType() {
		return false
	}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if !e.IsNull() {
			return false
		}
	}
	return true
}

func ctExpectStatus(t *testing.T, run *ctRun, want map[string]Status) {
	t.Helper()
	for label, w := range want {
		f, ok := run.finished[label]
		if !ok {
			t.Errorf("%s: no step_finished event, want %s", label, w)
			continue
		}
		if f.Status != w {
			t.Errorf("%s: %s (error %q, reason %q), want %s", label, f.Status, f.Error, f.Reason, w)
		}
	}
}

func ctExpectRun(t *testing.T, run *ctRun, want Status) {
	t.Helper()
	if run.res.Status != want {
		t.Fatalf("run status %s, want %s; diagnostics: %v", run.res.Status, want, run.res.Diagnostics)
	}
}

// ctWait waits for ch, or gives up after a long time so that a wrong
// implementation fails the test instead of hanging it.
func ctWait(ctx context.Context, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(20 * time.Second):
		return false
	}
}

// ---------------------------------------------------------------------------
// for_each

const ctForEachFlow = `
flow "fanout" {}

input "names" {
  type    = list(string)
  default = ["ada", "grace", "linus"]
}

input "tags" {
  type    = set(string)
  default = ["beta", "alpha", "gamma"]
}

input "tup" {
  type    = tuple([string, number, bool])
  default = ["x", 2, true]
}

input "ages" {
  type    = map(number)
  default = { zed = 26, amy = 1, max = 13 }
}

input "obj" {
  type    = object({ host = string, port = number })
  default = { host = "h", port = 80 }
}

step "l" {
  use      = "value"
  for_each = input.names
  value    = "${each.key}:${each.value}"
}

step "s" {
  use      = "value"
  for_each = input.tags
  value    = "${each.key}:${each.value}"
}

step "t" {
  use      = "value"
  for_each = input.tup
  value    = each.value
}

step "m" {
  use      = "value"
  for_each = input.ages
  value    = "${each.key}=${each.value}"
}

step "o" {
  use      = "value"
  for_each = input.obj
  value    = "${each.key}/${each.value}"
}

step "summary" {
  use = "value"
  value = {
    l1     = step.l[1].value
    lall   = step.l[*].value
    sall   = step.s[*].value
    t0     = step.t[0].value
    t1     = step.t[1].value
    tall   = step.t[*].value
    m_amy  = step.m["amy"].value
    m_vals = values(step.m)[*].value
    m_keys = keys(step.m)
    o_host = step.o["host"].value
    o_vals = values(step.o)[*].value
    o_keys = keys(step.o)
  }
}

output "summary" {
  value = step.summary.value
}
`

func TestContractForEachCollections(t *testing.T) {
	prog := ctCompile(t, ctForEachFlow, nil)
	st, _ := ctStore(t)
	env := newCtEnv(nil)
	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusOK)

	// List: one instance per element, keyed by index, each.key the index.
	for i, name := range []string{"ada", "grace", "linus"} {
		label := fmt.Sprintf("l[%d]", i)
		ctExpectStatus(t, run, map[string]Status{label: StatusOK})
		if k := run.finished[label].Instance.JSON(); k != int64(i) {
			t.Errorf("%s: instance key %#v, want the index %d", label, k, i)
		}
		ctWant(t, label+".value", ctField(t, run, label, "value"), fmt.Sprintf(`"%d:%s"`, i, name))
		if r := run.row(t, "l", fmt.Sprint(i)); r.Status != "ok" {
			t.Errorf("stored l[%d]: %q", i, r.Status)
		}
	}
	if n := len(ctInstances(run, "l")); n != 3 {
		t.Errorf("l has %d instances, want 3", n)
	}

	// Set: one instance per element, keyed by index.
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		label := fmt.Sprintf("s[%d]", i)
		ctExpectStatus(t, run, map[string]Status{label: StatusOK})
		v := ctField(t, run, label, "value")
		if v == cty.NilVal || v.Type() != cty.String {
			continue
		}
		s := v.AsString()
		prefix := fmt.Sprintf("%d:", i)
		if !strings.HasPrefix(s, prefix) {
			t.Errorf("%s.value = %q; each.key should be the index %d", label, s, i)
		}
		seen[strings.TrimPrefix(s, prefix)] = true
	}
	if !reflect.DeepEqual(seen, map[string]bool{"alpha": true, "beta": true, "gamma": true}) {
		t.Errorf("set instances saw elements %v, want alpha, beta, gamma", seen)
	}
	if n := len(ctInstances(run, "s")); n != 3 {
		t.Errorf("s has %d instances, want 3", n)
	}

	// Tuple: by index, each element keeping its own type.
	ctWant(t, "t[0].value", ctField(t, run, "t[0]", "value"), `"x"`)
	ctWant(t, "t[1].value", ctField(t, run, "t[1]", "value"), `2`)
	ctWant(t, "t[2].value", ctField(t, run, "t[2]", "value"), `true`)

	// Map: one instance per key, keyed by the key.
	for key, want := range map[string]string{"amy": "amy=1", "max": "max=13", "zed": "zed=26"} {
		label := fmt.Sprintf("m[%q]", key)
		ctExpectStatus(t, run, map[string]Status{label: StatusOK})
		if k := run.finished[label].Instance.JSON(); k != key {
			t.Errorf("%s: instance key %#v, want %q", label, k, key)
		}
		ctWant(t, label+".value", ctField(t, run, label, "value"), `"`+want+`"`)
		if r := run.row(t, "m", key); r.Status != "ok" {
			t.Errorf("stored m[%s]: %q", key, r.Status)
		}
	}
	// Object: one instance per attribute.
	ctWant(t, `o["host"].value`, ctField(t, run, `o["host"]`, "value"), `"host/h"`)
	ctWant(t, `o["port"].value`, ctField(t, run, `o["port"]`, "value"), `"port/80"`)

	sum := run.res.Outputs["summary"]
	if sum == cty.NilVal {
		t.Fatalf("no summary output")
	}
	got := ctJSON(t, sum).(map[string]any)
	want := map[string]string{
		"l1":     `"1:grace"`,
		"lall":   `["0:ada","1:grace","2:linus"]`,
		"t0":     `"x"`,
		"t1":     `2`,
		"tall":   `["x",2,true]`,
		"m_amy":  `"amy=1"`,
		"m_vals": `["amy=1","max=13","zed=26"]`,
		"m_keys": `["amy","max","zed"]`,
		"o_host": `"host/h"`,
		"o_vals": `["host/h","port/80"]`,
		"o_keys": `["host","port"]`,
	}
	for k, w := range want {
		var wv any
		json.Unmarshal([]byte(w), &wv)
		if !reflect.DeepEqual(got[k], wv) {
			gb, _ := json.Marshal(got[k])
			t.Errorf("summary.%s = %s, want %s", k, gb, w)
		}
	}
	// step.s[*].value is the set step's instances in index order.
	if sall, ok := got["sall"].([]any); !ok || len(sall) != 3 {
		t.Errorf("summary.sall = %#v, want 3 values", got["sall"])
	} else {
		for i, v := range sall {
			if s, _ := v.(string); !strings.HasPrefix(s, fmt.Sprintf("%d:", i)) {
				t.Errorf("summary.sall[%d] = %#v", i, v)
			}
		}
	}
}

// ctInstances returns the finished instances of a step.
func ctInstances(run *ctRun, step string) []StepFinished {
	var out []StepFinished
	for _, f := range run.finished {
		if f.Step == step {
			out = append(out, f)
		}
	}
	return out
}

func TestContractForEachEmpty(t *testing.T) {
	prog := ctCompile(t, `
flow "empty" {}

input "items" {
  type    = list(string)
  default = []
}

input "table" {
  type    = map(string)
  default = {}
}

block "work" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "item" {
    type = string
  }
  output "out" {
    type = string
  }
}

step "none" {
  use      = "work"
  for_each = input.items
  item     = each.value
}

step "none_map" {
  use      = "work"
  for_each = input.table
  item     = each.value
}

step "count" {
  use   = "value"
  value = length(step.none) + length(step.none_map)
}

step "outs" {
  use   = "value"
  value = jsonencode(step.none[*].out)
}

step "map_outs" {
  use   = "value"
  value = jsonencode(values(step.none_map)[*].out)
}

step "map_keys" {
  use   = "value"
  value = jsonencode(keys(step.none_map))
}

output "count" {
  value = step.count.value
}

output "outs" {
  value = step.outs.value
}

output "map_outs" {
  value = step.map_outs.value
}

output "map_keys" {
  value = step.map_keys.value
}
`, nil)
	env := newCtEnv(map[string]ctFn{"work": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return map[string]cty.Value{"out": in["item"]}, nil
	}})
	st, _ := ctStore(t)
	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusOK)
	if n := env.n("js:work"); n != 0 {
		t.Errorf("an empty for_each called the block %d times", n)
	}
	for _, s := range []string{"none", "none_map"} {
		for label, att := range run.started {
			if strings.HasPrefix(label, s+"[") || label == s {
				t.Errorf("%s started (%v) with an empty for_each", label, att)
			}
		}
		for _, f := range ctInstances(run, s) {
			if f.Status != StatusSkipped && f.Status != StatusOK {
				t.Errorf("%s: %s with an empty for_each", Label(f.Step, f.Instance), f.Status)
			}
		}
	}
	// outs, map_outs and map_keys all give the value block "[]": one may
	// reuse another's result from the cache within the run.
	for _, label := range []string{"count", "outs", "map_outs", "map_keys"} {
		if s := run.status(label); s != StatusOK && s != StatusCached {
			t.Errorf("%s: %s (error %q, reason %q), want ok", label, s, run.finished[label].Error, run.finished[label].Reason)
		}
	}
	ctOutput(t, run, "count", `0`)
	ctOutput(t, run, "outs", `"[]"`)
	ctOutput(t, run, "map_outs", `"[]"`)
	ctOutput(t, run, "map_keys", `"[]"`)
}

// ---------------------------------------------------------------------------
// when

func TestContractWhen(t *testing.T) {
	prog := ctCompile(t, `
flow "conditional" {}

block "probe" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "v" {
    type = string
  }
  output "v" {
    type = string
  }
}

step "off" {
  use  = "probe"
  when = false
  v    = "never"
}

step "on" {
  use  = "probe"
  when = true
  v    = "yes"
}

step "after_off" {
  use   = "value"
  value = step.off.v == null ? "was null" : "not null"
}

step "after_off2" {
  use   = "probe"
  v     = coalesce(step.off.v, "fallback")
}

step "per" {
  use      = "value"
  for_each = [1, 2, 3, 4]
  when     = each.value % 2 == 0
  value    = each.value * 10
}

step "per_dep" {
  use   = "value"
  value = [for v in step.per[*].value : v if v != null]
}

step "per_map" {
  use      = "value"
  for_each = { a = "keep", b = "drop" }
  when     = each.value == "keep"
  value    = "${each.key}=${each.value}"
}

step "per_map_dep" {
  use   = "value"
  value = [for k, o in step.per_map : k if o.value != null]
}

output "after_off" {
  value = step.after_off.value
}

output "after_off2" {
  value = step.after_off2.v
}

output "per_dep" {
  value = step.per_dep.value
}

output "per_map_dep" {
  value = step.per_map_dep.value
}
`, nil)
	var mu sync.Mutex
	var probed []string
	env := newCtEnv(map[string]ctFn{"probe": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		mu.Lock()
		probed = append(probed, in["v"].AsString())
		mu.Unlock()
		return map[string]cty.Value{"v": in["v"]}, nil
	}})
	st, _ := ctStore(t)
	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusOK)
	ctExpectStatus(t, run, map[string]Status{
		"off": StatusSkipped, "on": StatusOK, "after_off": StatusOK, "after_off2": StatusOK,
		"per[0]": StatusSkipped, "per[1]": StatusOK, "per[2]": StatusSkipped, "per[3]": StatusOK,
		"per_dep": StatusOK, `per_map["a"]`: StatusOK, `per_map["b"]`: StatusSkipped, "per_map_dep": StatusOK,
	})
	if r := run.finished["off"].Reason; !strings.Contains(r, "when is false") {
		t.Errorf("off: reason %q, want \"when is false\"", r)
	}
	if !ctAllNull(run.finished["off"].Outputs) {
		t.Errorf("off (skipped) has outputs %#v, want null", run.finished["off"].Outputs)
	}
	for _, label := range []string{"per[0]", "per[2]", `per_map["b"]`} {
		if !ctAllNull(run.finished[label].Outputs) {
			t.Errorf("%s (skipped) has outputs %#v, want null", label, run.finished[label].Outputs)
		}
	}
	mu.Lock()
	sort.Strings(probed)
	if !reflect.DeepEqual(probed, []string{"fallback", "yes"}) {
		t.Errorf("probe called with %v; a when-false step must not call its block", probed)
	}
	mu.Unlock()
	ctOutput(t, run, "after_off", `"was null"`)
	ctOutput(t, run, "after_off2", `"fallback"`)
	ctOutput(t, run, "per_dep", `[20,40]`)
	ctOutput(t, run, "per_map_dep", `["a"]`)
	if r := run.row(t, "off", ""); r.Status != "skipped" {
		t.Errorf("stored off: %q", r.Status)
	}
}

// ---------------------------------------------------------------------------
// Failure

const ctWorkBlock = `
block "work" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "item" {
    type = string
  }
  output "out" {
    type = string
  }
}
`

// ctWorkFake fails the items that contain "bad" and makes the others wait
// until a bad item has failed, so that they are still running when it does.
func ctWorkFake() ctFn {
	badDone := make(chan struct{})
	var once sync.Once
	return func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		item := in["item"].AsString()
		if strings.Contains(item, "bad") {
			once.Do(func() { close(badDone) })
			return nil, fmt.Errorf("cannot process %s", item)
		}
		ctWait(ctx, badDone)
		return map[string]cty.Value{"out": cty.StringVal(strings.ToUpper(item))}, nil
	}
}

func TestContractForEachInstanceFailure(t *testing.T) {
	prog := ctCompile(t, `
flow "fanfail" {}
`+ctWorkBlock+`
step "items" {
  use      = "work"
  for_each = ["a", "bad", "c", "d"]
  item     = each.value
}

step "child" {
  use   = "value"
  value = step.items[*].out
}

step "child_each" {
  use      = "value"
  for_each = ["p", "q"]
  value    = "${each.value}${length(step.items)}"
}

step "independent" {
  use   = "value"
  value = "fine"
}

output "independent" {
  value = step.independent.value
}
`, nil)
	env := newCtEnv(map[string]ctFn{"work": ctWorkFake()})
	st, _ := ctStore(t)
	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusFailed)
	ctExpectStatus(t, run, map[string]Status{
		"items[0]": StatusOK, "items[1]": StatusFailed, "items[2]": StatusOK, "items[3]": StatusOK,
		"child": StatusSkipped, "independent": StatusOK,
	})
	if n := env.n("js:work"); n != 4 {
		t.Errorf("work called %d times, want 4 (one per instance)", n)
	}
	for i, want := range map[int]string{0: "A", 2: "C", 3: "D"} {
		ctWant(t, fmt.Sprintf("items[%d].out", i), ctField(t, run, fmt.Sprintf("items[%d]", i), "out"), `"`+want+`"`)
		if r := run.row(t, "items", fmt.Sprint(i)); r.Status != "ok" || !bytes.Contains(r.Outputs, []byte(want)) {
			t.Errorf("stored items[%d]: %q, outputs %s", i, r.Status, r.Outputs)
		}
	}
	if e := run.finished["items[1]"].Error; !strings.Contains(e, "cannot process bad") {
		t.Errorf("items[1] error %q", e)
	}
	if r := run.row(t, "items", "1"); r.Status != "failed" || !strings.Contains(r.Error, "cannot process bad") {
		t.Errorf("stored items[1]: %q, error %q", r.Status, r.Error)
	}
	if r := run.finished["child"].Reason; !strings.Contains(r, "upstream step items failed") {
		t.Errorf("child: reason %q, want \"upstream step items failed\"", r)
	}
	if !ctAllNull(run.finished["child"].Outputs) {
		t.Errorf("child (skipped) has outputs %#v", run.finished["child"].Outputs)
	}
	// A for_each step that depends on the failed step is skipped as well.
	for _, f := range ctInstances(run, "child_each") {
		if f.Status != StatusSkipped || !strings.Contains(f.Reason, "upstream step items failed") {
			t.Errorf("%s: %s (%q), want skipped because items failed", Label(f.Step, f.Instance), f.Status, f.Reason)
		}
	}
	if len(ctInstances(run, "child_each")) == 0 {
		t.Errorf("child_each has no step_finished event")
	}
	if started := run.started["child"]; len(started) != 0 {
		t.Errorf("child started %v though items failed", started)
	}
	if !run.res.Diagnostics.HasErrors() || !strings.Contains(run.res.Diagnostics.Error(), "cannot process bad") {
		t.Errorf("diagnostics %v should report the failure", run.res.Diagnostics)
	}
	if run.runRow != nil && (run.runRow.Status != "failed" || run.runRow.Error == "") {
		t.Errorf("stored run: %q, error %q", run.runRow.Status, run.runRow.Error)
	}
}

// TestContractIndirectSkipReasonNamesFailedStep: docs/runtime.md — "A step
// that fails after its retries makes every step that depends on it,
// directly or not, skipped ("upstream step X failed")": X is the step that
// failed, for indirect dependents too.
func TestContractIndirectSkipReasonNamesFailedStep(t *testing.T) {
	prog := ctCompile(t, `
flow "chain" {}
`+ctWorkBlock+`
step "bad" {
  use  = "work"
  item = "bad"
}

step "child" {
  use   = "value"
  value = step.bad.out
}

step "grandchild" {
  use   = "value"
  value = step.child.value
}
`, nil)
	env := newCtEnv(map[string]ctFn{"work": ctWorkFake()})
	run := ctApply(t, context.Background(), prog, Options{Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusFailed)
	ctExpectStatus(t, run, map[string]Status{"bad": StatusFailed, "child": StatusSkipped, "grandchild": StatusSkipped})
	for _, label := range []string{"child", "grandchild"} {
		if r := run.finished[label].Reason; !strings.Contains(r, "upstream step bad failed") {
			t.Errorf("%s: reason %q, want \"upstream step bad failed\" (bad is the step that failed)", label, r)
		}
	}
}

// docs/runtime.md: "With on_error = "continue" the failed step's outputs are
// null, its dependents run, and the run does not fail because of it."
func TestContractOnErrorContinue(t *testing.T) {
	prog := ctCompile(t, `
flow "tolerant_single" {}
`+ctWorkBlock+`
step "single" {
  use      = "work"
  item     = "bad-single"
  on_error = "continue"
}

step "after_single" {
  use   = "value"
  value = step.single.out == null ? "null" : "set"
}

output "after_single" {
  value = step.after_single.value
}
`, nil)
	env := newCtEnv(map[string]ctFn{"work": ctWorkFake()})
	st, _ := ctStore(t)
	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectStatus(t, run, map[string]Status{"single": StatusFailed, "after_single": StatusOK})
	if !ctAllNull(run.finished["single"].Outputs) {
		t.Errorf("single (failed, on_error continue) has outputs %#v, want null", run.finished["single"].Outputs)
	}
	if r := run.row(t, "single", ""); r.Status != "failed" {
		t.Errorf("stored single: %q", r.Status)
	}
	ctExpectRun(t, run, StatusOK)
	ctOutput(t, run, "after_single", `"null"`)
}

func TestContractForEachOnErrorContinue(t *testing.T) {
	prog := ctCompile(t, `
flow "tolerant" {}
`+ctWorkBlock+`
step "tolerant" {
  use      = "work"
  for_each = ["x", "bad", "y"]
  item     = each.value
  on_error = "continue"
}

step "after" {
  use   = "value"
  value = try(step.tolerant[1].out, null) == null ? "null" : "set"
}

output "after" {
  value = step.after.value
}
`, nil)
	env := newCtEnv(map[string]ctFn{"work": ctWorkFake()})
	st, _ := ctStore(t)
	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectStatus(t, run, map[string]Status{
		"tolerant[0]": StatusOK, "tolerant[1]": StatusFailed, "tolerant[2]": StatusOK, "after": StatusOK,
	})
	if r := run.row(t, "tolerant", "1"); r.Status != "failed" {
		t.Errorf("stored tolerant[1]: %q", r.Status)
	}
	ctExpectRun(t, run, StatusOK)
	ctOutput(t, run, "after", `"null"`)
}

// ctTimeInversions lists the events whose time is before the previous
// event's.
func ctTimeInversions(events []Event) []string {
	var out []string
	var prev time.Time
	for i, e := range events {
		var at time.Time
		switch ev := e.(type) {
		case RunStarted:
			at = ev.Time
		case StepStarted:
			at = ev.Time
		case StepFinished:
			at = ev.Time
		case RunFinished:
			at = ev.Time
		}
		if at.Before(prev) {
			out = append(out, fmt.Sprintf("event %d (%T) at %s is %s before the previous one", i, e, at.Format("15:04:05.000000"), prev.Sub(at)))
		}
		if !at.IsZero() {
			prev = at
		}
	}
	return out
}

// TestContractEventTimesNeverGoBackwards: events are reported in order, and
// their times never go backwards in that order. Many instances finishing at
// once (run and cached) give every chance to expose events stamped before
// they are delivered.
func TestContractEventTimesNeverGoBackwards(t *testing.T) {
	prog := ctCompile(t, `
flow "many" {}

block "work" {
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
  use      = "value"
  for_each = range(200)
  value    = "w${each.value}"
}

step "js" {
  use      = "work"
  for_each = range(100)
  i        = each.value
}

step "after" {
  use   = "value"
  value = length(step.wide) + length(step.js)
}
`, nil)
	env := newCtEnv(map[string]ctFn{"work": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return map[string]cty.Value{"i": in["i"]}, nil
	}})
	st, _ := ctStore(t)
	var bad []string
	for i := 0; i < 5; i++ {
		run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), NoCache: i%2 == 0}, nil)
		ctExpectRun(t, run, StatusOK)
		if inv := ctTimeInversions(run.events); len(inv) > 0 {
			bad = append(bad, fmt.Sprintf("run %d: %d of %d events go back in time, e.g. %s", i+1, len(inv), len(run.events), inv[0]))
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// ---------------------------------------------------------------------------
// Retries and timeouts

func TestContractRetryAttempts(t *testing.T) {
	prog := ctCompile(t, `
flow "retries" {}

input "raw" {
  type    = any
  default = "abc"
}

block "flaky" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "name" {
    type = string
  }
  input "fail_times" {
    type = number
  }
  output "ok" {
    type = bool
  }
}

block "num" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "n" {
    type = number
  }
  output "n" {
    type = number
  }
}

step "eventually" {
  use        = "flaky"
  name       = "eventually"
  fail_times = 2
  retry {
    attempts    = 3
    backoff     = "1ms"
    max_backoff = "2ms"
  }
}

step "never" {
  use        = "flaky"
  name       = "never"
  fail_times = 100
  retry {
    attempts = 3
    backoff  = "1ms"
  }
}

step "once" {
  use        = "flaky"
  name       = "once"
  fail_times = 0
}

step "badshape" {
  use        = "flaky"
  name       = "badshape"
  fail_times = 0
  retry {
    attempts = 3
    backoff  = "1ms"
  }
}

step "badinput" {
  use = "num"
  n   = input.raw
  retry {
    attempts = 3
    backoff  = "1ms"
  }
}

step "after_never" {
  use   = "value"
  value = step.never.ok
}

step "after_eventually" {
  use   = "value"
  value = step.eventually.ok
}

output "x" {
  value = 1
}
`, nil)
	var mu sync.Mutex
	calls := map[string]int{}
	env := newCtEnv(map[string]ctFn{
		"flaky": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
			name := in["name"].AsString()
			failTimes, _ := in["fail_times"].AsBigFloat().Int64()
			mu.Lock()
			calls[name]++
			n := calls[name]
			mu.Unlock()
			if name == "badshape" {
				return map[string]cty.Value{"ok": cty.StringVal("maybe")}, nil
			}
			if int64(n) <= failTimes {
				return nil, fmt.Errorf("boom %s attempt %d", name, n)
			}
			return map[string]cty.Value{"ok": cty.True}, nil
		},
		"num": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
			return map[string]cty.Value{"n": in["n"]}, nil
		},
	})
	st, _ := ctStore(t)
	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusFailed)
	ctExpectStatus(t, run, map[string]Status{
		"eventually": StatusOK, "never": StatusFailed, "once": StatusOK, "badshape": StatusFailed,
		"badinput": StatusFailed, "after_never": StatusSkipped, "after_eventually": StatusOK,
	})
	check := func(label string, wantAttempts int) {
		t.Helper()
		if got := run.started[label]; !reflect.DeepEqual(got, ctSeq(wantAttempts)) {
			t.Errorf("%s: step_started attempts %v, want %v", label, got, ctSeq(wantAttempts))
		}
		mu.Lock()
		n := calls[label]
		mu.Unlock()
		if n != wantAttempts {
			t.Errorf("%s: block called %d times, want %d", label, n, wantAttempts)
		}
	}
	check("eventually", 3)
	check("never", 3)
	check("once", 1)
	// Outputs of the wrong shape are not retried.
	check("badshape", 1)

	if f := run.finished["eventually"]; f.Attempts != 3 {
		t.Errorf("eventually: step_finished attempts %d, want 3", f.Attempts)
	}
	if f := run.finished["never"]; f.Attempts != 3 || !strings.Contains(f.Error, "boom never attempt 3") {
		t.Errorf("never: attempts %d, error %q; want 3 attempts and the last error", f.Attempts, f.Error)
	}
	if r := run.row(t, "eventually", ""); r.Attempts != 3 || r.Status != "ok" {
		t.Errorf("stored eventually: %q after %d attempts", r.Status, r.Attempts)
	}
	if r := run.row(t, "never", ""); r.Attempts != 3 || r.Status != "failed" || !strings.Contains(r.Error, "boom never") {
		t.Errorf("stored never: %q after %d attempts, error %q", r.Status, r.Attempts, r.Error)
	}
	if r := run.finished["after_never"].Reason; !strings.Contains(r, "upstream step never failed") {
		t.Errorf("after_never: reason %q", r)
	}
	// An error in the step's own inputs is not retried (and the block is
	// never called with an input of the wrong type).
	if n := env.n("js:num"); n != 0 {
		t.Errorf("num called %d times with an invalid input", n)
	}
	if got := run.started["badinput"]; len(got) > 1 {
		t.Errorf("badinput: retried an input error: attempts %v", got)
	}
	if f := run.finished["badinput"]; f.Error == "" {
		t.Errorf("badinput: no error")
	}
}

func ctSeq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestContractTimeout(t *testing.T) {
	prog := ctCompile(t, `
flow "timeouts" {}

block "hang" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  timeout = "30ms"
  input "name" {
    type = string
  }
  output "ok" {
    type = bool
  }
}

step "step_timeout" {
  use     = "hang"
  name    = "s"
  timeout = "20ms"
  retry {
    attempts = 2
    backoff  = "1ms"
  }
}

step "block_timeout" {
  use  = "hang"
  name = "b"
}
`, nil)
	env := newCtEnv(map[string]ctFn{"hang": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return map[string]cty.Value{"ok": cty.True}, nil
		}
	}})
	run := ctApply(t, context.Background(), prog, Options{Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusFailed)
	ctExpectStatus(t, run, map[string]Status{"step_timeout": StatusFailed, "block_timeout": StatusFailed})
	if e := run.finished["step_timeout"].Error; !strings.Contains(e, "exceeded its 20ms timeout") {
		t.Errorf("step_timeout error %q, want \"exceeded its 20ms timeout\"", e)
	}
	if got := run.started["step_timeout"]; !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("step_timeout attempts %v, want [1 2] (timeout is per attempt)", got)
	}
	if e := run.finished["block_timeout"].Error; !strings.Contains(e, "exceeded its 30ms timeout") {
		t.Errorf("block_timeout error %q, want the block's timeout \"exceeded its 30ms timeout\"", e)
	}
}

// ---------------------------------------------------------------------------
// Cache

const ctCacheFlow = `
flow "caching" {}

input "n" {
  type    = number
  default = 1
}

block "double" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "x" {
    type = number
  }
  output "y" {
    type = number
  }
}

step "a" {
  use   = "value"
  value = input.n
}

step "b" {
  use = "double"
  x   = step.a.value
}

step "c" {
  use   = "value"
  value = "constant"
}

step "d" {
  use   = "value"
  value = "d=${step.b.y + 1}"
}

step "e" {
  use = "double"
  x   = 100
}

step "nc" {
  use   = "value"
  cache = false
  value = "always"
}

step "s" {
  use      = "sleep"
  duration = "1ms"
}

step "sc" {
  use      = "sleep"
  duration = "1ms"
  cache    = true
}

step "f" {
  use  = "file"
  path = "data.txt"
}

step "fl" {
  use   = "value"
  value = length(step.f.text)
}

step "fan" {
  use      = "double"
  for_each = [1, 2]
  x        = each.value + 1000
}

output "d" {
  value = step.d.value
}

output "fl" {
  value = step.fl.value
}

output "fan" {
  value = step.fan[*].y
}
`

func ctDoubleEnv() *ctEnv {
	return newCtEnv(map[string]ctFn{"double": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return map[string]cty.Value{"y": in["x"].Multiply(cty.NumberIntVal(2))}, nil
	}})
}

func TestContractCacheReuseAndInvalidation(t *testing.T) {
	prog := ctCompile(t, ctCacheFlow, map[string]string{"data.txt": "hello"})
	env := ctDoubleEnv()
	st, _ := ctStore(t)
	opts := func(n int64) Options {
		return Options{Store: st, Executors: env.executors(), Inputs: ctInputs(t, prog, map[string]cty.Value{"n": cty.NumberIntVal(n)})}
	}

	// Run 1: everything runs.
	run1 := ctApply(t, context.Background(), prog, opts(1), nil)
	ctExpectRun(t, run1, StatusOK)
	all := []string{"a", "b", "c", "d", "e", "nc", "s", "sc", "f", "fl", "fan[0]", "fan[1]"}
	for _, l := range all {
		ctExpectStatus(t, run1, map[string]Status{l: StatusOK})
	}
	ctOutput(t, run1, "d", `"d=3"`)
	ctOutput(t, run1, "fl", `5`)
	ctOutput(t, run1, "fan", `[2002,2004]`)
	if got := []int{env.n("js:double"), env.n("value"), env.n("sleep")}; !reflect.DeepEqual(got, []int{4, 5, 2}) {
		t.Errorf("run 1 calls (double, value, sleep) = %v, want [4 5 2]", got)
	}
	// Cacheable results are stored under their cache key.
	for _, sr := range []struct{ step, inst string }{{"a", ""}, {"b", ""}, {"c", ""}, {"d", ""}, {"e", ""}, {"sc", ""}, {"f", ""}, {"fl", ""}, {"fan", "0"}, {"fan", "1"}} {
		r := run1.row(t, sr.step, sr.inst)
		if r.CacheKey == "" {
			t.Errorf("run 1: %s[%s] stored no cache key", sr.step, sr.inst)
			continue
		}
		if _, ok, err := st.CacheGet(r.CacheKey); err != nil || !ok {
			t.Errorf("run 1: %s[%s]: cache entry not stored (%v)", sr.step, sr.inst, err)
		}
	}

	// Run 2, same inputs: every cacheable step is cached, no executor call
	// for them.
	env.reset()
	run2 := ctApply(t, context.Background(), prog, opts(1), nil)
	ctExpectRun(t, run2, StatusOK)
	for _, l := range []string{"a", "b", "c", "d", "e", "sc", "f", "fl", "fan[0]", "fan[1]"} {
		ctExpectStatus(t, run2, map[string]Status{l: StatusCached})
	}
	ctExpectStatus(t, run2, map[string]Status{"nc": StatusOK, "s": StatusOK})
	if got := []int{env.n("js:double"), env.n("value"), env.n("sleep")}; !reflect.DeepEqual(got, []int{0, 1, 1}) {
		t.Errorf("run 2 calls (double, value, sleep) = %v, want [0 1 1] (only nc and s run)", got)
	}
	ctOutput(t, run2, "d", `"d=3"`)
	ctOutput(t, run2, "fl", `5`)
	ctOutput(t, run2, "fan", `[2002,2004]`)
	ctWant(t, "cached d outputs", ctField(t, run2, "d", "value"), `"d=3"`)
	if r := run2.row(t, "d", ""); r.Status != "cached" {
		t.Errorf("stored d in run 2: %q", r.Status)
	}

	// Run 3, n = 2: a, b and d re-run; the rest is cached.
	env.reset()
	run3 := ctApply(t, context.Background(), prog, opts(2), nil)
	ctExpectRun(t, run3, StatusOK)
	ctExpectStatus(t, run3, map[string]Status{
		"a": StatusOK, "b": StatusOK, "d": StatusOK,
		"c": StatusCached, "e": StatusCached, "sc": StatusCached, "f": StatusCached, "fl": StatusCached,
		"fan[0]": StatusCached, "fan[1]": StatusCached, "nc": StatusOK, "s": StatusOK,
	})
	if got := []int{env.n("js:double"), env.n("value"), env.n("sleep")}; !reflect.DeepEqual(got, []int{1, 3, 1}) {
		t.Errorf("run 3 calls (double, value, sleep) = %v, want [1 3 1]", got)
	}
	ctOutput(t, run3, "d", `"d=5"`)

	// Run 4: the file changes, keeping its length: f re-runs, fl (whose
	// input is unchanged) is cached.
	if err := os.WriteFile(filepath.Join(prog.Dir, "data.txt"), []byte("HELLO"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.reset()
	run4 := ctApply(t, context.Background(), prog, opts(2), nil)
	ctExpectRun(t, run4, StatusOK)
	ctExpectStatus(t, run4, map[string]Status{
		"f": StatusOK, "fl": StatusCached, "a": StatusCached, "b": StatusCached, "d": StatusCached,
	})
	ctWant(t, "f.text", ctField(t, run4, "f", "text"), `"HELLO"`)

	// Run 5: the file changes length: f and fl re-run.
	if err := os.WriteFile(filepath.Join(prog.Dir, "data.txt"), []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.reset()
	run5 := ctApply(t, context.Background(), prog, opts(2), nil)
	ctExpectRun(t, run5, StatusOK)
	ctExpectStatus(t, run5, map[string]Status{"f": StatusOK, "fl": StatusOK, "d": StatusCached})
	ctOutput(t, run5, "fl", `11`)

	// Back to n = 1: the results of run 1 are still stored.
	env.reset()
	run6 := ctApply(t, context.Background(), prog, opts(1), nil)
	ctExpectRun(t, run6, StatusOK)
	ctExpectStatus(t, run6, map[string]Status{"a": StatusCached, "b": StatusCached, "d": StatusCached})
	if n := env.n("js:double"); n != 0 {
		t.Errorf("run 6: double called %d times", n)
	}
}

func TestContractNoCache(t *testing.T) {
	prog := ctCompile(t, ctCacheFlow, map[string]string{"data.txt": "hello"})
	env := ctDoubleEnv()
	st, _ := ctStore(t)

	// --no-cache on an empty store: everything runs.
	run1 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), NoCache: true}, nil)
	ctExpectRun(t, run1, StatusOK)
	for _, f := range run1.finished {
		if f.Status != StatusOK {
			t.Errorf("no-cache run 1: %s is %s", Label(f.Step, f.Instance), f.Status)
		}
	}
	// The results are still stored: a normal run reuses them.
	env.reset()
	run2 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run2, StatusOK)
	for _, l := range []string{"a", "b", "c", "d", "e", "sc", "f", "fl", "fan[0]", "fan[1]"} {
		ctExpectStatus(t, run2, map[string]Status{l: StatusCached})
	}
	if n := env.n("js:double"); n != 0 {
		t.Errorf("after a --no-cache run, double called %d times", n)
	}
	// --no-cache again: nothing is reused, every block is called.
	env.reset()
	run3 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), NoCache: true}, nil)
	ctExpectRun(t, run3, StatusOK)
	for _, f := range run3.finished {
		if f.Status != StatusOK {
			t.Errorf("no-cache run 3: %s is %s", Label(f.Step, f.Instance), f.Status)
		}
	}
	if got := []int{env.n("js:double"), env.n("value"), env.n("sleep")}; !reflect.DeepEqual(got, []int{4, 5, 2}) {
		t.Errorf("no-cache run 3 calls (double, value, sleep) = %v, want [4 5 2]", got)
	}
	ctOutput(t, run3, "d", `"d=3"`)
}

func TestContractCacheAllWatchMode(t *testing.T) {
	prog := ctCompile(t, ctCacheFlow, map[string]string{"data.txt": "hello"})
	env := ctDoubleEnv()
	st, _ := ctStore(t)
	run1 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), CacheAll: true}, nil)
	ctExpectRun(t, run1, StatusOK)
	env.reset()
	run2 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), CacheAll: true}, nil)
	ctExpectRun(t, run2, StatusOK)
	// Within a watch session every step is cached, sleep included.
	for _, f := range run2.finished {
		if f.Status != StatusCached {
			t.Errorf("watch run 2: %s is %s, want cached", Label(f.Step, f.Instance), f.Status)
		}
	}
	if n := env.total(); n != 0 {
		t.Errorf("watch run 2 called blocks %d times: %v", n, env.calls)
	}
	ctOutput(t, run2, "d", `"d=3"`)
	// Outside watch mode sleep is not cacheable again.
	env.reset()
	run3 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run3, StatusOK)
	ctExpectStatus(t, run3, map[string]Status{"s": StatusOK, "nc": StatusOK, "a": StatusCached, "b": StatusCached})
}

func TestContractSensitiveNeverCached(t *testing.T) {
	const secret = "s3cr3t-T0KEN-value"
	const password = "hunter2-password"
	prog := ctCompile(t, `
flow "secretive" {}

secret "tok" {
  env = "CT_FLOWCTL_TOKEN"
}

input "pw" {
  type      = string
  sensitive = true
  default   = "`+password+`"
}

step "auth" {
  use   = "value"
  value = "Bearer ${secret.tok}"
}

step "pwd" {
  use   = "value"
  value = input.pw
}

step "len" {
  use   = "value"
  value = length(step.auth.value)
}

step "plain" {
  use   = "value"
  value = "public"
}

output "n" {
  value     = step.len.value
  sensitive = true
}

output "plain" {
  value = step.plain.value
}
`, nil)
	env := newCtEnv(nil)
	st, dir := ctStore(t)
	secrets := map[string]string{"tok": secret}
	run1 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), Secrets: secrets}, nil)
	ctExpectRun(t, run1, StatusOK)
	ctExpectStatus(t, run1, map[string]Status{"auth": StatusOK, "pwd": StatusOK, "len": StatusOK, "plain": StatusOK})
	env.reset()
	run2 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), Secrets: secrets}, nil)
	ctExpectRun(t, run2, StatusOK)
	ctExpectStatus(t, run2, map[string]Status{"auth": StatusOK, "pwd": StatusOK, "len": StatusOK, "plain": StatusCached})
	if n := env.n("value"); n != 3 {
		t.Errorf("run 2: value called %d times, want 3 (auth, pwd, len are never cached)", n)
	}
	ctOutput(t, run2, "plain", `"public"`)
	if v := run2.res.Outputs["n"]; v == cty.NilVal || !lang.IsSensitive(v) {
		t.Errorf("output n = %#v, want a sensitive value", v)
	} else if u, _ := v.UnmarkDeep(); !u.RawEquals(cty.NumberIntVal(int64(len("Bearer " + secret)))) {
		t.Errorf("output n = %#v, want the real length", u)
	}
	for _, run := range []*ctRun{run1, run2} {
		for _, step := range []string{"auth", "pwd", "len"} {
			r := run.row(t, step, "")
			if !r.Sensitive {
				t.Errorf("stored %s: not marked sensitive", step)
			}
			if len(r.Outputs) != 0 && string(r.Outputs) != "null" {
				t.Errorf("stored %s: outputs %s, want none", step, r.Outputs)
			}
			if r.CacheKey != "" {
				if _, ok, _ := st.CacheGet(r.CacheKey); ok {
					t.Errorf("%s: a sensitive result is in the cache", step)
				}
			}
			if f := run.finished[step]; !lang.IsSensitive(f.Outputs) {
				t.Errorf("%s: step_finished outputs are not sensitive", step)
			}
		}
		if r := run.row(t, "plain", ""); r.Sensitive || len(r.Outputs) == 0 {
			t.Errorf("stored plain: sensitive %v, outputs %s", r.Sensitive, r.Outputs)
		}
		// Nothing the observer sees contains the secret.
		for _, e := range run.events {
			var b []byte
			switch ev := e.(type) {
			case StepFinished:
				b, _ = json.Marshal(map[string]any{"o": PlainJSON(ev.Outputs), "e": ev.Error, "r": ev.Reason})
			case RunFinished:
				outs := map[string]any{}
				for k, v := range ev.Outputs {
					outs[k] = PlainJSON(v)
				}
				b, _ = json.Marshal(map[string]any{"o": outs, "e": ev.Error})
			}
			if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(password)) {
				t.Errorf("event %T shows a sensitive value: %s", e, b)
			}
		}
		if run.runRow != nil {
			for _, b := range [][]byte{run.runRow.Inputs, run.runRow.Outputs, []byte(run.runRow.Error)} {
				if bytes.Contains(b, []byte(password)) || bytes.Contains(b, []byte(secret)) {
					t.Errorf("stored run holds a sensitive value: %s", b)
				}
			}
		}
	}
	// No byte of the state holds the secret or the sensitive input.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("reading %s: %v", path, err)
			return nil
		}
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(password)) {
			t.Errorf("%s holds a sensitive value", path)
		}
		return nil
	})
}

// ---------------------------------------------------------------------------
// Memory

const ctMemoryFlow = `
flow "remember" {}

input "fail" {
  type    = bool
  default = false
}

memory "runs" {
  type    = number
  default = 0
  value   = memory.runs + 1
}

memory "last" {
  type    = string
  default = "none"
  value   = step.pick.value
}

memory "constant" {
  type    = string
  default = "fixed"
}

block "maybe" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "fail" {
    type = bool
  }
  output "ok" {
    type = bool
  }
}

step "pick" {
  use   = "value"
  value = "run${memory.runs}"
}

step "check" {
  use  = "maybe"
  fail = input.fail
}

output "seen" {
  value = memory.runs
}

output "last" {
  value = memory.last
}

output "constant" {
  value = memory.constant
}
`

// ctMemory returns the stored memory of the flow in ns, decoded.
func ctMemory(t *testing.T, st *state.Store, flow, ns string) map[string]any {
	t.Helper()
	raw, err := st.Memory(flow, ns)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for k, v := range raw {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			t.Fatalf("memory %s: %v", k, err)
		}
		// Values may be stored with their type.
		if m, ok := x.(map[string]any); ok && len(m) == 2 && m["type"] != nil {
			if vv, ok := m["value"]; ok {
				x = vv
			}
		}
		out[k] = x
	}
	return out
}

func TestContractMemory(t *testing.T) {
	prog := ctCompile(t, ctMemoryFlow, nil)
	env := newCtEnv(map[string]ctFn{"maybe": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		if in["fail"].True() {
			return nil, errors.New("asked to fail")
		}
		return map[string]cty.Value{"ok": cty.True}, nil
	}})
	st, _ := ctStore(t)
	apply := func(ns string, fail bool) *ctRun {
		t.Helper()
		return ctApply(t, context.Background(), prog, Options{
			Store: st, Executors: env.executors(), Namespace: ns,
			Inputs: ctInputs(t, prog, map[string]cty.Value{"fail": cty.BoolVal(fail)}),
		}, nil)
	}
	if m := ctMemory(t, st, "remember", ""); len(m) != 0 {
		t.Fatalf("memory before any run: %v", m)
	}

	// First run: the defaults.
	run1 := apply("", false)
	ctExpectRun(t, run1, StatusOK)
	ctOutput(t, run1, "seen", `0`)
	ctOutput(t, run1, "last", `"none"`)
	ctOutput(t, run1, "constant", `"fixed"`)
	ctWant(t, "pick", ctField(t, run1, "pick", "value"), `"run0"`)
	if m := ctMemory(t, st, "remember", "default"); !reflect.DeepEqual(m, map[string]any{"runs": 1.0, "last": "run0"}) {
		t.Errorf("memory after run 1: %v, want runs=1, last=run0 (constant has no value)", m)
	}

	// Second run: the stored values, as they were when the run started.
	run2 := apply("default", false)
	ctExpectRun(t, run2, StatusOK)
	ctOutput(t, run2, "seen", `1`)
	ctOutput(t, run2, "last", `"run0"`)
	ctWant(t, "pick", ctField(t, run2, "pick", "value"), `"run1"`)
	if m := ctMemory(t, st, "remember", ""); !reflect.DeepEqual(m, map[string]any{"runs": 2.0, "last": "run1"}) {
		t.Errorf("memory after run 2: %v", m)
	}

	// Another namespace starts from the defaults and does not touch the
	// default namespace.
	runA := apply("alice", false)
	ctExpectRun(t, runA, StatusOK)
	ctOutput(t, runA, "seen", `0`)
	ctOutput(t, runA, "last", `"none"`)
	if m := ctMemory(t, st, "remember", "alice"); !reflect.DeepEqual(m, map[string]any{"runs": 1.0, "last": "run0"}) {
		t.Errorf("memory of alice: %v", m)
	}
	if m := ctMemory(t, st, "remember", "default"); !reflect.DeepEqual(m, map[string]any{"runs": 2.0, "last": "run1"}) {
		t.Errorf("memory of default after alice's run: %v", m)
	}
	if runA.runRow != nil && runA.runRow.Namespace != "alice" {
		t.Errorf("alice's run stored with namespace %q", runA.runRow.Namespace)
	}

	// A failed run stores nothing.
	runF := apply("default", true)
	ctExpectRun(t, runF, StatusFailed)
	if m := ctMemory(t, st, "remember", "default"); !reflect.DeepEqual(m, map[string]any{"runs": 2.0, "last": "run1"}) {
		t.Errorf("memory after a failed run: %v, want it unchanged (runs=2, last=run1)", m)
	}
	run3 := apply("default", false)
	ctExpectRun(t, run3, StatusOK)
	ctOutput(t, run3, "seen", `2`)
	ctOutput(t, run3, "last", `"run1"`)
	if m := ctMemory(t, st, "remember", "alice"); !reflect.DeepEqual(m, map[string]any{"runs": 1.0, "last": "run0"}) {
		t.Errorf("memory of alice after default's runs: %v", m)
	}

	// The runs are recorded, newest first, with their namespace, status,
	// inputs and outputs.
	runs, err := st.Runs("remember", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []*ctRun{run3, runF, runA, run2, run1}
	if len(runs) != len(want) {
		t.Fatalf("%d runs stored, want %d", len(runs), len(want))
	}
	for i, r := range runs {
		w := want[i]
		if r.ID != w.res.RunID || r.Status != string(w.res.Status) {
			t.Errorf("runs[%d] = %s (%s), want %s (%s)", i, r.ID, r.Status, w.res.RunID, w.res.Status)
		}
		if r.Flow != "remember" || r.SourceHash != prog.SourceHash || r.StartedAt.IsZero() || r.FinishedAt.IsZero() {
			t.Errorf("runs[%d]: flow %q, source hash %q (want %q), started %v, finished %v", i, r.Flow, r.SourceHash, prog.SourceHash, r.StartedAt, r.FinishedAt)
		}
		var in map[string]any
		if err := json.Unmarshal(r.Inputs, &in); err != nil || in["fail"] != (w == runF) {
			t.Errorf("runs[%d]: inputs %s", i, r.Inputs)
		}
	}
	if runs[2].Namespace != "alice" || runs[0].Namespace != "default" {
		t.Errorf("namespaces: %q, %q", runs[0].Namespace, runs[2].Namespace)
	}
	var outs map[string]any
	if err := json.Unmarshal(runs[0].Outputs, &outs); err != nil || outs["seen"] != 2.0 || outs["last"] != "run1" {
		t.Errorf("stored outputs of the last run: %s", runs[0].Outputs)
	}
	if runF.runRow == nil || runF.runRow.Error == "" || !strings.Contains(runF.runRow.Error, "asked to fail") {
		t.Errorf("the failed run's stored error does not say why")
	}
	latest, err := st.LatestRun("remember", "default", "ok")
	if err != nil || latest == nil || latest.ID != run3.res.RunID {
		t.Errorf("latest successful run: %v (%v), want %s", latest, err, run3.res.RunID)
	}
}

// ---------------------------------------------------------------------------
// Locals

func TestContractLocalsWithStepValues(t *testing.T) {
	prog := ctCompile(t, `
flow "locals" {}

block "slow" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "v" {
    type = string
  }
  output "v" {
    type = string
  }
}

locals {
  base  = "${step.a.v}-x"
  n     = length(step.list.value)
  both  = "${local.base}:${local.n}"
}

step "a" {
  use = "slow"
  v   = "alpha"
}

step "list" {
  use   = "value"
  value = [1, 2, 3]
}

step "b" {
  use   = "value"
  value = local.both
}

step "fan" {
  use      = "value"
  for_each = range(local.n)
  value    = "${local.base}${each.value}"
}

output "b" {
  value = step.b.value
}

output "base" {
  value = local.base
}

output "fan" {
  value = step.fan[*].value
}
`, nil)
	release := make(chan struct{})
	env := newCtEnv(map[string]ctFn{"slow": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		// a finishes only once list has finished: b must wait for both.
		ctWait(ctx, release)
		return map[string]cty.Value{"v": in["v"]}, nil
	}})
	rec := &ctRec{onEvent: func(e Event) {
		if f, ok := e.(StepFinished); ok && f.Step == "list" {
			close(release)
		}
	}}
	run := ctApply(t, context.Background(), prog, Options{Executors: env.executors()}, rec)
	ctExpectRun(t, run, StatusOK)
	ctOutput(t, run, "b", `"alpha-x:3"`)
	ctOutput(t, run, "base", `"alpha-x"`)
	ctOutput(t, run, "fan", `["alpha-x0","alpha-x1","alpha-x2"]`)
	// The event-order check in ctApply verifies that b and fan started after
	// a and list finished; make sure the dependency exists at all.
	if _, ok := run.finished["b"]; !ok {
		t.Fatal("b did not finish")
	}
}

// ---------------------------------------------------------------------------
// Plan

const ctPlanFlow = `
flow "planning" {}

input "n" {
  type    = number
  default = 1
}

step "a" {
  use   = "value"
  value = { n = input.n }
}

step "b" {
  use   = "value"
  value = step.a.value.n * 2
}

step "z" {
  use      = "sleep"
  duration = "1ms"
}

step "after_z" {
  use   = "value"
  value = step.z.slept_ms >= 0
}

step "off" {
  use   = "value"
  when  = false
  value = 1
}

step "off_dyn" {
  use   = "value"
  when  = step.a.value.n > 5
  value = 1
}

step "after_off" {
  use   = "value"
  value = coalesce(step.off.value, 7)
}

step "nc" {
  use   = "value"
  cache = false
  value = "x"
}

step "fe" {
  use      = "value"
  for_each = ["p", "q"]
  value    = each.value
}

step "fe_dep" {
  use      = "value"
  for_each = step.b.value > 0 ? ["r"] : []
  value    = each.value
}
`

func ctPlanActions(t *testing.T, prog *compiler.Program, opts Options) map[string]compiler.Action {
	t.Helper()
	plan, diags := Plan(prog, opts)
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags.Error())
	}
	out := map[string]compiler.Action{}
	for _, s := range plan.Steps {
		out[s.Name] = s.Action
	}
	return out
}

func ctExpectActions(t *testing.T, what string, got map[string]compiler.Action, want map[string]compiler.Action) {
	t.Helper()
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %s would %q, want %q", what, name, got[name], w)
		}
	}
}

func TestContractPlan(t *testing.T) {
	prog := ctCompile(t, ctPlanFlow, nil)
	env := newCtEnv(nil)
	st, _ := ctStore(t)
	inputs := func(n int64) map[string]cty.Value {
		return ctInputs(t, prog, map[string]cty.Value{"n": cty.NumberIntVal(n)})
	}

	before := ctPlanActions(t, prog, Options{Store: st, Executors: env.executors(), Inputs: inputs(1)})
	ctExpectActions(t, "plan on an empty store", before, map[string]compiler.Action{
		"a": compiler.ActionRun, "b": compiler.ActionUnknown, "z": compiler.ActionRun, "after_z": compiler.ActionUnknown,
		"off": compiler.ActionSkip, "off_dyn": compiler.ActionUnknown, "after_off": compiler.ActionRun,
		"nc": compiler.ActionRun, "fe": compiler.ActionRun, "fe_dep": compiler.ActionUnknown,
	})
	if n := env.total(); n != 0 {
		t.Errorf("plan called blocks %d times", n)
	}

	run := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), Inputs: inputs(1)}, nil)
	ctExpectRun(t, run, StatusOK)
	ctExpectStatus(t, run, map[string]Status{"off": StatusSkipped, "off_dyn": StatusSkipped, "fe_dep[0]": StatusOK})
	env.reset()

	after := ctPlanActions(t, prog, Options{Store: st, Executors: env.executors(), Inputs: inputs(1)})
	ctExpectActions(t, "plan after apply", after, map[string]compiler.Action{
		"a": compiler.ActionCached, "b": compiler.ActionCached, "z": compiler.ActionRun, "after_z": compiler.ActionUnknown,
		"off": compiler.ActionSkip, "off_dyn": compiler.ActionSkip, "after_off": compiler.ActionCached,
		"nc": compiler.ActionRun, "fe": compiler.ActionCached, "fe_dep": compiler.ActionCached,
	})

	changed := ctPlanActions(t, prog, Options{Store: st, Executors: env.executors(), Inputs: inputs(2)})
	ctExpectActions(t, "plan with n = 2", changed, map[string]compiler.Action{
		"a": compiler.ActionRun, "b": compiler.ActionUnknown, "off_dyn": compiler.ActionUnknown,
		"fe_dep": compiler.ActionUnknown, "after_off": compiler.ActionCached, "fe": compiler.ActionCached,
		"off": compiler.ActionSkip,
	})

	noCache := ctPlanActions(t, prog, Options{Store: st, Executors: env.executors(), Inputs: inputs(1), NoCache: true})
	ctExpectActions(t, "plan with --no-cache", noCache, map[string]compiler.Action{
		"a": compiler.ActionRun, "after_off": compiler.ActionRun, "fe": compiler.ActionRun, "off": compiler.ActionSkip,
	})

	// Planning runs nothing and records no run.
	if n := env.total(); n != 0 {
		t.Errorf("plan called blocks %d times", n)
	}
	runs, err := st.Runs("planning", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Errorf("%d runs stored after one apply and several plans, want 1", len(runs))
	}

	// Apply agrees with the plan: what the plan called cached is cached.
	run2 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors(), Inputs: inputs(1)}, nil)
	ctExpectRun(t, run2, StatusOK)
	ctExpectStatus(t, run2, map[string]Status{
		"a": StatusCached, "b": StatusCached, "after_off": StatusCached, "fe[0]": StatusCached, "fe[1]": StatusCached,
		"fe_dep[0]": StatusCached, "z": StatusOK, "nc": StatusOK, "off": StatusSkipped, "off_dyn": StatusSkipped,
	})
}

// ---------------------------------------------------------------------------
// Cancellation

const ctCancelFlow = `
flow "cancelling" {}

memory "count" {
  type    = number
  default = 0
  value   = memory.count + 1
}

block "blocker" {
  runtime = "js"
  source  = "function execute(input) { return {} }"
  input "name" {
    type = string
  }
  output "name" {
    type = string
  }
}

step "quick" {
  use   = "value"
  value = "done"
}

step "hold" {
  use  = "blocker"
  name = "hold"
}

step "after_hold" {
  use   = "value"
  value = step.hold.name
}

step "fan" {
  use      = "value"
  for_each = ["x", "y"]
  value    = "${each.value}${step.hold.name}"
}

step "nap" {
  use      = "sleep"
  duration = "1ms"
}
`

func TestContractCancelledBeforeStart(t *testing.T) {
	prog := ctCompile(t, ctCancelFlow, nil)
	env := newCtEnv(map[string]ctFn{"blocker": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return map[string]cty.Value{"name": in["name"]}, nil
	}})
	st, _ := ctStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run := ctApply(t, ctx, prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run, StatusCancelled)
	if n := env.total(); n != 0 {
		t.Errorf("a cancelled run called blocks %d times: %v", n, env.calls)
	}
	if len(run.started) != 0 {
		t.Errorf("steps started in a cancelled run: %v", run.started)
	}
	for _, name := range []string{"quick", "hold", "after_hold", "nap"} {
		ctExpectStatus(t, run, map[string]Status{name: StatusCancelled})
	}
	for _, f := range ctInstances(run, "fan") {
		if f.Status != StatusCancelled {
			t.Errorf("%s: %s, want cancelled", Label(f.Step, f.Instance), f.Status)
		}
	}
	if run.runRow != nil && run.runRow.Status != "cancelled" {
		t.Errorf("stored run: %q", run.runRow.Status)
	}
	if m := ctMemory(t, st, "cancelling", ""); len(m) != 0 {
		t.Errorf("a cancelled run stored memory %v", m)
	}
}

func TestContractCancelMidRunKeepsFinished(t *testing.T) {
	prog := ctCompile(t, ctCancelFlow, nil)
	holdStarted := make(chan struct{})
	var once sync.Once
	block := make(chan struct{}) // closed for the second run
	env := newCtEnv(map[string]ctFn{"blocker": func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		once.Do(func() { close(holdStarted) })
		select {
		case <-block:
			return map[string]cty.Value{"name": in["name"]}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return nil, errors.New("never cancelled")
		}
	}})
	st, _ := ctStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quickDone := make(chan struct{})
	napDone := make(chan struct{})
	rec := &ctRec{onEvent: func(e Event) {
		if f, ok := e.(StepFinished); ok {
			switch f.Step {
			case "quick":
				close(quickDone)
			case "nap":
				close(napDone)
			}
		}
	}}
	go func() {
		ctWait(context.Background(), holdStarted)
		ctWait(context.Background(), quickDone)
		ctWait(context.Background(), napDone)
		cancel()
	}()
	run := ctApply(t, ctx, prog, Options{Store: st, Executors: env.executors()}, rec)
	ctExpectRun(t, run, StatusCancelled)
	ctExpectStatus(t, run, map[string]Status{
		"quick": StatusOK, "nap": StatusOK, "hold": StatusCancelled, "after_hold": StatusCancelled,
	})
	for _, f := range ctInstances(run, "fan") {
		if f.Status != StatusCancelled {
			t.Errorf("%s: %s, want cancelled", Label(f.Step, f.Instance), f.Status)
		}
	}
	if len(ctInstances(run, "fan")) == 0 {
		t.Errorf("fan has no step_finished event")
	}
	if r := run.row(t, "quick", ""); r.Status != "ok" {
		t.Errorf("stored quick: %q", r.Status)
	}
	if m := ctMemory(t, st, "cancelling", ""); len(m) != 0 {
		t.Errorf("a cancelled run stored memory %v", m)
	}

	// Applying again reuses what finished.
	close(block)
	env.reset()
	run2 := ctApply(t, context.Background(), prog, Options{Store: st, Executors: env.executors()}, nil)
	ctExpectRun(t, run2, StatusOK)
	ctExpectStatus(t, run2, map[string]Status{
		"quick": StatusCached, "hold": StatusOK, "after_hold": StatusOK, "fan[0]": StatusOK, "fan[1]": StatusOK, "nap": StatusOK,
	})
	ctWant(t, "fan[1]", ctField(t, run2, "fan[1]", "value"), `"yhold"`)
	if m := ctMemory(t, st, "cancelling", ""); !reflect.DeepEqual(m, map[string]any{"count": 1.0}) {
		t.Errorf("memory after the successful run: %v", m)
	}
}
