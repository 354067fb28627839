package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestInit: a project's state and example files are made in a new
// directory; nothing is written over a file, nor in a file's place.
func TestInit(t *testing.T) {
	top, _ := filepath.EvalSymlinks(t.TempDir())
	os.Mkdir(filepath.Join(top, ".git"), 0o755)
	dir := filepath.Join(top, "p")
	m, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.State != filepath.Join(top, DirName) || m.Existed || m.Top != top {
		t.Errorf("Init = %+v", m)
	}
	for name, want := range map[string]string{"hello.flow.hcl": ExampleFlow, "hello.test.hcl": ExampleTest} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %v", name, err)
		}
	}
	var diags hcl.Diagnostics
	if _, err := Init(dir); err == nil || !asDiags(err, &diags) || diags[0].Summary != "File exists" {
		t.Errorf("again: %v", err)
	}
	if _, err := Init(filepath.Join(dir, "hello.flow.hcl")); err == nil || !asDiags(err, &diags) || diags[0].Summary != "Not a directory" {
		t.Errorf("a file: %v", err)
	}
	os.Remove(filepath.Join(dir, "hello.flow.hcl"))
	os.Remove(filepath.Join(dir, "hello.test.hcl"))
	if m, err := Init(dir); err != nil || !m.Existed {
		t.Errorf("with a state: %+v %v", m, err)
	}
}

func asDiags(err error, diags *hcl.Diagnostics) bool {
	d, ok := err.(hcl.Diagnostics)
	*diags = d
	return ok && len(d) > 0
}
