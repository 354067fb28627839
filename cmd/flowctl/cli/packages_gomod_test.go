package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
	"github.com/flowctl/flowctl/blocks/sandbox/gobuild"
)

// goModulesFlow is a flow of one compiled go block that requires a
// module and calls it.
const goModulesFlow = `flow "shout" {}

block "shout" {
  runtime = "go"
  engine  = "compiled"
  require = { "example.com/tinyshout" = "v1.2.0" }
  input "text" {
    type = string
  }
  output "text" {
    type = string
  }
  source = <<-GO
    package block

    import (
    	"context"

    	"example.com/tinyshout"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
    	return map[string]any{"text": tinyshout.Shout(input["text"].(string))}, nil
    }
  GO
}

step "s" {
  use  = "shout"
  text = "hello"
}

output "text" {
  value = step.s.text
}
`

func tinyShout(body string) depstest.GoModule {
	return depstest.GoModule{Path: "example.com/tinyshout", Version: "v1.2.0", Files: map[string]string{
		"shout.go": "package tinyshout\n\nimport \"strings\"\n\nfunc Shout(s string) string { return " + body + " }\n"}}
}

// TestGoModulesLockAndRun: a compiled go block's require is not locked
// (validate warns, lock --check exits 1); flowctl lock pins the module
// from a GOPROXY=file:// directory with its h1: hashes; apply builds the
// block with a go.mod and go.sum written from the lock and runs it; the
// interpreted engine refuses require (gobuild's TestModulesChecked shows
// a module changed after the lock refused).
func TestGoModulesLockAndRun(t *testing.T) {
	if d, err := os.UserCacheDir(); err == nil && os.Getenv(gobuild.EnvCacheDir) == "" {
		t.Setenv(gobuild.EnvCacheDir, filepath.Join(d, "flowctl", "go")) // its Go build cache is warm
	}
	depstest.GoProxy(t, tinyShout(`strings.ToUpper(s) + "!"`))
	dir := t.TempDir()
	flow := filepath.Join(dir, "shout.flow.hcl")
	writeFile(t, flow, goModulesFlow)

	if code, _, errOut := runCLI(t, "validate", flow); code != 0 || !strings.Contains(errOut, "Modules not locked") {
		t.Fatalf("validate: %d %s", code, errOut)
	}
	if code, out, _ := runCLI(t, "lock", "--check", dir); code != 1 || !strings.Contains(out, "Not locked: example.com/tinyshout@v1.2.0") {
		t.Fatalf("lock --check before lock: %d %s", code, out)
	}
	if code, out, errOut := runCLI(t, "lock", dir); code != 0 || !strings.Contains(out, "Locked: example.com/tinyshout@v1.2.0") {
		t.Fatalf("lock: %d %s %s", code, out, errOut)
	}
	lock, err := os.ReadFile(filepath.Join(dir, deps.FileName))
	if err != nil || !strings.Contains(string(lock), `module "example.com/tinyshout"`) || !strings.Contains(string(lock), `sum       = "h1:`) {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	if code, out, _ := runCLI(t, "lock", "--check", dir); code != 0 || !strings.Contains(out, "is complete") {
		t.Fatalf("lock --check after lock: %d %s", code, out)
	}
	if code, out, errOut := runCLI(t, "apply", "--auto-approve", flow); code != 0 || !strings.Contains(out, `"HELLO!"`) {
		t.Fatalf("apply: %d %s %s", code, out, errOut)
	}

	interpreted := strings.Replace(goModulesFlow, `engine  = "compiled"`, `engine  = "interpreted"`, 1)
	writeFile(t, flow, interpreted)
	if code, _, errOut := runCLI(t, "validate", flow); code != 1 || !strings.Contains(errOut, `use engine = "compiled"`) {
		t.Fatalf("validate of an interpreted block with require: %d %s", code, errOut)
	}
	writeFile(t, flow, goModulesFlow)
}
