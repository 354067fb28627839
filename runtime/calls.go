package runtime

import (
	"encoding/json"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
)

// Call traces (docs/llm.md, "Call traces"): every round trip of a step
// with a model server is recorded in the state with its run, numbered in
// the run, as the model block reports it (blocks.ModelCall, redacted by
// the run's redactor before it is written), unless the run records no
// prompts (Options.NoRecordPrompts, a flow's record_prompts = false).

// startCalls numbers the run's calls on from those it recorded before
// (a resumed run).
func (r *run) startCalls() {
	st := r.opts.Store
	if !r.recordsCalls() || !r.opts.Resume {
		return
	}
	if n, err := st.LastCall(r.id); err == nil {
		r.calls.Store(n)
	}
}

func (r *run) recordsCalls() bool {
	return r.opts.Store != nil && !r.opts.NoRecordPrompts && r.prog.Flow.RecordsPrompts()
}

// traceFor is the blocks.Call.Trace of an instance of step s; nil when the
// run records no calls.
func (r *run) traceFor(s *compiler.Step, inst instance) func(blocks.ModelCall) {
	if !r.recordsCalls() || s.Block.Reaches() != blocks.RemoteModel {
		return nil
	}
	st, key := r.opts.Store, inst.key.String()
	return func(c blocks.ModelCall) {
		data, err := json.Marshal(c)
		if err != nil {
			return
		}
		st.RecordCall(state.Call{RunID: r.id, Seq: r.calls.Add(1), Step: s.Name, Instance: key, Data: data})
	}
}
