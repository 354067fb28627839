package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
)

// jsPackagesFlow is a flow of one js block that imports a package and
// calls it; its line 16 throws when the input is "boom".
const jsPackagesFlow = `flow "slug" {}

block "slug" {
  runtime  = "js"
  packages = { "tiny-slug" = "^1.0" }
  input "title" {
    type = string
  }
  output "slug" {
    type = string
  }
  source = <<-JS
    import slug from "tiny-slug";

    function execute(input) {
      if (input.title === "boom") throw new Error("boom");
      return { slug: slug(input.title) };
    }
  JS
}

step "s" {
  use   = "slug"
  title = "Hello Big World"
}

output "slug" {
  value = step.s.slug
}
`

var tinySlug = depstest.NPMPackage{Name: "tiny-slug", Version: "1.3.0",
	Files: map[string]string{"index.js": "const fs = (() => { const m = 'f' + 's'; try { return require(m); } catch (e) { return e.message; } })();\n" +
		"module.exports = (s) => s.toLowerCase().split(' ').join('-') + '|' + fs + '|' +\n" +
		"  [typeof process, typeof fetch, typeof XMLHttpRequest, typeof setTimeout].join(',');\n"}}

// TestJSPackagesLockAndRun: a js block's packages are not locked
// (validate warns, lock --check exits 1, apply refuses); flowctl lock
// pins them from a local registry; apply bundles the block with them and
// runs it in the sandbox worker, where the package's code can require no
// module (esbuild's require refuses what the bundle does not hold) and
// finds no process, network or timers; an error in the block's code is
// at its line of the flow file; a tarball changed after the lock is
// refused on a machine with an empty cache.
func TestJSPackagesLockAndRun(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	reg := depstest.NPMRegistry(t, tinySlug)
	dir := t.TempDir()
	flow := filepath.Join(dir, "slug.flow.hcl")
	writeFile(t, flow, jsPackagesFlow)

	if code, _, errOut := runCLI(t, "validate", flow); code != 0 || !strings.Contains(errOut, "Packages not locked") {
		t.Fatalf("validate: %d %s", code, errOut)
	}
	if code, out, _ := runCLI(t, "lock", "--check", dir); code != 1 || !strings.Contains(out, "Not locked: tiny-slug@^1.0") {
		t.Fatalf("lock --check before lock: %d %s", code, out)
	}
	if code, out, errOut := runCLI(t, "apply", "--auto-approve", flow); code != 1 || !strings.Contains(out+errOut, "no flowctl.lock.hcl beside the flow pins its packages") {
		t.Fatalf("apply without a lock: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "lock", dir); code != 0 || !strings.Contains(out, "Locked: tiny-slug@^1.0") {
		t.Fatalf("lock: %d %s %s", code, out, errOut)
	}
	lock, err := os.ReadFile(filepath.Join(dir, deps.FileName))
	if err != nil || !strings.Contains(string(lock), `version   = "1.3.0"`) || !strings.Contains(string(lock), `integrity = "sha512-`) {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	if code, out, _ := runCLI(t, "lock", "--check", dir); code != 0 || !strings.Contains(out, "is complete") {
		t.Fatalf("lock --check after lock: %d %s", code, out)
	}
	if code, _, errOut := runCLI(t, "validate", flow); code != 0 || strings.Contains(errOut, "Packages not locked") {
		t.Fatalf("validate after lock: %d %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "apply", "--auto-approve", flow)
	if code != 0 || !strings.Contains(out, `hello-big-world|Dynamic require of \"fs\" is not supported|undefined,undefined,undefined,undefined`) {
		t.Fatalf("apply: %d %s %s", code, out, errOut)
	}
	boom := strings.Replace(jsPackagesFlow, `"Hello Big World"`, `"boom"`, 1)
	writeFile(t, flow, boom)
	if code, out, errOut := runCLI(t, "apply", "--auto-approve", flow); code != 1 || !strings.Contains(out+errOut, `block "slug" line 16: Error: boom`) {
		t.Fatalf("apply of a failing block: %d %s %s", code, out, errOut)
	}
	writeFile(t, flow, jsPackagesFlow)

	// An import the packages argument does not declare.
	writeFile(t, flow, strings.Replace(jsPackagesFlow, `import slug from "tiny-slug";`, `import slug from "tiny-slug"; import pad from "left-pad";`, 1))
	if code, _, errOut := runCLI(t, "validate", flow); code != 1 || !strings.Contains(errOut, `the code imports "left-pad", which is not one of the packages`) {
		t.Fatalf("validate of an undeclared import: %d %s", code, errOut)
	}
	writeFile(t, flow, jsPackagesFlow)

	// Another machine (an empty cache); the registry serves another
	// tarball for the same version.
	reg.Tamper(t, depstest.NPMPackage{Name: "tiny-slug", Version: "1.3.0", Files: map[string]string{"index.js": "module.exports = () => 'pwned';"}})
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, out, errOut = runCLI(t, "apply", "--auto-approve", "--no-cache", flow)
	if code != 1 || !strings.Contains(out+errOut, "does not match the lock's integrity") || strings.Contains(out, "pwned") {
		t.Fatalf("apply with a tampered tarball: %d %s %s", code, out, errOut)
	}
}
