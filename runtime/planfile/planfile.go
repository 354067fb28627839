// Package planfile reads and writes saved plans, the files plan --out
// writes and apply runs: a plan pins its flow's source (by its hash) and
// its input values, so that apply runs exactly what was reviewed, and is
// applied once (the state records it). The plan people reviewed is kept
// in the file as the JSON plan shows it, which the caller renders; the
// sibling package compiler makes the plan, runtime/state records that it
// was applied.
package planfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// File is the file plan --out writes: it pins the flow's source and
// its input values, so that apply runs exactly what was reviewed.
type File struct {
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
	// Plan is the plan as it was shown (plan --json's), for people.
	Plan json.RawMessage `json:"plan"`
}

// Write writes plan to path as a saved plan of the memory namespace,
// with noCache (--no-cache); shown is the plan as plan --json shows it.
// Sensitive inputs are not written: apply is given them again.
func Write(path string, plan *compiler.Plan, namespace string, noCache bool, shown any) error {
	p := plan.Program
	rel, err := filepath.Rel(filepath.Dir(lang.AbsPath(path)), lang.AbsPath(p.Filename))
	if err != nil {
		rel = lang.AbsPath(p.Filename)
	}
	raw, err := json.Marshal(shown)
	if err != nil {
		return err
	}
	sp := File{
		FormatVersion: diagjson.FormatVersion, ID: state.NewRunID(), Flow: p.Flow.Name, FlowFile: filepath.ToSlash(rel),
		SourceHash: p.SourceHash, Namespace: namespace, NoCache: noCache, GoEngine: p.GoEngine, Inputs: map[string]json.RawMessage{}, Plan: raw,
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

// Is reports whether a path names a saved plan rather than a flow.
func Is(path string) bool {
	return filepath.Ext(path) == ".json"
}

// Read reads the saved plan at path; a file that is not one is a
// diagnostic.
func Read(path string) (*File, hcl.Diagnostics) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{lang.PathError(path, err)}
	}
	var sp File
	if err := json.Unmarshal(b, &sp); err != nil || sp.FormatVersion == "" || sp.SourceHash == "" {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid saved plan",
			Detail: fmt.Sprintf("%s is not a plan written by flowctl plan --out.", path),
		}}
	}
	if sp.ID == "" {
		sum := sha256.Sum256(b)
		sp.ID = "sha256-" + hex.EncodeToString(sum[:])
	}
	return &sp, nil
}

// Given checks what a command gives with the saved plan sp, read from
// path: its go engine (--go-engine; "" for none), which must be the
// plan's when the plan has one, and input values, which only sensitive
// inputs may have. It returns the engine to compile the flow with; its
// error is a mistake in the command line.
func (sp *File) Given(path, goEngine string, given map[string]compiler.InputValue) (string, error) {
	switch {
	case sp.GoEngine == "" || sp.GoEngine == goEngine:
	case goEngine == "":
		goEngine = sp.GoEngine // the engine the plan shows
	default:
		return "", fmt.Errorf("%s was planned with --go-engine %s; apply it with that engine, or make a new plan", path, sp.GoEngine)
	}
	for name := range given {
		if !slices.Contains(sp.SensitiveInputs, name) {
			return "", fmt.Errorf("--input %s cannot change a saved plan; only sensitive inputs, which a plan does not store, are given again", name)
		}
	}
	return goEngine, nil
}

// FlowPath is the flow file of the saved plan read from path.
func (sp *File) FlowPath(path string) string {
	return filepath.Join(filepath.Dir(path), filepath.FromSlash(sp.FlowFile))
}

// Values are the input values of the saved plan read from path, for its
// flow compiled as prog: the plan's, and the sensitive ones given. A flow
// that changed since the plan was made is refused (the plan is stale).
func (sp *File) Values(path string, prog *compiler.Program, given map[string]compiler.InputValue) (map[string]compiler.InputValue, hcl.Diagnostics) {
	if prog.SourceHash != sp.SourceHash {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Saved plan is stale",
			Detail: fmt.Sprintf("The flow %s or its block files changed since %s was made. Run flowctl plan --out again and review the new plan.", sp.FlowPath(path), path),
		}}
	}
	vals := map[string]compiler.InputValue{}
	for name, raw := range sp.Inputs {
		v, err := ctyjson.Unmarshal(raw, cty.DynamicPseudoType)
		if err != nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid saved plan", Detail: fmt.Sprintf("Input %q: %s.", name, err)}}
		}
		vals[name] = compiler.InputValue{Value: v, Source: path}
	}
	for _, name := range sp.SensitiveInputs {
		if g, ok := given[name]; ok {
			vals[name] = g
		}
	}
	return vals, nil
}

// Claim records that the saved plan sp, read from path, is applied by
// run runID, refusing a plan that was applied before.
func Claim(st *state.Store, path string, sp *File, runID string) hcl.Diagnostics {
	err := st.ApplyPlan(sp.ID, runID)
	var pe *state.PlanAppliedError
	switch {
	case errors.As(err, &pe):
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Saved plan already applied",
			Detail: fmt.Sprintf("%s was applied on %s (run %s). A saved plan is applied once: what it showed was what would run then. Make a new plan with flowctl plan --out, review it, and apply that.",
				path, pe.At.Format(time.RFC3339), pe.RunID)}}
	case err != nil:
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot apply the saved plan",
			Detail: fmt.Sprintf("Recording that %s is applied failed: %s.", path, strings.TrimRight(err.Error(), "."))}}
	}
	return nil
}
