package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestExamples validates and plans every flow under examples/.
func TestExamples(t *testing.T) {
	flows, err := filepath.Glob("../../../examples/*/*.flow.hcl")
	if err != nil || len(flows) < 3 {
		t.Fatalf("found %d example flows (%v); want at least 3", len(flows), err)
	}
	for _, flow := range flows {
		t.Run(filepath.Base(filepath.Dir(flow)), func(t *testing.T) {
			var out, errOut bytes.Buffer
			s := streams{in: &bytes.Buffer{}, out: &out, err: &errOut}
			if code := Run([]string{"validate", filepath.Dir(flow)}, s); code != 0 {
				t.Fatalf("validate exited %d:\n%s", code, errOut.String())
			}
			out.Reset()
			if code := Run([]string{"plan", "--json", flow}, s); code != 0 {
				t.Fatalf("plan exited %d:\n%s", code, errOut.String())
			}
			var plan jsonPlan
			if err := json.Unmarshal(out.Bytes(), &plan); err != nil {
				t.Fatalf("plan --json: %v\n%s", err, out.String())
			}
			if len(plan.Steps) == 0 || len(plan.CriticalPath) == 0 {
				t.Fatalf("plan of %s has %d steps and critical path %v", flow, len(plan.Steps), plan.CriticalPath)
			}
			for _, s := range plan.Steps {
				if s.Action != "run" && !(s.Action == "skip" && s.Reason == "when is false") && !(s.Action == "unknown" && s.Reason != "") {
					t.Errorf("step %s: action %q (%s) with default inputs", s.Name, s.Action, s.Reason)
				}
			}
		})
	}
}
