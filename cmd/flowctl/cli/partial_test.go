package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const partialCLIFlow = `flow "partial" {}

step "count" {
  use   = "value"
  value = 3
}

step "read" {
  use  = "file"
  path = "missing.txt"
}

step "shout" {
  use   = "value"
  value = upper(step.read.text)
}

output "count" {
  value = step.count.value
}

output "shout" {
  value = step.shout.value
}
`

// TestPartialOutputsCLI: a failed run prints and records the outputs it
// could compute and says why the others have none; output --run and runs
// show read them back.
func TestPartialOutputsCLI(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "partial.flow.hcl"), []byte(partialCLIFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	flow := filepath.Join(dir, "partial.flow.hcl")

	// For people: the outputs it has, then the ones without a value.
	code, out, _ := runIn("apply", "--auto-approve", flow)
	if code != 1 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	want := "\nOutputs:\ncount = 3\n\nOutputs without a value:\n  shout: step \"shout\" was skipped because step \"read\" failed\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("apply ends with:\n%s\nwant:\n%s", out, want)
	}

	// --json: run_finished has both.
	code, out, _ = runIn("apply", "--auto-approve", "--json", flow)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var fin struct {
		Type          string         `json:"type"`
		RunID         string         `json:"run_id"`
		Status        string         `json:"status"`
		Outputs       map[string]any `json:"outputs"`
		FailedOutputs []struct {
			Name, Step, Reason string
		} `json:"failed_outputs"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &fin); err != nil {
		t.Fatal(err)
	}
	if code != 1 || fin.Type != "run_finished" || fin.Status != "failed" || fin.Outputs["count"] != 3.0 || len(fin.Outputs) != 1 ||
		len(fin.FailedOutputs) != 1 || fin.FailedOutputs[0].Name != "shout" || fin.FailedOutputs[0].Step != "shout" ||
		fin.FailedOutputs[0].Reason != `step "shout" was skipped because step "read" failed` {
		t.Errorf("exit %d, run_finished %s", code, lines[len(lines)-1])
	}

	// output reads the newest successful run by default: there is none.
	code, _, errOut := runIn("output", "--flow", flow)
	if code != 1 || !strings.Contains(errOut, "--run RUN_ID") {
		t.Errorf("output without a successful run: exit %d\n%s", code, errOut)
	}
	// --run reads a failed one.
	code, out, errOut = runIn("output", "--flow", flow, "--run", fin.RunID)
	if code != 0 || out != "count = 3\n" || !strings.Contains(errOut, `shout: step "shout" was skipped because step "read" failed`) {
		t.Errorf("output --run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, _ = runIn("output", "--flow", flow, "--run", fin.RunID, "--json")
	if code != 0 || strings.Join(strings.Fields(out), "") != `{"count":3}` {
		t.Errorf("output --run --json: exit %d\n%s", code, out)
	}
	code, out, _ = runIn("output", "--flow", flow, "--run", fin.RunID, "count")
	if code != 0 || out != "3\n" {
		t.Errorf("output --run NAME: exit %d\n%s", code, out)
	}
	code, _, errOut = runIn("output", "--flow", flow, "--run", fin.RunID, "shout")
	if code != 1 || !strings.Contains(errOut, "Output without a value") || !strings.Contains(errOut, `skipped because step "read" failed`) {
		t.Errorf("output --run of an output without a value: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runIn("output", "--flow", flow, "--run", "zzzzzzzz")
	if code != 1 || !strings.Contains(errOut, "Unknown run") {
		t.Errorf("output --run of an unknown run: exit %d\n%s", code, errOut)
	}

	// runs show shows the step outputs and the run's outputs.
	code, out, _ = runIn("runs", "show", fin.RunID, "--flow", flow)
	for _, want := range []string{"\nStep outputs:\n  count = {\"value\":3}\n", "\nOutputs:\ncount = 3\n", "\nOutputs without a value:\n  shout: "} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show does not show %q:\n%s", want, out)
		}
	}
	code, out, _ = runIn("runs", "show", fin.RunID, "--flow", flow, "--json")
	var show struct {
		Outputs       map[string]any   `json:"outputs"`
		FailedOutputs []map[string]any `json:"failed_outputs"`
		Steps         []struct {
			Step    string         `json:"step"`
			Outputs map[string]any `json:"outputs"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &show); err != nil {
		t.Fatal(err)
	}
	if show.Outputs["count"] != 3.0 || len(show.FailedOutputs) != 1 || show.FailedOutputs[0]["name"] != "shout" {
		t.Errorf("runs show --json: %s", out)
	}
	for _, s := range show.Steps {
		if s.Step == "count" && s.Outputs["value"] != 3.0 {
			t.Errorf("step count's outputs: %v", s.Outputs)
		}
	}
}
