package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunsShowSummarizesLargeSteps: runs show shows a step of more than
// state.MaxListedInstances instances as one row of counts, followed by the
// instances that did not succeed; --step lists every instance, and --json
// says which steps it summarized.
func TestRunsShowSummarizesLargeSteps(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "wide.flow.hcl")
	src := `flow "wide" {}

step "first" {
  use   = "value"
  value = 1
}

step "wide" {
  use      = "value"
  for_each = range(120)
  value    = each.value % 40 == 7 ? tostring(tonumber("x${each.value}")) : "w${each.value}"
  on_error = "continue"
}
`
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", flow)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "runs", "show", "--flow", flow)
	if code != 0 {
		t.Fatalf("runs show exited %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"wide[*]   3 failed, 117 ok",
		"120 instances; those that did not succeed are listed below",
		"wide[7]  ", "wide[47]  ", "wide[87]  ",
		"first    ",
		"  wide[*]: flowctl runs show ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "wide[8]") || strings.Count(out, "\n") > 30 {
		t.Errorf("runs show lists the instances that succeeded:\n%s", out)
	}

	code, out, _ = runCLI(t, "runs", "show", "--flow", flow, "--step", "wide")
	if code != 0 || strings.Count(out, "\nwide[") != 120 || !strings.Contains(out, "\nwide[9]  ") ||
		strings.Index(out, "\nwide[9] ") > strings.Index(out, "\nwide[10] ") {
		t.Errorf("runs show --step: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "runs", "show", "--flow", flow, "--step", "wide", "--json")
	var all []struct {
		Instance string         `json:"instance"`
		Status   string         `json:"status"`
		Outputs  map[string]any `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(out), &all); code != 0 || err != nil || len(all) != 120 || all[119].Instance != "119" ||
		all[1].Outputs["value"] != "w1" {
		t.Errorf("runs show --step --json: exit %d, %v, %d instances", code, err, len(all))
	}
	code, _, errOut = runCLI(t, "runs", "show", "--flow", flow, "--step", "nope")
	if code != 1 || !strings.Contains(errOut, `recorded no step "nope"`) {
		t.Errorf("runs show --step of an unknown step: exit %d\n%s", code, errOut)
	}

	code, out, _ = runCLI(t, "runs", "show", "--flow", flow, "--json")
	var show struct {
		Steps []struct {
			Step, Instance, Status string
		} `json:"steps"`
		Summarized []struct {
			Step      string         `json:"step"`
			Instances int            `json:"instances"`
			Statuses  map[string]int `json:"statuses"`
			Listed    int            `json:"listed"`
		} `json:"summarized"`
	}
	if err := json.Unmarshal([]byte(out), &show); code != 0 || err != nil {
		t.Fatalf("runs show --json: exit %d, %v\n%s", code, err, out)
	}
	if len(show.Steps) != 4 || len(show.Summarized) != 1 || show.Summarized[0].Instances != 120 ||
		show.Summarized[0].Statuses["failed"] != 3 || show.Summarized[0].Listed != 3 {
		t.Errorf("runs show --json: %+v", show)
	}
}
