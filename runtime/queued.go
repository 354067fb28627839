package runtime

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// QueuedRun is the record of a run of prog with opts' RunID, Inputs,
// Namespace, Origin, ParentRun and ParentStep that is to start later:
// recorded queued (state.Store.QueueRun), with its inputs as a run records
// them (sensitive values hidden), then started by Apply with
// Options.Queued.
func QueuedRun(prog *compiler.Program, opts Options) *state.Run {
	r := &run{prog: prog, opts: opts, inputs: map[string]cty.Value{}}
	for _, in := range prog.Inputs {
		v, ok := opts.Inputs[in.Name]
		if !ok {
			continue
		}
		if sensitive, _ := lang.SensitiveAndKnown(v); in.Sensitive || sensitive {
			v = v.Mark(lang.Sensitive)
		}
		r.inputs[in.Name] = v
	}
	return &state.Run{
		ID: opts.RunID, Flow: prog.Flow.Name, Namespace: opts.Namespace, FlowFile: prog.Filename,
		SourceHash: prog.SourceHash, Inputs: r.inputsJSON(), Origin: opts.Origin,
		ParentRun: opts.ParentRun, ParentStep: opts.ParentStep,
	}
}

// inputsJSON is the JSON of the inputs as stored with the run, an object
// by name, sensitive values hidden. A value with nothing sensitive or
// unknown in it is written as it is, in one pass (jsonval.Append refuses
// a marked or unknown value wherever it is): a list of 100,000 records
// given with --input-file is neither walked first nor turned into Go maps
// to be encoded again.
func (r *run) inputsJSON() json.RawMessage {
	b := []byte{'{'}
	for i, name := range slices.Sorted(maps.Keys(r.inputs)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonval.AppendString(b, name), ':')
		if raw, ok := r.opts.InputsJSON[name]; ok {
			b = append(b, raw...)
			continue
		}
		v := r.inputs[name]
		if !v.IsMarked() {
			if out, err := jsonval.Append(b, v); err == nil {
				b = out
				continue
			}
		}
		plain, _ := json.Marshal(PlainJSON(v))
		b = append(b, plain...)
	}
	return append(b, '}')
}
