package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"go.temporal.io/sdk/workflow"
)

// A run on Temporal waits as a local run does: when nothing runs but
// approvals that wait for a decision, its status in the state is
// "waiting" (runs and the API list it with what it waits for) and its
// events end with run_waiting; when a decision (or a deadline) lets it go
// on, a run_started with resumed follows, and the state says "running"
// again. The workflow records this with the checkpoint activity, which
// takes along the events since the last one and the step results the
// workflow decided, so that what a person or a stream reads of a waiting
// run is in the state, not only in the workflow.

// checkpointsChange names the change that added checkpoints, for
// workflow.GetVersion: a run started before it replays without them.
const checkpointsChange = "flowctl.checkpoints"

const checkpointActivity = "flowctl.checkpoint"

// CheckpointInput is what the checkpoint activity records: the run's
// status, and what the workflow has not recorded yet (the finish
// activity records it too).
type CheckpointInput struct {
	RunID string `json:"run_id"`
	Flow  string `json:"flow"`
	// Status is the run's: waiting, or running again.
	Status  string              `json:"status"`
	Records []*state.StepResult `json:"records,omitempty"`
	// Events are the run's events since the last checkpoint, numbered
	// from FirstSeq+1.
	Events   []Event `json:"events,omitempty"`
	FirstSeq int     `json:"first_seq,omitempty"`
}

// settle records that the run waits, once nothing but approvals is out.
func (d *driver) settle() {
	if !d.checkpoints || d.waiting || len(d.waiters) == 0 || d.busy > 0 || d.cancelled || d.m.Finished() {
		return
	}
	d.waiting = true
	ev := Event{Type: "run_waiting", RunID: d.in.RunID}
	for _, k := range lang.SortedKeys(d.waiters) {
		w := d.waiters[k]
		key, _ := encode(w.t.Key.Value)
		ev.Waiting = append(ev.Waiting, wireWaiting{Step: w.req.Step, Instance: key, Message: w.req.Message, Since: w.req.RequestedAt, Deadline: w.req.Deadline})
	}
	d.add(ev)
	d.checkpoint(string(runtime.StatusWaiting))
}

// goOn records that a waiting run goes on, before what a decision or a
// deadline lets run: a run that is cancelled, or ends, records its end
// instead.
func (d *driver) goOn() {
	if !d.waiting {
		return
	}
	d.waiting = false
	if d.cancelled {
		return
	}
	d.add(Event{Type: "run_started", RunID: d.in.RunID, Flow: d.in.Flow, Steps: len(d.prog.Steps), Resumed: true})
	d.checkpoint("running")
}

// checkpoint runs the checkpoint activity, and waits for it: the state
// then says what the workflow does, in the order it does it. A
// checkpoint that fails (the state is unreachable) is logged by the
// worker, and the run goes on: its end is recorded by the finish
// activity.
func (d *driver) checkpoint(status string) {
	workflow.ExecuteLocalActivity(d.lctx, checkpointActivity, d.unrecorded(status)).Get(d.ctx, nil)
}

// unrecorded hands over, with the run's status, what the workflow has not
// recorded yet: the step results and the events since the last
// checkpoint.
func (d *driver) unrecorded(status string) CheckpointInput {
	in := CheckpointInput{RunID: d.in.RunID, Flow: d.in.Flow, Status: status, Records: d.takeRecords(),
		Events: d.events[d.recorded:], FirstSeq: d.base + d.recorded}
	d.recorded = len(d.events)
	return in
}

// record records the step results and the events, and returns the last
// event.
func (in CheckpointInput) record(st *state.Store) runtime.Event {
	for _, r := range in.Records {
		st.RecordStep(r)
	}
	return recordEvents(st, in.RunID, in.FirstSeq, in.Events)
}

// checkpoint records a run's step results and events, and its status.
func (e *Engine) checkpoint(ctx context.Context, in CheckpointInput) error {
	st := e.store(in.Flow)
	if st == nil {
		return nil
	}
	last := in.record(st)
	var err error
	if in.Status == string(runtime.StatusWaiting) {
		var waiting []string
		if rw, ok := last.(runtime.RunWaiting); ok {
			for _, w := range rw.Waiting {
				waiting = append(waiting, runtime.Label(w.Step, w.Instance))
			}
		}
		if err = st.FinishRun(&state.Run{ID: in.RunID, Status: in.Status}); err == nil {
			e.log().Info("run waiting", "run", in.RunID, "flow", in.Flow, "waiting_for", waiting)
		}
	} else {
		err = st.ContinueOnTemporal(in.RunID, nil)
		if errors.Is(err, state.ErrNotResumable) {
			err = nil // running already: this is a retry
		}
		if err == nil {
			err = st.FlushRun(in.RunID)
		}
		if err == nil {
			e.log().Info("run goes on", "run", in.RunID, "flow", in.Flow)
		}
	}
	if err != nil {
		e.log().Error("recording the run's status failed", "run", in.RunID, "flow", in.Flow, "status", in.Status, "error", err.Error())
	}
	return err
}

// recordEvents records events of a run, numbered from first+1, and
// returns the last one.
func recordEvents(st *state.Store, runID string, first int, events []Event) runtime.Event {
	var last runtime.Event
	for i, w := range events {
		ev, err := w.Runtime()
		if err != nil {
			continue
		}
		typ, doc := runtime.EventJSON(ev)
		if doc == nil {
			continue
		}
		data, err := json.Marshal(doc)
		if err != nil {
			continue
		}
		st.RecordEvent(state.Event{RunID: runID, Seq: int64(first + i + 1), Type: typ, Data: data})
		last = ev
	}
	return last
}

// since is how long ago t was, for the logs.
func since(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return time.Since(t).Round(time.Millisecond)
}
