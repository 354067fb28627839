package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// An ApprovalRequest is the question an approval step instance asks.
type ApprovalRequest struct {
	RunID    string
	Step     string
	Instance Key
	Message  string
	// Deadline is when the step fails if nobody decided; zero for none.
	Deadline time.Time
}

// A Decision is a person's answer to an approval step.
type Decision struct {
	Approved bool
	Comment  string
	By       string
}

// ErrNoAnswer is returned by an Options.Ask function that cannot get an
// answer (no one to ask): the step then waits, as without Ask.
var ErrNoAnswer = errors.New("no answer")

// isApproval reports whether a step is an approval step: the built-in
// approval block, which the runtime runs itself.
func isApproval(s *compiler.Step) bool { return s.Block.Builtin() && s.Block.Name == "approval" }

// runApproval runs an instance of an approval step. A decision recorded
// for it (by flowctl approve, or the server's API) ends it: approved, it
// gives the decision as its outputs; rejected, it fails with who rejected
// it and why. Without one, it asks through Options.Ask when that is set,
// and otherwise waits: the instance is recorded as waiting with its
// request, and the run goes on with what does not depend on it. The
// step's timeout is how long it waits; after that it takes its
// on_timeout: it fails (the default), fails as a rejection, or ends
// approved. The values given for its input fields are its outputs too.
func (r *run) runApproval(ctx context.Context, s *compiler.Step, inst instance, inputs map[string]cty.Value, start time.Time) instanceResult {
	st, key := r.opts.Store, inst.key.String()
	msg := ""
	if m := inputs["message"]; !m.IsNull() {
		msg = m.AsString()
	}
	var a *state.Approval
	if st != nil {
		var err error
		if a, err = st.Approval(r.id, s.Name, key); err != nil {
			return r.approvalFailed(s, inst, start, err.Error())
		}
	}
	if a == nil || a.Closed {
		a = &state.Approval{RunID: r.id, Step: s.Name, Instance: key, Message: r.redact.redact(msg), RequestedAt: start, Fields: approvalFieldsJSON(s)}
		if s.Timeout != nil && s.Timeout.Duration > 0 {
			a.Deadline = start.Add(s.Timeout.Duration)
		}
		if st != nil {
			if err := st.RequestApproval(a); err != nil {
				return r.approvalFailed(s, inst, start, err.Error())
			}
		}
	}
	// A step with input fields is not asked on a terminal (a yes or no
	// does not fill them in): it waits for flowctl approve --set, or the
	// API.
	if !a.Decided() && r.opts.Ask != nil && len(s.ApprovalInputs) == 0 {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if !a.Deadline.IsZero() {
			actx, cancel = context.WithDeadline(ctx, a.Deadline)
		}
		d, err := r.opts.Ask(actx, ApprovalRequest{RunID: r.id, Step: s.Name, Instance: inst.key, Message: a.Message, Deadline: a.Deadline})
		cancel()
		switch {
		case ctx.Err() != nil:
			return r.endInstance(s, inst, start, ending{status: StatusCancelled, value: nullOutputs(s), err: "the run was cancelled"})
		case err == nil:
			a.DecidedAt, a.Approved, a.Comment, a.By = time.Now(), d.Approved, d.Comment, d.By
			if st != nil {
				if _, err := st.DecideApproval(r.id, s.Name, key, d.Approved, d.Comment, d.By); err != nil {
					return r.approvalFailed(s, inst, start, err.Error())
				}
			}
		case !errors.Is(err, ErrNoAnswer) && !errors.Is(err, context.DeadlineExceeded):
			return r.approvalFailed(s, inst, start, "asking for the decision: "+err.Error())
		}
	}
	switch {
	case a.Decided():
		if st != nil {
			if err := st.CloseApproval(r.id, s.Name, key); err != nil {
				return r.approvalFailed(s, inst, start, err.Error())
			}
		}
		d := Decision{Approved: a.Approved, Comment: a.Comment, By: a.By}
		if o := ApprovalOutcome(d, a.DecidedAt); o.Status != StatusOK {
			return r.approvalFailed(s, inst, start, o.Error)
		}
		return r.approved(s, inst, start, d, a.DecidedAt, a.Inputs)
	case !a.Deadline.IsZero() && !time.Now().Before(a.Deadline):
		if st != nil {
			st.CloseApproval(r.id, s.Name, key)
		}
		timedOut := fmt.Sprintf("nobody decided within its %s timeout", s.Timeout.Duration)
		switch s.OnTimeout {
		case lang.OnTimeoutApprove:
			return r.approved(s, inst, start, Decision{Approved: true, Comment: timedOut, By: OnTimeoutBy}, a.Deadline, nil)
		case lang.OnTimeoutReject:
			return r.approvalFailed(s, inst, start, "rejected on timeout: "+timedOut)
		}
		return r.approvalFailed(s, inst, start, timedOut)
	}
	w := Waiting{Step: s.Name, Instance: inst.key, Message: a.Message, Since: a.RequestedAt, Deadline: a.Deadline}
	for _, f := range s.ApprovalInputs {
		w.Fields = append(w.Fields, f.Name)
	}
	r.mu.Lock()
	r.waiting = append(r.waiting, w)
	r.mu.Unlock()
	r.record(state.StepResult{
		RunID: r.id, Step: s.Name, Instance: key, Status: string(StatusWaiting), StartedAt: a.RequestedAt,
		Error: "waiting for approval",
	})
	emit(r, StepWaiting{Time: time.Now(), Step: s.Name, Instance: inst.key, Message: a.Message, Deadline: a.Deadline})
	return instanceResult{value: nullOutputs(s), status: StatusWaiting}
}

// ApprovalOutcome is how an approval step instance ends with a decision
// made at a time: approved, its outputs are the decision; rejected, it
// fails saying by whom and why.
func ApprovalOutcome(d Decision, at time.Time) Outcome {
	if !d.Approved {
		why := "rejected by " + nonEmpty(d.By, "someone")
		if d.Comment != "" {
			why += ": " + d.Comment
		}
		return Outcome{Status: StatusFailed, Attempts: 1, Error: why}
	}
	return Outcome{Status: StatusOK, Attempts: 1, Outputs: cty.ObjectVal(map[string]cty.Value{
		"approved":   cty.True,
		"comment":    cty.StringVal(d.Comment),
		"by":         cty.StringVal(d.By),
		"decided_at": cty.StringVal(JSONTime(at)),
	})}
}

// OnTimeoutBy is who decided an approval that its on_timeout approved.
const OnTimeoutBy = "on_timeout"

// approved ends an approval instance that was approved at a time, with
// the values given for its input fields (inputs, as recorded).
func (r *run) approved(s *compiler.Step, inst instance, start time.Time, d Decision, at time.Time, inputs json.RawMessage) instanceResult {
	v, err := approvalOutputs(s, d, at, inputs)
	if err != nil {
		return r.approvalFailed(s, inst, start, err.Error())
	}
	raw, err := storable(v, MaxStoredOutputs)
	if err != nil {
		return r.approvalFailed(s, inst, start, err.Error())
	}
	return r.endInstance(s, inst, start, ending{status: StatusOK, value: v, raw: raw, attempts: 1})
}

// approvalFailed ends an approval instance that failed: rejected, timed
// out, or the state could not record it. It is not retried.
func (r *run) approvalFailed(s *compiler.Step, inst instance, start time.Time, why string) instanceResult {
	r.addStepDiags(s, r.stepError(s, inst, errors.New(why)))
	return r.endInstance(s, inst, start, ending{status: StatusFailed, value: nullOutputs(s), err: why, attempts: 1})
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
