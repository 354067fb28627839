package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const budgetFlow = `
flow "two" {}

provider "p" {
  base_url = "%s/v1"
  prices = {
    "m" = { input = 1000, output = 10000 }
  }
}

step "first" {
  use      = "llm"
  provider = provider.p
  model    = "m"
  prompt   = "one"
}

step "second" {
  use      = "llm"
  provider = provider.p
  model    = "m"
  prompt   = "two ${step.first.text}"
}
`

// TestApplyBudget: apply --max-cost stops the run before the request that
// would pass it, saying what was spent; apply --resume with a larger
// budget finishes it, with the first step kept.
func TestApplyBudget(t *testing.T) {
	srv := streamingModel(t, "ok")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.flow.hcl"), fmt.Appendf(nil, budgetFlow, srv.URL), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, ".flowctl")
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "--max-cost", "0.065", "--state", state, dir)
	if code != 1 || !strings.Contains(out, "budget of $0.065 reached after 1 call ($0.0640)") {
		t.Fatalf("apply --max-cost 0.065 exited %d:\n%s%s", code, out, errOut)
	}
	var started struct {
		RunID string `json:"run_id"`
	}
	json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &started)
	code, out, errOut = runCLI(t, "apply", "--auto-approve", "--json", "--resume", started.RunID, "--max-cost", "1", "--state", state)
	if code != 0 || strings.Count(out, `"step":"first"`) != 1 || !strings.Contains(out, `"cost_usd":0.128`) {
		t.Fatalf("apply --resume --max-cost 1 exited %d:\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "apply", "--auto-approve", "--max-cost", "-1", dir); code != 2 || !strings.Contains(errOut, "--max-tokens and --max-cost must be above 0") {
		t.Errorf("--max-cost -1: %d %s", code, errOut)
	}
}
