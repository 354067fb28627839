package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A run recorded in the state that failed, was cancelled or was
// interrupted (its Temporal server lost it) can start again on Temporal
// (apply --engine temporal --resume): a new workflow with the run's ID and
// RunInput.Resume. As a local resumption does (runtime's resume.go), a
// step instance that finished ok, or from the cache, keeps what it
// recorded unless a step it depends on ran again; the others run. An
// approval decided while the run could not take it is taken when its step
// waits. The run's events go on from the last one recorded.

const resumeActivity = "flowctl.resume"

// ResumeOutput is what a run started again takes from its record.
type ResumeOutput struct {
	Kept      []KeptResult       `json:"kept,omitempty"`
	Decisions []ApprovalDecision `json:"decisions,omitempty"`
	// LastSeq is the number of the run's last recorded event.
	LastSeq int `json:"last_seq,omitempty"`
}

// A KeptResult is a step instance's recorded result that a run started
// again may keep.
type KeptResult struct {
	Step     string          `json:"step"`
	Instance string          `json:"instance,omitempty"`
	Status   string          `json:"status"`
	Outputs  json.RawMessage `json:"outputs"`
	Attempts int             `json:"attempts,omitempty"`
	Duration time.Duration   `json:"duration,omitempty"`
	Usage    json.RawMessage `json:"usage,omitempty"`
}

// resume reads what a run started again keeps from its record.
func (e *Engine) resume(ctx context.Context, in RunInput) (*ResumeOutput, error) {
	st := e.store(in.Flow)
	if st == nil {
		return nil, temporal.NewNonRetryableApplicationError("starting a run again needs the state it is recorded in", finalError, nil)
	}
	if _, err := st.Run(in.RunID); errors.Is(err, state.ErrRunNotFound) {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"the state of this worker has no run %s: the workers and the client that starts a run again must share the state (docs/scale-out.md)", in.RunID), finalError, nil)
	} else if err != nil {
		return nil, err
	}
	steps, err := st.Steps(in.RunID)
	if err != nil {
		return nil, err
	}
	out := &ResumeOutput{}
	taken := map[string]bool{}
	for _, sr := range steps {
		if (sr.Status == string(runtime.StatusOK) || sr.Status == string(runtime.StatusCached)) && !sr.Sensitive && sr.Outputs != nil {
			out.Kept = append(out.Kept, KeptResult{Step: sr.Step, Instance: sr.Instance, Status: sr.Status, Outputs: sr.Outputs,
				Attempts: sr.Attempts, Duration: sr.FinishedAt.Sub(sr.StartedAt), Usage: sr.Usage})
			taken[approvalKey(sr.Step, sr.Instance)] = true
		}
	}
	as, err := st.Approvals(in.RunID)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		if a.Decided() && !a.Closed && !taken[approvalKey(a.Step, a.Instance)] {
			out.Decisions = append(out.Decisions, ApprovalDecision{Step: a.Step, Instance: a.Instance, Approved: a.Approved, Comment: a.Comment, By: a.By})
		}
	}
	evs, err := st.Events(in.RunID, 0, 0)
	if err != nil {
		return nil, err
	}
	if len(evs) > 0 {
		out.LastSeq = int(evs[len(evs)-1].Seq)
	}
	e.log().Info("run started again", "run", in.RunID, "flow", in.Flow, "source", short(in.SourceHash), "kept", len(out.Kept))
	return out, nil
}

// resume takes what a run started again keeps.
func (d *driver) resume(p ResumeOutput) {
	d.prior, d.ran = map[string]KeptResult{}, map[string]bool{}
	for _, k := range p.Kept {
		d.prior[approvalKey(k.Step, k.Instance)] = k
	}
	for _, a := range p.Decisions {
		d.approvals[approvalKey(a.Step, a.Instance)] = a
	}
	d.base = p.LastSeq
}

// kept is the outcome of a task that keeps its recorded result: it
// finished ok before, and no step it depends on (through value steps,
// which the workflow evaluates again) ran again.
func (d *driver) kept(t *runtime.Task) (runtime.Outcome, bool) {
	k, ok := d.prior[approvalKey(t.Step.Name, t.Key.String())]
	if !ok || d.upstreamRan(t.Step, map[*compiler.Step]bool{}) {
		return runtime.Outcome{}, false
	}
	v, err := decode(k.Outputs)
	if err != nil {
		return runtime.Outcome{}, false
	}
	var usage *blocks.Usage
	if len(k.Usage) > 0 {
		var u blocks.Usage
		if json.Unmarshal(k.Usage, &u) == nil {
			usage = &u
		}
	}
	return runtime.Outcome{Status: runtime.Status(k.Status), Outputs: v, Attempts: k.Attempts, Usage: usage,
		Recorded: true, Started: workflow.Now(d.ctx).Add(-k.Duration)}, true
}

func (d *driver) upstreamRan(s *compiler.Step, seen map[*compiler.Step]bool) bool {
	for _, dep := range s.Deps {
		if seen[dep] {
			continue
		}
		seen[dep] = true
		if d.ran[dep.Name] || d.upstreamRan(dep, seen) {
			return true
		}
	}
	return false
}

// keep ends a task with its recorded result: its step_finished says
// resumed, and it has no step_started, as in a local resumption.
func (d *driver) keep(t *runtime.Task, o runtime.Outcome) {
	key, _ := encode(t.Key.Value)
	for i := len(d.events) - 1; i >= d.recorded; i-- {
		if ev := d.events[i]; ev.Type == "step_started" && ev.Step == t.Step.Name && bytes.Equal(ev.Instance, key) {
			d.events = append(d.events[:i], d.events[i+1:]...)
			break
		}
	}
	d.keeping, d.keepingKey = t.Step.Name, key
	tasks := d.m.Done(t.ID, o)
	d.keeping = ""
	d.launch(tasks)
}
