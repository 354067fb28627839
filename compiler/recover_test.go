package compiler

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestCompileRecovers: a panic inside a pass, a bug whatever the file
// holds, is an error diagnostic, not the end of the process that compiles
// (serve and watch recompile every saved file).
func TestCompileRecovers(t *testing.T) {
	saved := passes
	t.Cleanup(func() { passes = saved })
	passes = append(slices.Clone(saved[:1]), struct {
		name        string
		run         func(*compilation) hcl.Diagnostics
		afterErrors bool
	}{"boom", func(*compilation) hcl.Diagnostics { panic("index out of range [3] with length 3") }, true})
	path := filepath.Join(t.TempDir(), "f.flow.hcl")
	if err := os.WriteFile(path, []byte("flow \"f\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := Compile(path, Options{})
	if prog == nil || len(diags) != 1 || diags[0].Summary != "Internal compiler error" ||
		!strings.Contains(diags[0].Detail, "index out of range [3] with length 3") {
		t.Fatalf("program %v, diagnostics %v", prog, diags)
	}
}
