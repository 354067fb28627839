package lang

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAbsPath: a relative name is made absolute from the working
// directory, and two names of one file give one key.
func TestAbsPath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := AbsPath("a/../b.flow.hcl"), filepath.Join(wd, "b.flow.hcl"); got != want {
		t.Errorf("AbsPath = %q, want %q", got, want)
	}
	if AbsPath("./b.flow.hcl") != AbsPath(filepath.Join(wd, "b.flow.hcl")) {
		t.Error("two names of one file differ")
	}
}
