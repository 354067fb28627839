package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/planfile"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// writeSavedPlan writes the file plan --out writes (planfile.Write), with
// the plan as plan --json shows it.
func writeSavedPlan(path string, plan *compiler.Plan, namespace string, noCache bool) error {
	return planfile.Write(path, plan, namespace, noCache, views.NewJSONPlan(plan, true, defaultModel()))
}

// readSavedPlan loads a saved plan and compiles its flow, refusing a plan
// whose flow changed since it was made.
func readSavedPlan(l *flowLoader, path string, given map[string]compiler.InputValue) (*compiler.Program, map[string]cty.Value, *planfile.File, error) {
	sp, diags := planfile.Read(path)
	if diags.HasErrors() {
		return nil, nil, nil, l.fail(diags)
	}
	goEngine, err := sp.Given(path, l.goEngine, given)
	if err != nil {
		return nil, nil, nil, usagef("%s", err)
	}
	l.goEngine = goEngine
	prog, err := l.compile(sp.FlowPath(path))
	if err != nil {
		return nil, nil, nil, err
	}
	vals, diags := sp.Values(path, prog, given)
	if diags.HasErrors() {
		return nil, nil, nil, l.fail(diags)
	}
	resolved, diags := prog.ResolveInputs(vals)
	if err := l.check(diags); err != nil {
		return nil, nil, nil, err
	}
	return prog, resolved, sp, nil
}

// claimPlan records that the saved plan sp, read from path, is applied
// by run runID, refusing a plan that was applied before (planfile.Claim).
func claimPlan(st *state.Store, path string, sp *planfile.File, runID string) error {
	if diags := planfile.Claim(st, path, sp, runID); diags.HasErrors() {
		return failDiags(nil, diags)
	}
	return nil
}
