package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// stepRun is a step's progress in a run.
type stepRun struct {
	step    *compiler.Step
	pending int       // dependencies not yet finished (run.mu)
	value   cty.Value // what step.NAME evaluates to, once finished (run.mu)
	// blocked: the step failed (without on_error = "continue"), was
	// cancelled, or was skipped because of either; its dependents are
	// skipped (or cancelled) in turn.
	blocked   bool
	cancelled bool
	// waiting: the step, or one it depends on, waits for an approval;
	// it is blocked, but neither failed nor skipped: it runs when the run
	// is resumed after the decision.
	waiting bool
	// failedBy names the failed (or waiting) step that blocked this one:
	// itself, or the upstream step it was skipped for.
	failedBy string
	// reran: in a resumed run, an instance of the step ran again (did not
	// keep what it recorded), so its dependents do not keep theirs.
	reran bool
	// started is when its instances began (beginStep).
	started time.Time
	// untargeted: the run has targets, and this step is not one of them
	// nor a step they depend on; it does not run.
	untargeted bool
	// holders, in a run that releases values (releaseValues), is how
	// many of the step's dependents have not finished, plus one when an
	// output or a memory refers to it; at zero its value is dropped.
	holders int
}

// instance is one instance of a step: the step itself, or one element of
// its for_each.
type instance struct {
	key  Key
	each *compiler.Each
}

// instanceResult is how an instance ended.
type instanceResult struct {
	value  cty.Value // the instance's outputs object
	status Status
	kept   bool // recorded before the run was resumed
	// retry: the instance failed in a way another attempt may not (its
	// block's error, not its inputs' or its result's shape).
	retry bool
}

// maxInstanceGoroutines bounds how many instances of one for_each step
// run at once when neither the step's parallelism nor its executor bounds
// them (sleep, http, llm and file steps, which hold nothing while they
// wait): each instance running holds a goroutine, whose stack has grown to
// what evaluating an expression needs, and its evaluated inputs, so a
// for_each over 100,000 items would otherwise hold 100,000 of each. A
// variable for tests.
var maxInstanceGoroutines = 4096

// runSteps runs a step whose dependencies have finished, then, on the same
// goroutine, one of the dependents that it made ready; the others get
// goroutines of their own. A chain of steps thus runs on one goroutine,
// whose stack has already grown to what a step needs.
func (r *run) runSteps(ctx context.Context, s *stepRun) {
	for s != nil {
		ready := r.runStep(ctx, s)
		r.wg.Done()
		s = nil
		for i, ds := range ready {
			if i == 0 {
				s = ds
				continue
			}
			go r.runSteps(ctx, ds)
		}
	}
}

// runStep runs every instance of a step, hands the step's value to its
// dependents, and returns those that no longer wait for anything.
func (r *run) runStep(ctx context.Context, s *stepRun) []*stepRun {
	r.holdWhilePaused(ctx)
	instances, isMap, ready, done := r.beginStep(s, ctx.Err() != nil)
	if done {
		return ready
	}
	results := make([]instanceResult, len(instances))
	if s.step.ForEach == nil {
		results[0] = r.runInstance(ctx, s.step, instances[0])
	} else {
		// As many instances run at once as the step's parallelism, or
		// the executor, allows; each of these goroutines takes the next
		// instance in order when it is done with one. The executor's
		// width is asked again as instances end (the sandbox's grows as
		// it learns that the block's calls are short): a goroutine starts
		// another while there are fewer than it, and ends while there
		// are more.
		bounded, _ := r.executor(s.step).(blocks.Bounded)
		widthNow := func() int {
			width := min(len(instances), maxInstanceGoroutines)
			if s.step.Parallelism > 0 {
				width = min(width, s.step.Parallelism)
			}
			if bounded != nil {
				if w := bounded.Width(s.step.Block); w > 0 {
					width = min(width, w)
				}
			}
			return max(width, 1)
		}
		r.readCacheGroup(s.step, len(instances))
		defer r.cacheGroups.Delete(s.step)
		var next, running atomic.Int64
		var wg sync.WaitGroup
		var shape sharedType
		var work func()
		work = func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(instances) {
					return
				}
				res := r.runInstance(ctx, s.step, instances[i])
				res.value = shape.share(res.value)
				results[i] = res
				width := int64(widthNow())
				for n := running.Load(); n < width && int(next.Load()) < len(instances); n = running.Load() {
					if running.CompareAndSwap(n, n+1) {
						wg.Go(work)
					}
				}
				if n := running.Load(); n > width && running.CompareAndSwap(n, n-1) {
					return
				}
			}
		}
		width := widthNow()
		running.Store(int64(width))
		for range width {
			wg.Go(work)
		}
		wg.Wait()
	}
	return r.endStep(s, instances, isMap, results)
}

// beginStep decides what becomes of a step whose dependencies have
// finished (cancelled: the run was cancelled). Either it does not run —
// it is not targeted, waits, is cancelled or skipped, or its for_each
// fails — and done is true, with the dependents it made ready; or its
// instances are to run, then endStep ends it.
func (r *run) beginStep(s *stepRun, cancelled bool) (instances []instance, isMap bool, ready []*stepRun, done bool) {
	if r.targeted != nil && !r.targeted[s.step.Index] {
		// Its dependents are not targeted either.
		s.untargeted = true
		return nil, false, r.finishStep(s, nullOutputs(s.step), false, false), true
	}
	blocked, upCancelled, waiting, upstream := r.upstream(s)
	switch {
	case waiting && !upCancelled && !cancelled:
		// Nothing is recorded: the step runs when the run is resumed.
		s.waiting, s.failedBy = true, upstream
		return nil, false, r.finishStep(s, nullOutputs(s.step), true, false), true
	case upCancelled || (cancelled && r.prior[s.step.Name] == nil):
		// (A resumed run's step that recorded results goes on to its
		// instances, which keep what finished.)
		r.recordUnstarted(s, StatusCancelled, "the run was cancelled")
		return nil, false, r.finishStep(s, nullOutputs(s.step), true, true), true
	case blocked:
		r.recordUnstarted(s, StatusSkipped, "upstream step "+upstream+" failed")
		s.failedBy = upstream
		return nil, false, r.finishStep(s, nullOutputs(s.step), true, false), true
	}

	s.failedBy = s.step.Name
	instances, isMap, diags := r.expand(s.step)
	if diags.HasErrors() {
		r.failUnstarted(s, diags)
		return nil, false, r.finishStep(s, cty.NullVal(s.step.Value.Type()), s.step.OnError != lang.OnErrorContinue, false), true
	}
	s.started = time.Now()
	return instances, isMap, nil, false
}

// endStep ends a step whose instances have all ended, with their results,
// and returns the dependents it made ready.
func (r *run) endStep(s *stepRun, instances []instance, isMap bool, results []instanceResult) []*stepRun {
	if s.step.ForEach != nil {
		emit(r, StepEnded{Step: s.step.Name, Instances: len(instances), Duration: time.Since(s.started)})
	}
	failed, cancelled, waiting := false, false, false
	vals := make([]cty.Value, len(results))
	for i, res := range results {
		vals[i] = res.value
		if res.status == StatusFailed && s.step.ForEach != nil {
			// A failed instance has no value: null, so that a flow counts
			// its failures with r == null. (A step without for_each keeps
			// an object of null outputs: step.NAME.OUTPUT is null, as
			// for a skipped step.)
			vals[i] = cty.NullVal(s.step.OutputType)
		}
		failed = failed || res.status == StatusFailed
		cancelled = cancelled || res.status == StatusCancelled
		waiting = waiting || res.status == StatusWaiting
		s.reran = s.reran || (!res.kept && res.status != StatusSkipped)
	}
	if waiting && !failed && !cancelled {
		s.waiting = true
		return r.finishStep(s, nullOutputs(s.step), true, false)
	}
	var value cty.Value
	if s.step.ForEach == nil {
		value = vals[0]
	} else {
		value = assemble(instances, vals, isMap)
	}
	blocked := cancelled || (failed && s.step.OnError != lang.OnErrorContinue)
	if failed && s.step.OnError != lang.OnErrorContinue {
		r.mu.Lock()
		r.failed = true
		r.mu.Unlock()
	}
	return r.finishStep(s, value, blocked, cancelled)
}

// upstream reports whether a dependency blocks the step — it failed, was
// cancelled, or waits for an approval — and names the failed (or waiting)
// step behind it. A failure upstream wins over a wait.
func (r *run) upstream(s *stepRun) (blocked, cancelled, waiting bool, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range s.step.Deps {
		ds := r.steps[d.Index]
		switch {
		case ds.cancelled:
			return true, true, false, d.Name
		case ds.blocked && !ds.waiting && (!blocked || waiting):
			blocked, waiting, name = true, false, ds.failedBy
		case ds.waiting && !blocked:
			blocked, waiting, name = true, true, ds.failedBy
		}
	}
	return blocked, false, waiting, name
}

// finishStep publishes the step's value and returns the dependents that no
// longer wait for anything.
func (r *run) finishStep(s *stepRun, value cty.Value, blocked, cancelled bool) []*stepRun {
	r.mu.Lock()
	s.value, s.blocked, s.cancelled = value, blocked, cancelled
	var ready []*stepRun
	for _, d := range s.step.Dependents {
		ds := r.steps[d.Index]
		ds.pending--
		if ds.pending == 0 {
			ready = append(ready, ds)
		}
	}
	if r.release {
		// Nothing evaluates this step's expressions any more.
		if s.holders == 0 {
			s.value = cty.NilVal
		}
		for _, d := range s.step.Deps {
			ds := r.steps[d.Index]
			if ds.holders--; ds.holders == 0 {
				ds.value = cty.NilVal
			}
		}
	}
	r.mu.Unlock()
	return ready
}

// releaseValues makes the run drop each step's value once nothing is
// left to evaluate that refers to it: every step that depends on it has
// finished, and no output or memory refers to it (they are evaluated
// when the run ends). A run of thousands of steps then holds the values
// of the steps still running and of those they need, not of all that
// ran.
func (r *run) releaseValues() {
	r.release = true
	for _, s := range r.steps {
		s.holders = len(s.step.Dependents)
	}
	for _, steps := range r.prog.OutputSteps {
		for _, s := range steps {
			r.steps[s.Index].holders++
		}
	}
	for _, steps := range r.prog.MemorySteps {
		for _, s := range steps {
			r.steps[s.Index].holders++
		}
	}
}

// expand evaluates a step's for_each into its instances.
func (r *run) expand(s *compiler.Step) ([]instance, bool, hcl.Diagnostics) {
	if s.ForEach == nil {
		return []instance{{key: NoKey}}, false, nil
	}
	v, _, diags := r.scope.Eval(s.ForEach, nil)
	if diags.HasErrors() {
		return nil, false, diags
	}
	sensitive, known := r.forEachFacts(s.ForEach, v)
	if d := compiler.CheckForEachSensitive(s, v, sensitive); d.HasErrors() {
		return nil, false, d
	}
	if !known {
		return nil, false, lang.Error(s.ForEach.Range(), "Invalid for_each", "The for_each value of step %q is not known.", s.Name)
	}
	ty := v.Type()
	// A map or an object is keyed by its keys; a list, set or tuple by
	// index (CheckForEach allows nothing else).
	isMap := !(ty.IsListType() || ty.IsSetType() || ty.IsTupleType())
	n := v.LengthInt()
	out := make([]instance, 0, n)
	each := make([]compiler.Each, n) // one allocation for all instances
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		k, e := it.Element() // a list's or a tuple's key is the index
		if ty.IsSetType() {
			k = cty.NumberIntVal(int64(i)) // a set's is the element
		}
		// Known, and nothing sensitive inside (CheckForEachSensitive).
		each[i] = compiler.Each{Key: k, Value: e, Plain: true}
		out = append(out, instance{key: Key{Value: k}, each: &each[i]})
	}
	return out, isMap, nil
}

// forEachFacts reports whether a step's for_each value holds anything
// sensitive and whether it is wholly known. A for_each over an input (the
// usual for_each = input.items over many records) is not walked again
// when newRun found nothing sensitive or unknown in the input; any other
// value is walked once for both.
func (r *run) forEachFacts(expr hcl.Expression, v cty.Value) (sensitive, known bool) {
	if tr, d := hcl.AbsTraversalForExpr(expr); !d.HasErrors() && len(tr) == 2 && tr.RootName() == lang.RootInput {
		if a, ok := tr[1].(hcl.TraverseAttr); ok && r.plainInputs[a.Name] {
			return false, true
		}
	}
	return lang.SensitiveAndKnown(v)
}

// assemble builds the value of a for_each step from its instances: a list
// by index, or a map by key (a tuple or object when the instances' types
// differ).
func assemble(instances []instance, vals []cty.Value, isMap bool) cty.Value {
	if !isMap {
		if len(vals) == 0 {
			return cty.EmptyTupleVal
		}
		return sameOr(cty.ListVal, cty.TupleVal, vals)
	}
	m := make(map[string]cty.Value, len(vals))
	for i, inst := range instances {
		m[inst.key.Value.AsString()] = vals[i]
	}
	if len(vals) == 0 {
		return cty.EmptyObjectVal
	}
	return sameOr(cty.MapVal, cty.ObjectVal, m)
}

// sameOr returns collection(elems), a list or map, whose elements must all
// have one type, or structure(elems), a tuple or object, when they do
// not. collection checks the types itself and panics when they differ;
// checking them before as well cost as much again as building the
// collection (0.12 s for 100,000 instances, after all of them have run).
func sameOr[E any](collection, structure func(E) cty.Value, elems E) (v cty.Value) {
	defer func() {
		if recover() != nil {
			v = structure(elems)
		}
	}()
	return collection(elems)
}

// nullOutputs is the value of a skipped instance: every output null.
func nullOutputs(s *compiler.Step) cty.Value {
	attrs := make(map[string]cty.Value, len(s.Outputs))
	for _, f := range s.Outputs {
		attrs[f.Name] = cty.NullVal(f.Type.Type)
	}
	return cty.ObjectVal(attrs)
}

// DiagText renders diagnostics one per line, as a model or a log reads
// them: "file:line,col: summary: detail".
func DiagText(diags hcl.Diagnostics) string {
	var out string
	for i, d := range diags {
		if i > 0 {
			out += "\n"
		}
		if d.Subject != nil {
			out += fmt.Sprintf("%s: ", lang.RangeString(*d.Subject))
		}
		out += d.Summary
		if d.Detail != "" {
			out += ": " + d.Detail
		}
	}
	return out
}

// addStepDiags records a step's failure. A step with on_error = "continue"
// does not fail the run, so its errors are kept as warnings.
func (r *run) addStepDiags(s *compiler.Step, diags hcl.Diagnostics) {
	if s.OnError == lang.OnErrorContinue {
		warn := make(hcl.Diagnostics, len(diags))
		for i, d := range diags {
			c := *d
			c.Severity = hcl.DiagWarning
			warn[i] = &c
		}
		diags = warn
	}
	r.addDiags(diags)
}

// executor is the executor of a step, or nil when this build has none
// (each instance then reports it).
func (r *run) executor(s *compiler.Step) blocks.Executor {
	ex, _ := r.executorFor(s)
	return ex
}

// executorFor is the executor of a step: the one Options.Replace gives it,
// else, for a step that uses a flow, one that runs the flow, and for an
// mcp step one that calls the run's MCP server; else its block's. An
// offline run refuses a step whose block calls a model or the network.
func (r *run) executorFor(s *compiler.Step) (blocks.Executor, error) {
	if r.opts.Replace != nil {
		if ex := r.opts.Replace.Executor(s); ex != nil {
			return ex, nil
		}
	}
	if err := r.offline(s.Block); err != nil {
		return nil, err
	}
	switch {
	case s.Flow != nil:
		return flowExecutor{r: r, step: s}, nil
	case s.Block.Builtin() && s.Block.Name == "mcp":
		return mcpExecutor{r}, nil
	case r.opts.Offline && blocks.EmbedsQuery(s.Block) && r.opts.Executors != nil && r.opts.Executors.Builtins[s.Block.Name] != nil:
		// vector_search calls a model only to embed a query given
		// without a vector: offline, that alone is refused.
		plain := r.opts.Executors.Builtins[s.Block.Name]
		return blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
			if v := call.Inputs["vector"]; v == cty.NilVal || v.IsNull() {
				return nil, fmt.Errorf("block %s embeds its query with a model, and %w", s.Block.Name, ErrOffline)
			}
			return plain.Execute(ctx, call)
		}), nil
	}
	return r.opts.Executors.For(s.Block)
}

// ErrOffline is wrapped by the error of a step or tool call that an
// offline run (Options.Offline) refuses.
var ErrOffline = errors.New("the run is offline (a flow test without --live calls no model and no network)")

// offline is the error of running block b in this run: nil unless the run
// is offline and b calls a model or the network.
func (r *run) offline(b *blocks.Block) error {
	if !r.opts.Offline {
		return nil
	}
	var what string
	switch b.Reaches() {
	case "":
		return nil
	case blocks.RemoteModel:
		what = "a model"
	case blocks.RemoteMCP:
		what = "a tool of an MCP server"
	default:
		what = "the network"
	}
	return fmt.Errorf("block %s calls %s, and %w", b.Name, what, ErrOffline)
}

// A sharedType is the type of the first result of a for_each step's
// instances that its other results take on when theirs is equal. Each
// result is an object whose type is a map of its own (cty makes one for
// every object it builds), and a step's results are kept until the last
// has ended: 100,000 of them held 67 MB of type maps alike. (cty keeps one
// element type for a whole list, so the step's value drops them.)
type sharedType struct{ first atomic.Pointer[cty.Value] }

// share returns v with the shared type when its own is equal to it, and
// v when not.
func (s *sharedType) share(v cty.Value) cty.Value {
	p := s.first.Load()
	if p == nil {
		s.first.CompareAndSwap(nil, &v)
		return v
	}
	if v.IsMarked() || !p.Type().Equals(v.Type()) {
		return v
	}
	// An element of a list has the list's element type: the first's.
	return cty.ListVal([]cty.Value{*p, v}).Index(secondIndex)
}

var secondIndex = cty.NumberIntVal(1)
