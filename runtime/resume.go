package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
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
// depends on ran again;
// every other instance runs — failed, skipped, cancelled, waiting for an
// approval (which then finds the decision), or never started. A sensitive
// result was never stored, so its step runs again, and so do the steps
// that depend on it.

// ErrFlowChanged is wrapped by ResumeCheck's error when the flow changed
// in a way that affects the steps the run finished.
var ErrFlowChanged = errors.New("the flow changed since the run started")

// ResumeCheck reports whether prog can resume run, whose recorded steps
// are steps: same flow, a status a run can be resumed from, and no step
// that finished ok changed since (fixing a step that failed is what a
// resumption is for). A run recorded without step fingerprints needs the
// very same source.
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
	var recorded map[string]string
	if len(run.Fingerprints) == 0 || json.Unmarshal(run.Fingerprints, &recorded) != nil {
		return fmt.Errorf("%w: run %s ran another version of flow %q, so its recorded steps may not fit this one; start a new run", ErrFlowChanged, run.ID, run.Flow)
	}
	current := prog.StepFingerprints()
	var changed []string
	for _, sr := range steps {
		if (sr.Status == string(StatusOK) || sr.Status == string(StatusCached)) && recorded[sr.Step] != current[sr.Step] && !slices.Contains(changed, sr.Step) {
			changed = append(changed, sr.Step)
		}
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		return fmt.Errorf("%w: run %s finished step %s, which the change affects (its arguments, its block, an input, local, memory or secret it refers to, or a step it depends on changed); start a new run, or undo the change",
			ErrFlowChanged, run.ID, strings.Join(changed, ", "))
	}
	return nil
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
	var recorded map[string]string
	if len(run.Fingerprints) == 0 || json.Unmarshal(run.Fingerprints, &recorded) != nil {
		recorded = nil
	}
	r.stale = map[string]bool{}
	if run.SourceHash != r.prog.SourceHash {
		// (The same source is the same program, whatever fingerprints an
		// older flowctl recorded.)
		for name, fp := range current {
			r.stale[name] = recorded == nil || recorded[name] != fp
		}
	}
	if err := st.ReopenRun(r.id, fingerprintsJSON(current)); err != nil {
		return err
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

// kept ends an instance with what it recorded before the run was resumed,
// when it finished ok then and no step it depends on ran again; false
// when it must run.
func (r *run) kept(s *compiler.Step, inst instance) (instanceResult, bool) {
	rec := r.prior[s.Name][inst.key.String()]
	if rec == nil || r.stale[s.Name] || (rec.Status != string(StatusOK) && rec.Status != string(StatusCached)) || rec.Sensitive || rec.Outputs == nil {
		return instanceResult{}, false
	}
	r.mu.Lock()
	for _, d := range s.Deps {
		if r.steps[d.Index].reran {
			r.mu.Unlock()
			return instanceResult{}, false
		}
	}
	r.mu.Unlock()
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
