package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/engine"
)

// TestSandboxWaitIsNotTheStepsTime: with both sandbox workers held by
// runaway steps, a step that fails at once fails with its own error once
// it gets a worker, not with "exceeded its timeout": waiting for a worker
// is not the step's time.
func TestSandboxWaitIsNotTheStepsTime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sandbox workers")
	}
	dir := t.TempDir()
	flow := `flow "busy" {}

block "spin" {
  runtime = "js"
  input "n" {
    type = number
  }
  output "out" {
    type = number
  }
  source = "function execute(input) { for (;;) {} }"
}

block "bad" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = "function execute() { return require('fs') }"
}

step "spin1" {
  use     = "spin"
  n       = 1
  timeout = "3s"
}

step "spin2" {
  use     = "spin"
  n       = 2
  timeout = "3s"
}

# Starts after the runaway steps have taken both workers.
step "later" {
  use      = "sleep"
  duration = "300ms"
}

step "fast" {
  use        = "bad"
  timeout    = "1s"
  depends_on = [step.later]
}
`
	if err := os.WriteFile(filepath.Join(dir, "busy.flow.hcl"), []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(engine.EnvSandboxWorkers, "2")
	code, out, errOut := runIn("apply", "--auto-approve", "--json", dir)
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	errs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Type, Step, Status string
			Error              *string
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "step_finished" && e.Error != nil {
			errs[e.Step] = *e.Error
		}
	}
	if !strings.Contains(errs["fast"], "ReferenceError: require is not defined") {
		t.Errorf("step fast failed with %q, want its own ReferenceError", errs["fast"])
	}
	for _, s := range []string{"spin1", "spin2"} {
		if errs[s] != "exceeded its 3s timeout" {
			t.Errorf("step %s failed with %q, want its timeout", s, errs[s])
		}
	}
	t.Setenv(engine.EnvSandboxWorkers, "none")
	if code, _, errOut := runIn("apply", "--auto-approve", dir); code != 2 || !strings.Contains(errOut, engine.EnvSandboxWorkers+" must be a whole number") {
		t.Errorf("a bad %s: exit %d\n%s", engine.EnvSandboxWorkers, code, errOut)
	}
}
