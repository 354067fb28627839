package runtime

import (
	"fmt"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// evaluate gives a finished run's result its outputs and the values of its
// steps.
func (r *run) evaluate(res *Result) {
	res.Outputs, res.FailedOutputs = r.evalOutputs(res.Status == StatusOK && r.targeted == nil)
	if !r.opts.StepValues {
		return
	}
	res.Steps = make(map[string]cty.Value, len(r.steps))
	for _, s := range r.steps {
		res.Steps[s.step.Name] = s.value
	}
}

// conclude fails a result that its diagnostics fail, gives it the
// diagnostics (the failures of instances that failed the same way
// grouped) and usage, and returns its error text (redacted, "" when it
// has no errors).
func (r *run) conclude(res *Result) string {
	if r.diags.HasErrors() && (res.Status == StatusOK || res.Status == StatusWaiting) {
		res.Status, res.Waiting = StatusFailed, nil
	}
	res.Diagnostics = GroupFailures(r.redactDiags(compiler.Normalize(r.diags)))
	res.Usage = r.usage
	return r.redact.redact(RunError(res.Diagnostics))
}

// timeoutDiags say that a run's timeout (at rng, nil when given on the
// command line) ended it.
func timeoutDiags(timeout time.Duration, rng *hcl.Range) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError, Summary: "Run timed out",
		Detail:  fmt.Sprintf("The run did not finish within its %s timeout; the steps still running were cancelled.", timeout),
		Subject: rng,
	}}
}

// evalOutputs evaluates the flow's outputs with the finished steps. When
// the run did not succeed (complete is false), an output is evaluated only
// when every step it refers to finished: one that failed, was skipped for
// a failure upstream or was cancelled has no value to give. An output
// whose expression fails is reported among the diagnostics too.
func (r *run) evalOutputs(complete bool) (map[string]cty.Value, []FailedOutput) {
	out := map[string]cty.Value{}
	var failed []FailedOutput
	for _, o := range r.prog.Outputs {
		if !complete {
			if f, ok := r.unfinished(o); ok {
				failed = append(failed, f)
				continue
			}
		}
		v, _, diags := r.scope.Eval(o.Value, nil)
		if diags.HasErrors() {
			r.addDiags(diags)
			failed = append(failed, FailedOutput{Name: o.Name, Reason: r.redact.redact(DiagText(diags))})
			continue
		}
		out[o.Name] = v
	}
	return out, failed
}

// unfinished says why an output has no value when a step it refers to did
// not finish: the step failed, was skipped because another failed, or was
// cancelled.
func (r *run) unfinished(o *lang.Output) (FailedOutput, bool) {
	for _, s := range r.prog.OutputSteps[o] {
		sr := r.steps[s.Index]
		switch {
		case sr.untargeted:
			return FailedOutput{Name: o.Name, Step: s.Name, Reason: fmt.Sprintf("step %q was not targeted", s.Name)}, true
		case sr.cancelled:
			return FailedOutput{Name: o.Name, Step: s.Name, Reason: fmt.Sprintf("step %q was cancelled", s.Name)}, true
		case sr.waiting && sr.failedBy == s.Name:
			return FailedOutput{Name: o.Name, Step: s.Name, Reason: fmt.Sprintf("step %q waits for approval", s.Name)}, true
		case sr.waiting:
			return FailedOutput{Name: o.Name, Step: s.Name,
				Reason: fmt.Sprintf("step %q waits for step %q, which waits for approval", s.Name, sr.failedBy)}, true
		case sr.blocked && sr.failedBy == s.Name:
			return FailedOutput{Name: o.Name, Step: s.Name, Reason: fmt.Sprintf("step %q failed", s.Name)}, true
		case sr.blocked:
			return FailedOutput{Name: o.Name, Step: s.Name,
				Reason: fmt.Sprintf("step %q was skipped because step %q failed", s.Name, sr.failedBy)}, true
		}
	}
	return FailedOutput{}, false
}
