package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindFiles: directories are walked, skipping hidden ones, a file
// named is taken whatever its name, a path that does not exist is a
// diagnostic; flows and block files are told apart.
func TestFindFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.flow.hcl", "sub/b.block.hcl", ".flowctl/c.flow.hcl", "notes.txt"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(files []string) string {
		var out []string
		for _, f := range files {
			r, _ := filepath.Rel(dir, f)
			out = append(out, filepath.ToSlash(r))
		}
		return strings.Join(out, " ")
	}
	files, diags := FindFiles([]string{dir, filepath.Join(dir, "notes.txt"), filepath.Join(dir, "gone")}, IsFlowOrBlockFile)
	if got := rel(files); got != "a.flow.hcl sub/b.block.hcl notes.txt" {
		t.Errorf("files: %s", got)
	}
	if len(diags) != 1 || diags[0].Summary != "Cannot read path" || !strings.Contains(diags[0].Detail, "no such file") {
		t.Errorf("diagnostics: %v", diags)
	}
	flows, blockFiles, diags := FindFlowsAndBlockFiles([]string{dir}, false)
	if rel(flows) != "a.flow.hcl" || rel(blockFiles) != "sub/b.block.hcl" || diags.HasErrors() {
		t.Errorf("flows %v, block files %v, %v", flows, blockFiles, diags)
	}
	if _, _, diags := FindFlowsAndBlockFiles([]string{filepath.Join(dir, "sub", "..", ".flowctl", "x")}, false); !diags.HasErrors() {
		t.Error("no error for a path that does not exist")
	}
}
