package runtime

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// MaxStoredOutputs bounds the outputs of one step instance, as the state
// stores them (JSON): a step that returns more fails, before anything is
// recorded, rather than making the run's record fail or fill the disk.
const MaxStoredOutputs = 256 << 20

// storable encodes a step instance's outputs for the state, refusing
// outputs larger than limit (MaxStoredOutputs).
func storable(v cty.Value, limit int) (json.RawMessage, error) {
	raw, err := EncodeValue(v)
	if err != nil {
		return nil, fmt.Errorf("its outputs cannot be stored: %w", err)
	}
	if len(raw) > limit {
		return nil, fmt.Errorf("its outputs are %s as the state stores them, more than the %s a step result may hold",
			mib(len(raw)), mib(limit))
	}
	return raw, nil
}

func mib(n int) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// ending is how an instance ended.
type ending struct {
	status   Status
	value    cty.Value       // the instance's outputs object
	raw      json.RawMessage // value as stored, for ok and cached results that are not sensitive
	err      string          // the error, or why it was skipped or cancelled
	key      string          // the cache key under which to store an ok result
	attempts int
	usage    *blocks.Usage
	log      string // what the instance printed
	// recorded: the engine that ran the instance recorded its result
	// (Machine.Done).
	recorded bool
	notices  *notices // what its block reported while it ran; nil: nothing
}

// endInstance records and reports how an instance ended.
func (r *run) endInstance(s *compiler.Step, inst instance, start time.Time, e ending) instanceResult {
	now := time.Now()
	status, value, key, attempts, usage := e.status, e.value, e.key, e.attempts, e.usage
	errText := r.redact.redact(e.err)
	sensitive := lang.IsSensitive(value)
	res := state.StepResult{
		RunID: r.id, Step: s.Name, Instance: inst.key.String(), Status: string(status), Attempts: attempts,
		StartedAt: start, FinishedAt: now, Sensitive: sensitive, Error: errText, CacheKey: key, Log: e.log,
	}
	if !sensitive && e.raw != nil {
		res.Outputs = e.raw
		if status == StatusOK && key != "" && r.opts.Store != nil {
			r.opts.Store.CachePut(key, r.prog.Flow.Name, s.Name, e.raw)
		}
	}
	if usage != nil {
		res.Usage, _ = json.Marshal(usage)
		r.mu.Lock()
		r.usage = addUsage(r.usage, usage)
		r.mu.Unlock()
	}
	if !e.recorded {
		r.record(res)
	}
	if status == StatusOK || status == StatusCached {
		r.settle()
	}
	ev := StepFinished{
		Time: now, Step: s.Name, Instance: inst.key, Status: status, Attempts: attempts,
		Duration: now.Sub(start), Error: errText, Outputs: value, Usage: usage,
	}
	ev.Retries, ev.Waited = e.notices.counts()
	if status == StatusSkipped || status == StatusCancelled {
		ev.Reason, ev.Error = errText, ""
	}
	emit(r, ev)
	return instanceResult{value: value, status: status}
}

// recordUnstarted records a step that never started: skipped because a
// dependency failed, or cancelled.
func (r *run) recordUnstarted(s *stepRun, status Status, reason string) {
	now := time.Now()
	r.record(state.StepResult{
		RunID: r.id, Step: s.step.Name, Status: string(status), StartedAt: now, FinishedAt: now, Error: reason,
	})
	emit(r, StepFinished{Time: now, Step: s.step.Name, Instance: NoKey, Status: status, Reason: reason})
}

// failUnstarted records a step whose for_each could not be evaluated.
func (r *run) failUnstarted(s *stepRun, diags hcl.Diagnostics) {
	now := time.Now()
	msg := r.redact.redact(DiagText(diags))
	r.record(state.StepResult{
		RunID: r.id, Step: s.step.Name, Status: string(StatusFailed), StartedAt: now, FinishedAt: now, Error: msg,
	})
	r.addStepDiags(s.step, diags)
	if s.step.OnError != lang.OnErrorContinue {
		r.mu.Lock()
		r.failed = true
		r.mu.Unlock()
	}
	emit(r, StepFinished{Time: now, Step: s.step.Name, Instance: NoKey, Status: StatusFailed, Error: msg})
}

// record hands a step result over. It takes the result by value: the
// store copies it, so a result recorded in the store is not allocated
// twice.
func (r *run) record(res state.StepResult) {
	if r.opts.Record != nil {
		c := res
		r.opts.Record(&c)
	} else if r.opts.Store != nil {
		r.opts.Store.RecordStep(&res)
	}
}
