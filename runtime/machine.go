package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// A Machine runs a program for an engine that runs step instances itself
// and must be deterministic: the Temporal engine's workflow
// (docs/scale-out.md). It decides what is ready, skips and cancels as a
// local run does, evaluates expressions and runs value steps (and steps
// whose when is false) itself, and hands every other step instance to the
// engine as a Task; the engine reports how each ended with Done. A Machine
// starts no goroutine, reads no state, no secret and no environment: its
// secrets are unknown, so an instance whose when or inputs need one is a
// Task, evaluated where it runs (RunTask). Its methods are called one at a
// time.
type Machine struct {
	r      *run
	open   map[int]*openStep // steps with instances out, by step index
	tasks  map[int]*Task
	nextID int
	left   int // steps not yet finished
	// timedOut: the run's timeout cancelled it (TimedOut); it failed.
	timedOut bool
}

// openStep is a step with instances out.
type openStep struct {
	s         *stepRun
	instances []instance
	isMap     bool
	results   []instanceResult
	out       int
}

// A Task is a step instance for the engine to run.
type Task struct {
	ID   int
	Step *compiler.Step
	Key  Key
	Each *compiler.Each // nil for a step without for_each
	// Inputs are the instance's inputs when the machine could evaluate
	// them (none is sensitive or unknown); nil otherwise.
	Inputs map[string]cty.Value
	// Started is when the machine handed it out.
	Started time.Time
	index   int
}

// An Outcome is how a Task ended.
type Outcome struct {
	Status   Status
	Outputs  cty.Value // the instance's outputs object, for ok and cached
	Error    string    // redacted
	Attempts int
	Usage    *blocks.Usage
	Log      string
	// Recorded: the engine recorded the instance's result in the state
	// (RunTask does), so the machine does not.
	Recorded bool
	// Started is when the instance started, zero for the task's start.
	Started time.Time
	// Retries and Waited are its block's retries within its attempts and
	// the time waited before them (StepFinished).
	Retries int
	Waited  time.Duration
}

// MachineOptions configure a Machine: Options' fields of the same names.
type MachineOptions struct {
	RunID, Namespace string
	Inputs           map[string]cty.Value
	// Memory are the memories' values at the start (their defaults when
	// missing).
	Memory  map[string]cty.Value
	Observe func(Event)
	Record  func(*state.StepResult)
	Targets []string
}

// NewMachine prepares a run of prog for an engine.
func NewMachine(prog *compiler.Program, opts MachineOptions) (*Machine, hcl.Diagnostics) {
	r, diags := newRun(prog, Options{
		RunID: opts.RunID, Namespace: opts.Namespace, Inputs: opts.Inputs, Observe: opts.Observe,
		Record: opts.Record, Targets: opts.Targets, noSecrets: true,
	})
	if diags.HasErrors() {
		return nil, diags
	}
	for _, m := range prog.Memories {
		r.memory[m.Name] = m.Default
		if v, ok := opts.Memory[m.Name]; ok {
			r.memory[m.Name] = v
		}
	}
	return &Machine{r: r, open: map[int]*openStep{}, tasks: map[int]*Task{}, left: len(r.steps)}, diags
}

// Value is the value of a step that has finished (cty.NilVal before).
func (m *Machine) Value(s *compiler.Step) cty.Value { return m.r.steps[s.Index].value }

// Memory are the memories' values at the start of the run.
func (m *Machine) Memory() map[string]cty.Value { return m.r.memory }

// Start starts the run and returns the first tasks.
func (m *Machine) Start() []*Task {
	emit(m.r, RunStarted{RunID: m.r.id, Flow: m.r.prog.Flow.Name, Steps: len(m.r.prog.Steps)})
	var roots []*stepRun
	for _, s := range m.r.steps {
		if s.pending == 0 {
			roots = append(roots, s)
		}
	}
	return m.begin(roots)
}

// Cancel cancels the run: steps that have not started are cancelled;
// the engine still reports the tasks out (cancelled, as a rule).
func (m *Machine) Cancel() { m.r.halted = true }

// TimedOut fails the run for its timeout (at rng, nil when given on the
// command line) and cancels it.
func (m *Machine) TimedOut(timeout time.Duration, rng *hcl.Range) {
	m.r.addDiags(timeoutDiags(timeout, rng))
	m.timedOut = true
	m.Cancel()
}

// Finished reports whether every step has finished.
func (m *Machine) Finished() bool { return m.left == 0 }

// Done reports how a task ended and returns the tasks it made ready.
func (m *Machine) Done(id int, o Outcome) []*Task {
	t := m.tasks[id]
	if t == nil {
		return nil
	}
	delete(m.tasks, id)
	r, s := m.r, t.Step
	os := m.open[s.Index]
	inst := os.instances[t.index]
	start := o.Started
	if start.IsZero() {
		start = t.Started
	}
	value := o.Outputs
	if o.Status != StatusOK && o.Status != StatusCached || value == cty.NilVal {
		value = nullOutputs(s)
	}
	if o.Status == StatusFailed {
		r.addStepDiags(s, r.stepError(s, inst, errors.New(o.Error)))
	}
	os.results[t.index] = r.endInstance(s, inst, start, ending{
		status: o.Status, value: value, err: o.Error, attempts: o.Attempts, usage: o.Usage, log: o.Log, recorded: o.Recorded,
		notices: &notices{retries: o.Retries, waited: o.Waited},
	})
	os.out--
	if os.out > 0 {
		return nil
	}
	delete(m.open, s.Index)
	m.left--
	return m.begin(r.endStep(os.s, os.instances, os.isMap, os.results))
}

// begin begins steps whose dependencies finished, and those they make
// ready in turn, and returns their tasks.
func (m *Machine) begin(queue []*stepRun) []*Task {
	var tasks []*Task
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		instances, isMap, ready, done := m.r.beginStep(s, m.r.halted)
		if done {
			m.left--
			queue = append(queue, ready...)
			continue
		}
		os := &openStep{s: s, instances: instances, isMap: isMap, results: make([]instanceResult, len(instances))}
		for i := range instances {
			if t := m.dispatch(os, i); t != nil {
				tasks = append(tasks, t)
				os.out++
			}
		}
		if os.out > 0 {
			m.open[s.step.Index] = os
			continue
		}
		m.left--
		queue = append(queue, m.r.endStep(s, instances, isMap, os.results)...)
	}
	return tasks
}

// dispatch runs an instance in the machine when that needs no engine —
// the run is cancelled, its when is false, its inputs fail, or it is a
// value step whose inputs are known — and otherwise returns its task.
func (m *Machine) dispatch(os *openStep, i int) *Task {
	r, s, inst := m.r, os.s.step, os.instances[i]
	inline := r.halted
	if !inline && s.When != nil {
		v, _, diags := r.scope.Eval(s.When, inst.each)
		inline = diags.HasErrors() || v.IsWhollyKnown() && !lang.IsSensitive(v) && v.Equals(cty.False).True()
	}
	var inputs map[string]cty.Value
	if !inline {
		in, marked, unknown, diags := r.evalInputs(s, inst, true)
		switch {
		case diags.HasErrors():
			inline = true
		case !unknown && len(marked) == 0:
			inputs = in
			inline = s.Block.Builtin() && s.Block.Name == "value" && s.Flow == nil
		}
	}
	if inline {
		ctx := context.Background()
		if r.halted {
			c, cancel := context.WithCancel(ctx)
			cancel()
			ctx = c
		}
		os.results[i] = r.runInstance(ctx, s, inst)
		return nil
	}
	m.nextID++
	t := &Task{ID: m.nextID, Step: s, Key: inst.key, Each: inst.each, Inputs: inputs, Started: time.Now(), index: i}
	m.tasks[t.ID] = t
	emit(r, StepStarted{Step: s.Name, Instance: inst.key, Attempt: 1})
	return t
}

// Result ends the run: its status, outputs and diagnostics, and whether
// its memories are to be stored (it succeeded; SaveMemory stores them). It
// emits RunFinished.
func (m *Machine) Result() (*Result, bool) {
	r := m.r
	res := &Result{RunID: r.id, Status: StatusOK}
	switch {
	case m.timedOut || r.failed:
		res.Status = StatusFailed
	case r.halted:
		res.Status = StatusCancelled
	}
	r.evaluate(res)
	save := res.Status == StatusOK && len(r.diags) == 0 && r.targeted == nil && len(r.prog.Memories) > 0
	errText := r.conclude(res)
	emit(r, RunFinished{
		RunID: r.id, Status: res.Status, Outputs: res.Outputs, FailedOutputs: res.FailedOutputs,
		Error: errText, Diagnostics: res.Diagnostics, Usage: res.Usage,
	})
	return res, save
}

// SaveMemory stores the memories of a run that a Machine drove and that
// succeeded, as a local run does at its end: evaluated with the values of
// its steps and the memories as stored, in one transaction. opts give the
// Store, Inputs, Namespace and RunID.
func SaveMemory(prog *compiler.Program, opts Options, steps map[string]cty.Value) error {
	opts.noSecrets = true
	r, diags := newRun(prog, opts)
	if diags.HasErrors() {
		return errors.New(DiagText(diags))
	}
	for name, v := range steps {
		if s := prog.StepsByName[name]; s != nil {
			r.steps[s.Index].value = v
		}
	}
	r.saveMemory()
	if r.diags.HasErrors() {
		return errors.New(DiagText(r.diags))
	}
	return nil
}

// A TaskSpec is a Machine's task as the engine hands it to where it runs.
type TaskSpec struct {
	RunID, Namespace string
	Step             string
	Key              Key
	Each             *compiler.Each
	// Steps are the values of the steps it depends on, by name; Memory
	// the memories' values.
	Steps  map[string]cty.Value
	Memory map[string]cty.Value
	// Attempt numbers this attempt from 1: the engine retries, so the
	// block is called once.
	Attempt int
}

// A TaskResult is how RunTask ended a task: its Outcome, the events it
// emitted besides its start and end (its log lines), and whether another
// attempt may do better.
type TaskResult struct {
	Outcome Outcome
	Events  []Event
	Retry   bool
}

// RunTask runs a Machine's task where the engine runs it: opts give the
// Store (where the result is recorded and the cache read), Inputs,
// Secrets and Executors as for Apply. Its when and inputs are evaluated
// here, with the secrets.
func RunTask(ctx context.Context, prog *compiler.Program, opts Options, t TaskSpec) (*TaskResult, error) {
	s := prog.StepsByName[t.Step]
	if s == nil {
		return nil, fmt.Errorf("flow %q has no step %q", prog.Flow.Name, t.Step)
	}
	out := &TaskResult{}
	var finished *StepFinished
	opts.RunID, opts.Namespace, opts.attempt = t.RunID, t.Namespace, max(t.Attempt, 1)
	opts.Observe = func(e Event) {
		switch e := e.(type) {
		case StepFinished:
			finished = &e
		case StepStarted:
		default:
			out.Events = append(out.Events, e)
		}
	}
	var recorded *state.StepResult
	store := opts.Store
	opts.Record = func(res *state.StepResult) {
		recorded = res
		if store != nil {
			store.RecordStep(res)
		}
	}
	r, diags := newRun(prog, opts)
	if diags.HasErrors() {
		return nil, errors.New(DiagText(diags))
	}
	defer r.closeMCP()
	for name, v := range t.Memory {
		r.memory[name] = v
	}
	for name, v := range t.Steps {
		if d := prog.StepsByName[name]; d != nil {
			r.steps[d.Index].value = v
		}
	}
	res := r.runInstance(ctx, s, instance{key: t.Key, each: t.Each})
	if store != nil {
		if err := store.FlushRun(t.RunID); err != nil {
			return nil, fmt.Errorf("recording step %s: %w", Label(s.Name, t.Key), err)
		}
	}
	o := Outcome{Status: res.status, Outputs: res.value, Recorded: store != nil}
	if finished != nil {
		o.Error, o.Attempts, o.Usage = finished.Error, finished.Attempts, finished.Usage
		o.Retries, o.Waited = finished.Retries, finished.Waited
		if o.Error == "" {
			o.Error = finished.Reason
		}
	}
	if recorded != nil {
		o.Log, o.Started = recorded.Log, recorded.StartedAt
	}
	out.Outcome, out.Retry = o, res.retry
	return out, nil
}
