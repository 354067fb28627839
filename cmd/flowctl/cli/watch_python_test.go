package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchPythonBlock: watch re-runs a flow when the file of its python
// block (source_file) changes, reports a syntax error in it at the file's
// line, keeps the last good outputs, and runs the fixed block.
func TestWatchPythonBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	needPython(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "blocks"), 0o755); err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(dir, "blocks", "scale.py")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code := "def execute(input, ctx):\n    print('scaling', input['n'])\n    return {'n': input['n'] * 3}\n"
	write(py, code)
	write(filepath.Join(dir, "w.flow.hcl"), `flow "w" {}

block "scale" {
  runtime     = "python"
  source_file = "blocks/scale.py"
  input "n" { type = number }
  output "n" { type = number }
}

step "s" {
  use = "scale"
  n   = 2
}

output "n" {
  value = step.s.n
}
`)
	cycle, stop := startWatch(t, dir)
	defer stop()
	last := func(evs []map[string]any) map[string]any { return evs[len(evs)-1] }
	if c := last(cycle()); c["status"] != "ok" || c["outputs"].(map[string]any)["n"] != 6.0 {
		t.Fatalf("first cycle: %v", c)
	}
	write(py, strings.Replace(code, "* 3", "* 4", 1))
	if c := last(cycle()); c["status"] != "ok" || c["outputs"].(map[string]any)["n"] != 8.0 {
		t.Fatalf("after the block's file changed: %v", c)
	}
	write(py, strings.Replace(code, "return {", "return {{", 1))
	c := last(cycle())
	diags, _ := c["diagnostics"].([]any)
	if c["status"] != "invalid" || len(diags) != 1 {
		t.Fatalf("broken block: %v", c)
	}
	r := diags[0].(map[string]any)["range"].(map[string]any)
	if !strings.HasSuffix(r["filename"].(string), "scale.py") || r["start"].(map[string]any)["line"] != 3.0 {
		t.Errorf("the syntax error is at %v, want scale.py line 3", r)
	}
	if c["outputs"].(map[string]any)["n"] != 8.0 {
		t.Errorf("the last good outputs are not kept: %v", c["outputs"])
	}
	write(py, strings.Replace(code, "* 3", "* 5", 1))
	if c := last(cycle()); c["status"] != "ok" || c["outputs"].(map[string]any)["n"] != 10.0 {
		t.Fatalf("after the fix: %v", c)
	}
}
