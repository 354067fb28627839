package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// savedPlan is the file plan --out writes: it pins the flow's source and
// its input values, so that apply runs exactly what was reviewed.
type savedPlan struct {
	FormatVersion string `json:"format_version"`
	// ID names the plan in the state, which records that it was applied
	// (a plan is applied once); a plan written without one is named by
	// the SHA-256 of its file.
	ID         string `json:"id,omitempty"`
	Flow       string `json:"flow"`
	FlowFile   string `json:"flow_file"` // relative to the plan file
	SourceHash string `json:"source_hash"`
	Namespace  string `json:"namespace"`
	NoCache    bool   `json:"no_cache,omitempty"`
	// GoEngine is the --go-engine the plan was made with: apply runs the
	// plan's go blocks with it.
	GoEngine        string                     `json:"go_engine,omitempty"`
	Inputs          map[string]json.RawMessage `json:"inputs"`
	SensitiveInputs []string                   `json:"sensitive_inputs,omitempty"`
	Plan            views.JSONPlan             `json:"plan"`
}

func writeSavedPlan(path string, plan *compiler.Plan, namespace string, noCache bool) error {
	p := plan.Program
	rel, err := filepath.Rel(filepath.Dir(absPath(path)), absPath(p.Filename))
	if err != nil {
		rel = absPath(p.Filename)
	}
	sp := savedPlan{
		FormatVersion: views.JSONFormatVersion, ID: state.NewRunID(), Flow: p.Flow.Name, FlowFile: filepath.ToSlash(rel),
		SourceHash: p.SourceHash, Namespace: namespace, NoCache: noCache, GoEngine: p.GoEngine, Inputs: map[string]json.RawMessage{}, Plan: views.NewJSONPlan(plan, true, defaultModel()),
	}
	for _, in := range p.Inputs {
		v := plan.Inputs[in.Name]
		if in.Sensitive {
			sp.SensitiveInputs = append(sp.SensitiveInputs, in.Name)
			continue
		}
		raw, err := ctyjson.Marshal(v, cty.DynamicPseudoType)
		if err != nil {
			return err
		}
		sp.Inputs[in.Name] = raw
	}
	b, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// isSavedPlan reports whether a path names a saved plan rather than a flow.
func isSavedPlan(path string) bool {
	return filepath.Ext(path) == ".json"
}

// readSavedPlan loads a saved plan and compiles its flow, refusing a plan
// whose flow changed since it was made.
func readSavedPlan(l *flowLoader, path string, given map[string]compiler.InputValue) (*compiler.Program, map[string]cty.Value, *savedPlan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, l.fail(hcl.Diagnostics{pathError(path, err)})
	}
	var sp savedPlan
	if err := json.Unmarshal(b, &sp); err != nil || sp.FormatVersion == "" || sp.SourceHash == "" {
		return nil, nil, nil, l.fail(hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid saved plan",
			Detail: fmt.Sprintf("%s is not a plan written by flowctl plan --out.", path),
		}})
	}
	switch {
	case sp.GoEngine == "" || sp.GoEngine == l.goEngine:
	case l.goEngine == "":
		l.goEngine = sp.GoEngine // the engine the plan shows
	default:
		return nil, nil, nil, usagef("%s was planned with --go-engine %s; apply it with that engine, or make a new plan", path, sp.GoEngine)
	}
	if sp.ID == "" {
		sum := sha256.Sum256(b)
		sp.ID = "sha256-" + hex.EncodeToString(sum[:])
	}
	for name := range given {
		if !contains(sp.SensitiveInputs, name) {
			return nil, nil, nil, usagef("--input %s cannot change a saved plan; only sensitive inputs, which a plan does not store, are given again", name)
		}
	}
	flowFile := filepath.Join(filepath.Dir(path), filepath.FromSlash(sp.FlowFile))
	prog, err := l.compile(flowFile)
	if err != nil {
		return nil, nil, nil, err
	}
	if prog.SourceHash != sp.SourceHash {
		return nil, nil, nil, l.fail(hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Saved plan is stale",
			Detail: fmt.Sprintf("The flow %s or its block files changed since %s was made. Run flowctl plan --out again and review the new plan.", flowFile, path),
		}})
	}
	vals := map[string]compiler.InputValue{}
	for name, raw := range sp.Inputs {
		v, err := ctyjson.Unmarshal(raw, cty.DynamicPseudoType)
		if err != nil {
			return nil, nil, nil, l.fail(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid saved plan", Detail: fmt.Sprintf("Input %q: %s.", name, err)}})
		}
		vals[name] = compiler.InputValue{Value: v, Source: path}
	}
	for _, name := range sp.SensitiveInputs {
		if g, ok := given[name]; ok {
			vals[name] = g
		}
	}
	resolved, diags := prog.ResolveInputs(vals)
	if err := l.check(diags); err != nil {
		return nil, nil, nil, err
	}
	return prog, resolved, &sp, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// claimPlan records that the saved plan sp, read from path, is applied
// by run runID, refusing a plan that was applied before.
func claimPlan(st *state.Store, path string, sp *savedPlan, runID string) error {
	err := st.ApplyPlan(sp.ID, runID)
	var pe *state.PlanAppliedError
	switch {
	case errors.As(err, &pe):
		return failf("Saved plan already applied", "%s was applied on %s (run %s). A saved plan is applied once: what it showed was what would run then. Make a new plan with flowctl plan --out, review it, and apply that.",
			path, pe.At.Format(time.RFC3339), pe.RunID)
	case err != nil:
		return failf("Cannot apply the saved plan", "Recording that %s is applied failed: %s.", path, strings.TrimRight(err.Error(), "."))
	}
	return nil
}
