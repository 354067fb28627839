package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
)

// packagesFlow is a flow of one python block that requires a package and
// calls its module's function.
func packagesFlow(module string) string {
	return `flow "pkg" {}

block "greet" {
  runtime      = "python"
  requirements = ["tiny-` + module + ` >= 1.0"]
  input "name" {
    type = string
  }
  output "text" {
    type = string
  }
  source = <<-PY
    import ` + module + `

    def execute(input, ctx):
        return {"text": ` + module + `.hello(input["name"])}
  PY
}

step "g" {
  use  = "greet"
  name = "ada"
}

output "text" {
  value = step.g.text
}
`
}

// TestPackagesLockAndRun: a python block's requirement is not locked
// (validate warns, lock --check exits 1, apply refuses), then flowctl lock
// pins it from a local wheel directory, lock --check passes, and apply
// installs it and runs the block with it; a wheel changed after the lock
// is refused at install.
func TestPackagesLockAndRun(t *testing.T) {
	wheels := t.TempDir()
	whl := depstest.Wheel(t, wheels, "tiny-greet", "1.0.3", "greet", "def hello(n):\n    return 'hello ' + n\n")
	depstest.Offline(t, wheels)
	dir := t.TempDir()
	flow := filepath.Join(dir, "pkg.flow.hcl")
	writeFile(t, flow, packagesFlow("greet"))

	if code, _, errOut := runCLI(t, "validate", flow); code != 0 || !strings.Contains(errOut, "Requirements not locked") {
		t.Fatalf("validate: %d %s", code, errOut)
	}
	if code, out, _ := runCLI(t, "lock", "--check", dir); code != 1 || !strings.Contains(out, "Not locked: tiny-greet>=1.0") {
		t.Fatalf("lock --check before lock: %d %s", code, out)
	}
	if code, out, errOut := runCLI(t, "apply", "--auto-approve", flow); code != 1 || !strings.Contains(out, "no flowctl.lock.hcl beside the flow pins its packages (run flowctl lock)") {
		t.Fatalf("apply without a lock: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "lock", dir); code != 0 || !strings.Contains(out, "Locked: tiny-greet>=1.0") {
		t.Fatalf("lock: %d %s %s", code, out, errOut)
	}
	lock, err := os.ReadFile(filepath.Join(dir, deps.FileName))
	if err != nil || !strings.Contains(string(lock), `version = "1.0.3"`) || !strings.Contains(string(lock), `modules = ["greet"]`) {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	if code, out, _ := runCLI(t, "lock", "--check", dir); code != 0 || !strings.Contains(out, "is complete") {
		t.Fatalf("lock --check after lock: %d %s", code, out)
	}
	if code, _, errOut := runCLI(t, "validate", flow); code != 0 || strings.Contains(errOut, "Requirements not locked") {
		t.Fatalf("validate after lock: %d %s", code, errOut)
	}
	if code, out, errOut := runCLI(t, "apply", "--auto-approve", flow); code != 0 || !strings.Contains(out, "hello ada") {
		t.Fatalf("apply: %d %s %s", code, out, errOut)
	}

	// Another machine (an empty cache) with a changed wheel of the same
	// name and version: refused, the block does not run.
	os.Remove(whl)
	depstest.Wheel(t, wheels, "tiny-greet", "1.0.3", "greet", "def hello(n):\n    return 'changed ' + n\n")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--no-cache", flow)
	if code != 1 || !strings.Contains(errOut+out, "DO NOT MATCH THE HASHES") || strings.Contains(out, "changed ada") {
		t.Fatalf("apply with a tampered wheel: %d %s %s", code, out, errOut)
	}
}
