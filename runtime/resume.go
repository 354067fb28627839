package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Resuming a run (Options.Resume) continues it under the same ID, with
// its inputs: a step instance that finished ok (or from the cache) keeps
// the outputs it recorded, unless its step's fingerprint changed (its
// arguments, its block, an input, local, memory or secret it refers to, or
// a step it depends on: compiler.Program.StepFingerprints) or a step it
// depends on ran again; every other instance runs — failed, skipped,
// cancelled, waiting for an approval (which then finds the decision), or
// never started. A sensitive result was never stored, so its step runs
// again, and so do the steps that depend on it.
//
// A change reaches the steps whose fingerprint it changes, and no
// others: those run again, all their instances (their code or what they
// refer to changed), but for two exceptions. An instance whose cache key
// is the one it recorded (the same block and the same input values: a step
// downstream of the change whose own inputs came out the same) keeps what
// it recorded. And the instances that finished ok of a step named in
// Options.KeepSucceeded keep what they recorded although the step changed
// (the user says they stand: a fix for the items that failed), unless a
// step it depends on ran again; its other instances run with the new code.
// Kept results are never stored in the cache under the new code's keys:
// the cache holds only what a block computed.

// ErrFlowChanged is wrapped by ResumeCheck's error when the flow changed
// in a way that keeps the run from being resumed.
var ErrFlowChanged = errors.New("the flow changed since the run started")

// ResumeCheck reports whether prog can resume run, whose recorded steps
// are steps: same flow, a status a run can be resumed from, and a change
// whose reach is known. A run recorded without step fingerprints (killed
// before it ended) needs the very same source, and so does a run with a
// step that finished and that the flow no longer has (its record would
// stay with the run). A change that reaches steps that finished is no
// reason to refuse: they run again (ResumeChanged names them).
func ResumeCheck(prog *compiler.Program, run *state.Run, steps []*state.StepResult) error {
	switch {
	case run.Flow != prog.Flow.Name:
		return fmt.Errorf("run %s is of flow %q, not %q", run.ID, run.Flow, prog.Flow.Name)
	case run.Status == "running":
		return fmt.Errorf("run %s is running", run.ID)
	case run.Status == string(StatusOK):
		return fmt.Errorf("run %s finished ok; there is nothing to resume", run.ID)
	case run.SourceHash == prog.SourceHash:
		return nil
	}
	if _, ok := recordedFingerprints(run); !ok {
		return fmt.Errorf("%w: run %s ran another version of flow %q and recorded no step fingerprints (it ended before it could), so what the change reaches is not known; undo the change, or start a new run", ErrFlowChanged, run.ID, run.Flow)
	}
	var gone []string
	for _, sr := range steps {
		if succeeded(sr) && prog.StepsByName[sr.Step] == nil && !slices.Contains(gone, sr.Step) {
			gone = append(gone, sr.Step)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		return fmt.Errorf("%w: run %s finished step %s, which the flow no longer has; restore it to resume the run, or start a new run",
			ErrFlowChanged, run.ID, strings.Join(gone, ", "))
	}
	return nil
}

// ResumeChanged names the steps of prog that run finished (some instance
// ok or from the cache) and that changed since, sorted: a resumption runs
// them again (or, named in Options.KeepSucceeded, only their instances
// that did not succeed). None when the source is the same.
func ResumeChanged(prog *compiler.Program, run *state.Run, steps []*state.StepResult) []string {
	if run.SourceHash == prog.SourceHash {
		return nil
	}
	recorded, _ := recordedFingerprints(run)
	current := prog.StepFingerprints()
	var changed []string
	for _, sr := range steps {
		if succeeded(sr) && recorded[sr.Step] != current[sr.Step] && !slices.Contains(changed, sr.Step) {
			changed = append(changed, sr.Step)
		}
	}
	slices.Sort(changed)
	return changed
}

// recordedFingerprints are the step fingerprints a run recorded; false
// when it recorded none.
func recordedFingerprints(run *state.Run) (map[string]string, bool) {
	var recorded map[string]string
	if len(run.Fingerprints) == 0 || json.Unmarshal(run.Fingerprints, &recorded) != nil {
		return nil, false
	}
	return recorded, true
}

// succeeded reports whether a recorded instance finished ok or from the
// cache.
func succeeded(sr *state.StepResult) bool {
	return sr.Status == string(StatusOK) || sr.Status == string(StatusCached)
}

// ResumeInputs are the inputs a run was started with, from its record. A
// sensitive input was not recorded: its value must be in given (by name),
// else it is an error.
func ResumeInputs(prog *compiler.Program, run *state.Run, given map[string]cty.Value) (map[string]cty.Value, hcl.Diagnostics) {
	var recorded map[string]json.RawMessage
	if len(run.Inputs) > 0 {
		if err := json.Unmarshal(run.Inputs, &recorded); err != nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unreadable run record",
				Detail: fmt.Sprintf("The inputs recorded with run %s cannot be read: %s.", run.ID, err)}}
		}
	}
	out := map[string]cty.Value{}
	var diags hcl.Diagnostics
	for _, in := range prog.Inputs {
		if v, ok := given[in.Name]; ok {
			out[in.Name] = v
			continue
		}
		raw, ok := recorded[in.Name]
		if in.Sensitive || !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Input not recorded",
				Detail: fmt.Sprintf("Input %q of run %s was not recorded (sensitive inputs never are), so the run cannot be resumed without it.", in.Name, run.ID)})
			continue
		}
		v, err := jsonval.Decode(raw)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unreadable run record",
				Detail: fmt.Sprintf("Input %q recorded with run %s cannot be read: %s.", in.Name, run.ID, err)})
			continue
		}
		out[in.Name] = v
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return prog.ResolveInputs(toInputValues(out))
}

func toInputValues(m map[string]cty.Value) map[string]compiler.InputValue {
	out := make(map[string]compiler.InputValue, len(m))
	for k, v := range m {
		out[k] = compiler.InputValue{Value: v, Source: "the run's record"}
	}
	return out
}

// reopen marks the run as running again and reads what it recorded.
func (r *run) reopen() error {
	if err := r.readPrior(); err != nil {
		return err
	}
	return r.opts.Store.ReopenRun(r.id, fingerprintsJSON(r.prog.StepFingerprints()))
}

// readPrior reads what the run RunID recorded, for a resumption or its
// plan: its step results (prior) and the steps the change since reaches
// (stale).
func (r *run) readPrior() error {
	st := r.opts.Store
	if st == nil {
		return errors.New("resuming a run needs the state")
	}
	// The fingerprints of the program that recorded the steps, before this
	// one's replace them.
	run, err := st.Run(r.id)
	if err != nil {
		return err
	}
	current := r.prog.StepFingerprints()
	recorded, _ := recordedFingerprints(run)
	r.stale = map[string]bool{}
	if run.SourceHash != r.prog.SourceHash {
		// (The same source is the same program, whatever fingerprints an
		// older flowctl recorded.)
		for name, fp := range current {
			r.stale[name] = recorded == nil || recorded[name] != fp
		}
	}
	steps, err := st.Steps(r.id)
	if err != nil {
		return err
	}
	r.prior = map[string]map[string]*state.StepResult{}
	for _, sr := range steps {
		m := r.prior[sr.Step]
		if m == nil {
			m = map[string]*state.StepResult{}
			r.prior[sr.Step] = m
		}
		m[sr.Instance] = sr
	}
	return nil
}

// keepSucceededSteps checks Options.KeepSucceeded: steps of the flow
// (NAME or step.NAME), named in a resumption.
func (r *run) keepSucceededSteps() hcl.Diagnostics {
	if len(r.opts.KeepSucceeded) == 0 {
		return nil
	}
	var diags hcl.Diagnostics
	if !r.opts.Resume {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Nothing to keep",
			Detail: "--keep-succeeded keeps the instances that succeeded in a run being resumed; use it with --resume RUN_ID."}}
	}
	r.keepSucceeded = map[string]bool{}
	for _, name := range r.opts.KeepSucceeded {
		name = strings.TrimPrefix(name, "step.")
		if r.prog.StepsByName[name] == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown step",
				Detail: fmt.Sprintf("--keep-succeeded step.%s names no step of flow %q.%s", name, r.prog.Flow.Name, lang.Suggest(name, slices.Sorted(maps.Keys(r.prog.StepsByName))))})
			continue
		}
		r.keepSucceeded[name] = true
	}
	return diags
}

// keepable is a recorded result an instance may keep: it finished ok or
// from the cache, and its outputs were recorded (not sensitive).
func keepable(rec *state.StepResult) bool {
	return rec != nil && succeeded(rec) && !rec.Sensitive && rec.Outputs != nil
}

// keptRecord is the recorded result an instance keeps, when it finished
// ok then and the change since does not reach it: its step did not change
// (or is named in Options.KeepSucceeded) and no step it depends on ran
// again; nil when it must run (or be kept by its cache key: keptSame).
func (r *run) keptRecord(s *compiler.Step, inst instance) *state.StepResult {
	rec := r.prior[s.Name][inst.key.String()]
	if !keepable(rec) || (r.stale[s.Name] && !r.keepSucceeded[s.Name]) {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range s.Deps {
		if r.steps[d.Index].reran {
			return nil
		}
	}
	return rec
}

// sameRecord is the recorded result of an instance whose cache key is
// key, the one it recorded: the same block and the same input values,
// whatever changed upstream; nil when there is none.
func (r *run) sameRecord(s *compiler.Step, inst instance, key string) *state.StepResult {
	rec := r.prior[s.Name][inst.key.String()]
	if key == "" || !keepable(rec) || rec.CacheKey != key {
		return nil
	}
	return rec
}

// kept ends an instance with what it recorded before the run was resumed
// (keptRecord); false when it must run.
func (r *run) kept(s *compiler.Step, inst instance) (instanceResult, bool) {
	if rec := r.keptRecord(s, inst); rec != nil {
		return r.keep(s, inst, rec)
	}
	return instanceResult{}, false
}

// keep ends an instance with rec, what it recorded before the run was
// resumed; false when rec cannot be read.
func (r *run) keep(s *compiler.Step, inst instance, rec *state.StepResult) (instanceResult, bool) {
	v, err := DecodeValue(rec.Outputs)
	if err != nil {
		return instanceResult{}, false
	}
	var usage *blocks.Usage
	if len(rec.Usage) > 0 {
		var u blocks.Usage
		if json.Unmarshal(rec.Usage, &u) == nil {
			usage = &u
			r.mu.Lock()
			r.usage = addUsage(r.usage, usage)
			r.mu.Unlock()
		}
	}
	emit(r, StepFinished{
		Time: time.Now(), Step: s.Name, Instance: inst.key, Status: Status(rec.Status), Attempts: rec.Attempts,
		Duration: rec.FinishedAt.Sub(rec.StartedAt), Outputs: v, Usage: usage, Resumed: true,
	})
	return instanceResult{value: v, status: Status(rec.Status), kept: true}, true
}

// resumeReason says why an instance of a resumed run runs, from what it
// recorded: it failed, was cancelled or skipped, waits, never started, or
// its step changed, or a step it depends on ran again.
func (r *run) resumeReason(s *compiler.Step, inst instance) string {
	rec := r.prior[s.Name][inst.key.String()]
	switch {
	case rec == nil:
		return "not started"
	case rec.Status == string(StatusSkipped):
		return "skipped before"
	case !succeeded(rec):
		return rec.Status
	case rec.Sensitive || rec.Outputs == nil:
		return "sensitive, not recorded"
	case r.stale[s.Name] && !r.keepSucceeded[s.Name]:
		return "changed"
	}
	return "upstream ran again"
}

// fingerprintsJSON is step fingerprints as the state keeps them.
func fingerprintsJSON(fps map[string]string) json.RawMessage {
	b, err := json.Marshal(fps)
	if err != nil {
		return nil
	}
	return b
}

// sortedWaiting are the instances the run waits for, by step and key.
func (r *run) sortedWaiting() []Waiting {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]Waiting(nil), r.waiting...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Step != out[j].Step {
			return out[i].Step < out[j].Step
		}
		return out[i].Instance.String() < out[j].Instance.String()
	})
	return out
}
