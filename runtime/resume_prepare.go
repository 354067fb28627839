package runtime

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// What resuming a recorded run takes before it runs, for every entry
// point that resumes one (apply --resume, approve, plan --resume, and
// the temporal engine's client): the flow file, the checks, the inputs,
// and the approvals that were decided meanwhile.

// ResumeFlowFile is the flow file of a recorded run: the one given (a
// command's --flow), else the one the run recorded, which must be found.
func ResumeFlowFile(run *state.Run, given string) (string, hcl.Diagnostics) {
	if given != "" {
		return given, nil
	}
	if _, err := os.Stat(run.FlowFile); err != nil {
		return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Flow not found",
			Detail: fmt.Sprintf("Run %s ran the flow file %s, which is not found from here; name it with --flow.", run.ID, run.FlowFile)}}
	}
	return run.FlowFile, nil
}

// PrepareResume checks that prog can resume run, recorded in st
// (ResumeCheck), and returns the inputs it resumes with: the run's, with
// the values given for its sensitive inputs (ResumeInputs). A run that
// cannot be resumed, or a value given that is not valid, is a
// diagnostic; the error is the state's.
func PrepareResume(prog *compiler.Program, st *state.Store, run *state.Run, given map[string]compiler.InputValue) (map[string]cty.Value, hcl.Diagnostics, error) {
	steps, err := st.Steps(run.ID)
	if err != nil {
		return nil, nil, err
	}
	if err := ResumeCheck(prog, run, steps); err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot resume", Detail: fmt.Sprintf("%s.", trimPeriod(err.Error()))}}, nil
	}
	givenValues := map[string]cty.Value{}
	for name, g := range given {
		v, err := g.Decoded()
		if err != nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid input value",
				Detail: fmt.Sprintf("The value given for input %q by %s is not valid JSON: %s.", name, g.Source, trimPeriod(err.Error()))}}, nil
		}
		givenValues[name] = v
	}
	inputs, diags := ResumeInputs(prog, run, givenValues)
	return inputs, diags, nil
}

func trimPeriod(s string) string { return strings.TrimSuffix(s, ".") }

// DecidedMeanwhile reports whether a waiting run has a decision that no
// step has taken yet: one recorded while the run went on with other steps.
func DecidedMeanwhile(st *state.Store, runID string) bool {
	as, err := st.Approvals(runID)
	if err != nil {
		return false
	}
	for _, a := range as {
		if !a.Closed && a.Decided() {
			return true
		}
	}
	return false
}

// Undecided are the approvals of a run that wait for a decision, and of
// them the one of step's instance whose deadline passed before now, if
// any: why a decision for it could not be recorded (state.ErrNotWaiting).
func Undecided(st *state.Store, runID, step, instance string, now time.Time) (waiting []*state.Approval, expired *state.Approval) {
	as, err := st.Approvals(runID)
	if err != nil {
		return nil, nil
	}
	for _, a := range as {
		if a.Closed || a.Decided() {
			continue
		}
		if a.Step == step && a.Instance == instance && !a.Deadline.IsZero() && now.After(a.Deadline) {
			expired = a
		}
		waiting = append(waiting, a)
	}
	return waiting, expired
}

// NotWaiting explains err, a decision of step's instance that could not
// be recorded because it does not wait for one (state.ErrNotWaiting), as
// a diagnostic: its deadline passed, or which approvals the run waits
// for. Another err is returned as it is.
func NotWaiting(st *state.Store, run *state.Run, step, instance string, err error, now time.Time) error {
	if !errors.Is(err, state.ErrNotWaiting) {
		return err
	}
	label := func(step, instance string) string { return (&state.StepResult{Step: step, Instance: instance}).Label() }
	as, expired := Undecided(st, run.ID, step, instance, now)
	var detail string
	if expired != nil {
		detail = fmt.Sprintf("The deadline of step %s of run %s passed at %s: the step fails when the run resumes (flowctl apply --resume %s).",
			label(step, instance), run.ID, expired.Deadline.Local().Format("2006-01-02 15:04:05"), run.ID)
	} else {
		var waiting []string
		for _, a := range as {
			waiting = append(waiting, label(a.Step, a.Instance))
		}
		detail = fmt.Sprintf("Step %s of run %s (%s) is not waiting for a decision", label(step, instance), run.ID, run.Status)
		if len(waiting) > 0 {
			detail += "; it waits for " + strings.Join(waiting, ", ")
		} else {
			detail += "; the run waits for no approval"
		}
		detail += "."
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Not waiting", Detail: detail}}
}
