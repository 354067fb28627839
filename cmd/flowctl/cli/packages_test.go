package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
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
	before := depstest.Offline(t, wheels)
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
	depstest.ForgetEnvs(t, before)
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--no-cache", flow)
	if code != 1 || !strings.Contains(errOut+out, "DO NOT MATCH THE HASHES") || strings.Contains(out, "changed ada") {
		t.Fatalf("apply with a tampered wheel: %d %s %s", code, out, errOut)
	}
}

// TestPackagesReinstalledWhenRemoved: an environment removed from the
// cache after the process installed and ran it (the cache cleared while
// flowctl serves) is installed again, and the block's new workers read
// the new directory: their Landlock rules are made for it, not kept from
// the one removed.
func TestPackagesReinstalledWhenRemoved(t *testing.T) {
	wheels := t.TempDir()
	depstest.Wheel(t, wheels, "tiny-again", "1.0.0", "again", "def hello(n):\n    return 'hello ' + n\n")
	before := depstest.Offline(t, wheels)
	dir := t.TempDir()
	flow := filepath.Join(dir, "pkg.flow.hcl")
	writeFile(t, flow, packagesFlow("again"))
	if code, out, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %d %s %s", code, out, errOut)
	}
	for i := range 2 {
		if code, out, errOut := runCLI(t, "apply", "--auto-approve", "--no-cache", flow); code != 0 || !strings.Contains(out, "hello ada") {
			t.Fatalf("apply %d: %d %s %s", i+1, code, out, errOut)
		}
		depstest.ForgetEnvs(t, before)
	}
}

// TestPackagesConfined: package code runs under the block's confinement.
// Packages whose import-time code opens a socket, reads /etc/passwd,
// forks, writes outside its directory or into its own environment are
// stopped as block code is, each step failing with what it tried; a
// package imported by a block is imported once per worker, not once per
// call.
func TestPackagesConfined(t *testing.T) {
	wheels := t.TempDir()
	hostile := []struct{ module, source, want string }{
		{"evilnet", "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(('127.0.0.1', 9))\n", "cannot use the network"},
		{"evilread", "open('/etc/passwd').read()\n", "cannot open files"},
		{"evilfork", "import os\nos.fork()\n", "cannot start programs"},
		{"evilwrite", "open('/tmp/flowctl-evil-package', 'w').write('x')\n", "cannot write files"},
		{"evilself", "open(__file__, 'a').write('# changed')\n", "cannot write files"},
	}
	var flow strings.Builder
	flow.WriteString("flow \"pkgs\" {}\n")
	modules := map[string]string{}
	for _, h := range hostile {
		modules[h.module] = h.source + "def hello(n):\n    return n\n"
		flow.WriteString(`
block "` + h.module + `" {
  runtime      = "python"
  requirements = ["pkg-hostile==1.0.0"]
  output "text" {
    type = string
  }
  source = <<-PY
    import ` + h.module + `

    def execute(input, ctx):
        return {"text": ` + h.module + `.hello("no")}
  PY
}

step "` + h.module + `" {
  use = "` + h.module + `"
}
`)
	}
	depstest.WheelModules(t, wheels, "pkg-hostile", "1.0.0", modules)
	depstest.Wheel(t, wheels, "pkg-once", "1.0.0", "once", "import os, time\nLOADED = time.time_ns()\ndef pid():\n    return os.getpid()\n")
	flow.WriteString(`
block "once" {
  runtime      = "python"
  requirements = ["pkg-once==1.0.0"]
  input "i" {
    type = number
  }
  output "loaded" {
    type = string
  }
  source = <<-PY
    import once

    def execute(input, ctx):
        return {"loaded": "%d:%d" % (once.pid(), once.LOADED)}
  PY
}

step "once" {
  for_each = toset(["1", "2", "3", "4", "5", "6"])
  use      = "once"
  i        = each.value
}

output "loaded" {
  value = [for k, s in step.once : s.loaded]
}
`)
	depstest.Offline(t, wheels)
	dir := t.TempDir()
	path := filepath.Join(dir, "pkgs.flow.hcl")
	writeFile(t, path, flow.String())
	if code, out, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %d %s %s", code, out, errOut)
	}
	os.Remove("/tmp/flowctl-evil-package")
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--parallelism", "1", "--json", path)
	if code != 1 {
		t.Fatalf("apply: %d %s %s", code, out, errOut)
	}
	for _, h := range hostile {
		if !strings.Contains(out, `"step":"`+h.module+`"`) || !regexpMatch(`"step":"`+h.module+`".*python blocks `+h.want, out) {
			t.Errorf("step %s did not fail with %q:\n%s", h.module, h.want, out)
		}
	}
	if _, err := os.Stat("/tmp/flowctl-evil-package"); err == nil {
		t.Error("a package wrote /tmp/flowctl-evil-package")
	}
	// Each worker imported the package once: the calls one process served
	// saw one import.
	loads := map[string]map[string]bool{}
	calls := map[string]int{}
	outputs := regexpAll(`"loaded":\[([^\]]*)\]`, out)
	if len(outputs) != 1 {
		t.Fatalf("no outputs: %s", out)
	}
	for _, m := range regexpAll(`"(\d+):(\d+)"`, outputs[0][1]) {
		if loads[m[1]] == nil {
			loads[m[1]] = map[string]bool{}
		}
		loads[m[1]][m[2]] = true
		calls[m[1]]++
	}
	reused := false
	for pid, l := range loads {
		if len(l) != 1 {
			t.Errorf("worker %s imported the package %d times", pid, len(l))
		}
		reused = reused || calls[pid] > 1
	}
	if len(calls) == 0 || !reused {
		t.Errorf("no worker served two calls: %v\n%s", calls, out)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

func regexpAll(pattern, s string) [][]string {
	return regexp.MustCompile(pattern).FindAllStringSubmatch(s, -1)
}

// TestPackagesNumpy: a package with native code (Debian's python3-numpy,
// as a wheel for this interpreter) is locked, installed and imported
// under the worker's confinement: its shared libraries outside the
// environment (BLAS, LAPACK) are found from its ELF headers and readable,
// nothing else is.
func TestPackagesNumpy(t *testing.T) {
	debianNumpyOffline(t)
	dir := t.TempDir()
	flow := filepath.Join(dir, "np.flow.hcl")
	writeFile(t, flow, `flow "np" {}

block "stats" {
  runtime      = "python"
  requirements = ["numpy==1.24.*"]
  input "values" {
    type = list(number)
  }
  output "mean" {
    type = number
  }
  output "det" {
    type = number
  }
  source = <<-PY
    import numpy as np

    def execute(input, ctx):
        a = np.array(input["values"], dtype=float)
        m = np.array([[2.0, 1.0], [1.0, 3.0]])
        return {"mean": float(a.mean()), "det": round(float(np.linalg.det(m)), 6)}
  PY
}

step "s" {
  use    = "stats"
  values = [1, 2, 3, 6]
}

output "mean" {
  value = step.s.mean
}

output "det" {
  value = step.s.det
}
`)
	if code, out, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %d %s %s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "apply", "--auto-approve", flow)
	if code != 0 || !strings.Contains(out, "mean = 3") || !strings.Contains(out, "det = 5") {
		t.Fatalf("apply: %d %s %s", code, out, errOut)
	}
}

// debianNumpyOffline makes Debian's python3-numpy a wheel for the
// interpreter that runs python blocks, as an index would serve it, and
// points pip at it alone (depstest.Offline): flowctl lock then pins numpy
// 1.24.2 with no network.
func debianNumpyOffline(t *testing.T) {
	t.Helper()
	const src = "/usr/lib/python3/dist-packages/numpy"
	if _, err := os.Stat(src); err != nil {
		depstest.Missing(t, "Debian's python3-numpy is needed (apt-get install python3-numpy): %v", err)
	}
	py, err := pyrun.Find()
	if err != nil {
		t.Fatal(err)
	}
	interp, err := deps.Describe(t.Context(), py.Path)
	if err != nil {
		t.Fatal(err)
	}
	wheels := t.TempDir()
	depstest.WheelOf(t, wheels, "numpy", "1.24.2", interp.Tag+"-"+interp.Tag+"-"+interp.Platform, src)
	depstest.Offline(t, wheels)
}
