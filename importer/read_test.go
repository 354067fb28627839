package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadBlockDefinitions: a file is read as it is; a directory gives its
// *.json files in name order, and a symbolic link that leads out of it is
// refused; a directory without any is an error.
func TestReadBlockDefinitions(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	for name, src := range map[string]string{"b.json": "{}", "a.json": "[]", "notes.txt": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, diags := ReadBlockDefinitions(dir)
	if diags.HasErrors() || len(files) != 2 || filepath.Base(files[0].Name) != "a.json" || string(files[1].Bytes) != "{}" {
		t.Fatalf("%v %v", files, diags)
	}
	one, diags := ReadBlockDefinitions(filepath.Join(dir, "notes.txt"))
	if diags.HasErrors() || len(one) != 1 || string(one[0].Bytes) != "x" {
		t.Errorf("a file: %v %v", one, diags)
	}
	os.WriteFile(filepath.Join(outside, "secret.json"), []byte("{}"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(dir, "c.json")); err != nil {
		t.Fatal(err)
	}
	if _, diags := ReadBlockDefinitions(dir); !diags.HasErrors() || !strings.Contains(diags.Error(), "leads out of") {
		t.Errorf("a link out: %v", diags)
	}
	if _, diags := ReadBlockDefinitions(outside + "/none"); !diags.HasErrors() {
		t.Error("a path that does not exist: no error")
	}
	empty := t.TempDir()
	if _, diags := ReadBlockDefinitions(empty); !diags.HasErrors() || !strings.Contains(diags.Error(), "no *.json block definitions") {
		t.Errorf("an empty directory: %v", diags)
	}
}

// TestCheck: generated flows that compile pass; one that does not is the
// importer's fault, reported with its first error.
func TestCheck(t *testing.T) {
	good := File{Name: "good.flow.hcl", Bytes: []byte("flow \"good\" {}\n\nstep \"a\" {\n  use   = \"value\"\n  value = 1\n}\n")}
	if d := Check([]File{good}); d.HasErrors() {
		t.Fatal(d)
	}
	bad := File{Name: "sub/bad.flow.hcl", Bytes: []byte("flow \"bad\" {}\n\nstep \"a\" {\n  use = \"nope\"\n}\n")}
	d := Check([]File{good, bad})
	if len(d) != 1 || d[0].Summary != "Generated flow does not validate" || !strings.HasPrefix(d[0].Detail, "flowctl import generated bad.flow.hcl, which does not validate: Unknown block: ") {
		t.Errorf("%v", d)
	}
}
