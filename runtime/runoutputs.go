package runtime

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// The outputs of a recorded run, as flowctl output reads them: which run
// (OutputRun), what it recorded (RunOutputs) and one output's value
// (OutputValue). A problem the user can fix is an hcl.Diagnostics error;
// a run id that names no run, or several, is state's error as it is
// (state.ErrRunNotFound, state.ErrAmbiguousRun).

// OutputRun is the run whose outputs output prints: the one given by id,
// else the newest successful top-level run of flow ("" for any) in
// namespace.
func OutputRun(st *state.Store, flow, namespace, id string) (*state.Run, error) {
	if id != "" {
		run, err := st.Run(id)
		if err != nil {
			return nil, err
		}
		if run.Status == "running" {
			return nil, failure("Run not finished", "Run %s of flow %q is still running (or its process was killed); its outputs are recorded when it ends.", run.ID, run.Flow)
		}
		return run, nil
	}
	runs, err := st.ListRuns(state.RunFilter{Flow: flow, Namespace: namespace, Status: "ok", TopLevel: true}, 1)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, failure("No successful run", "The state holds no successful run yet; outputs are recorded when a run succeeds. Name a failed run with --run RUN_ID to see the outputs it has.")
	}
	return runs[0], nil
}

// RunOutputs reads a run's stored outputs and the outputs it has no value
// for.
func RunOutputs(run *state.Run) (map[string]any, []FailedOutput, error) {
	outputs := map[string]any{}
	var failed []FailedOutput
	if recorded(run.Outputs) {
		if err := json.Unmarshal(run.Outputs, &outputs); err != nil {
			return nil, nil, fmt.Errorf("reading the outputs of run %s: %w", run.ID, err)
		}
	}
	if recorded(run.FailedOutputs) {
		if err := json.Unmarshal(run.FailedOutputs, &failed); err != nil {
			return nil, nil, fmt.Errorf("reading the outputs of run %s: %w", run.ID, err)
		}
	}
	return outputs, failed, nil
}

// recorded reports whether raw holds a value: neither nothing nor null.
func recorded(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// OutputValue is the value of one output of a run (outputs and failed as
// RunOutputs reads them), or the error that says why there is none.
func OutputValue(run *state.Run, name string, outputs map[string]any, failed []FailedOutput) (any, error) {
	v, ok := outputs[name]
	if !ok {
		for _, f := range failed {
			if f.Name == name {
				return nil, failure("Output without a value", "Run %s of flow %q (%s) has no value for output %q: %s.", run.ID, run.Flow, run.Status, name, strings.TrimRight(f.Reason, "."))
			}
		}
		names := lang.SortedKeys(outputs)
		for _, f := range failed {
			names = append(names, f.Name)
		}
		slices.Sort(names)
		return nil, failure("Unknown output", "Run %s of flow %q has no output %q.%s", run.ID, run.Flow, name, lang.Suggest(name, names))
	}
	return v, nil
}

// failure is one error diagnostic without a source range, as an error.
func failure(summary, format string, args ...any) error {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)}}
}
