package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/gobuild"
)

// TestCompiledBlockBuiltOnlyToRun (issue 34 #5): apply builds a compiled
// go block when an instance is about to run on it, saying so in one line,
// and not when every step is cached; validate builds it to check it.
func TestCompiledBlockBuiltOnlyToRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("compiled go blocks need the Go toolchain on PATH")
	}
	dir := t.TempDir()
	// Programs are kept in a directory of the test's own; the Go build
	// cache of the default one is shared, when there is one, so that the
	// standard library is not built again.
	cache := t.TempDir()
	if d, err := os.UserCacheDir(); err == nil {
		if shared := filepath.Join(d, "flowctl", "go", "gocache"); dirExists(shared) {
			os.Symlink(shared, filepath.Join(cache, "gocache"))
		}
	}
	src := `flow "lazy" {}

block "triple" {
  runtime = "go"
  engine  = "compiled"
  input "n" { type = number }
  output "n" { type = number }
  source = <<-GO
    package block

    import "context"

    // ` + t.Name() + ` ` + filepath.Base(dir) + `
    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"n": input["n"].(float64) * 3}, nil
    }
  GO
}

step "t" {
  use = "triple"
  n   = 2
}
`
	if err := os.WriteFile(filepath.Join(dir, "lazy.flow.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	programs := func() []string {
		m, _ := filepath.Glob(filepath.Join(cache, "*", "program"))
		return m
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := flowctl(t, dir, args...)
		cmd.Env = append(cmd.Env, gobuild.EnvCacheDir+"="+cache)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("flowctl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	out := run("apply", "--auto-approve", "--json", ".")
	if n := strings.Count(out, `"type":"step_notice"`); n != 1 || !strings.Contains(out, `"kind":"build","message":"building go block triple`) {
		t.Fatalf("the first apply says %d times that it builds:\n%s", n, out)
	}
	if len(programs()) != 1 || !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("the first apply built %v:\n%s", programs(), out)
	}

	// As on a machine that never built it: the step is cached, so
	// nothing is built.
	for _, p := range programs() {
		os.RemoveAll(filepath.Dir(p))
	}
	out = run("apply", "--auto-approve", "--json", ".")
	if strings.Contains(out, "step_notice") || !strings.Contains(out, `"status":"cached"`) || len(programs()) != 0 {
		t.Fatalf("an apply whose step is cached built %v:\n%s", programs(), out)
	}
	out = run("apply", "--auto-approve", ".")
	if strings.Contains(out, "building") || len(programs()) != 0 {
		t.Fatalf("an apply whose step is cached built %v:\n%s", programs(), out)
	}

	// validate checks it, building it.
	run("validate", ".")
	if len(programs()) != 1 {
		t.Errorf("validate built %v", programs())
	}
	// The human view says it while it builds.
	for _, p := range programs() {
		os.RemoveAll(filepath.Dir(p))
	}
	out = run("apply", "--auto-approve", "--no-cache", ".")
	if !strings.Contains(out, "    t │ building go block triple") {
		t.Errorf("apply does not say it builds:\n%s", out)
	}
}
