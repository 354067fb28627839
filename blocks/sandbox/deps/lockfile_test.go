package deps

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
)

// TestReadRefusesHandEditedLock: a lock file is installed from, so what
// it names must be what flowctl lock writes. A package name or version
// that would read as a pip option or a second line of pip's requirements
// file, a wheel or module name that is no name, a go module whose path or
// version would write another go.mod directive, an npm tarball that is a
// local file, and an entry whose key differs from what it pins are
// refused with a diagnostic; the untouched lock reads.
func TestReadRefusesHandEditedLock(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	integrity := "sha512-" + strings.Repeat("A", 86) + "=="
	h1 := "h1:" + strings.Repeat("A", 43) + "="
	valid := func() *Lock {
		reqs := []string{"tiny-greet>=1.0"}
		js := map[string]string{"slugify": "^1.6.0"}
		req := map[string]string{"golang.org/x/text": "v0.14.0"}
		return &Lock{
			Python: []*PythonEntry{{Key: lang.RequirementsKey(reqs), Requirements: reqs, Python: "cp311", Platform: "linux_x86_64",
				Packages: []*Package{{Name: "tiny-greet", Version: "1.2.0", Wheel: "tiny_greet-1.2.0-py3-none-any.whl", Hash: hash, Modules: []string{"tinygreet"}}}}},
			JS: []*JSEntry{{Key: lang.PackagesKey(js), Packages: js,
				Tree: []*JSPackage{{Path: "node_modules/slugify", Name: "slugify", Version: "1.6.6", Resolved: "https://registry.npmjs.org/slugify/-/slugify-1.6.6.tgz", Integrity: integrity}}}},
			Go: []*GoEntry{{Key: lang.PackagesKey(req), Require: req,
				Modules: []*GoModule{{Path: "golang.org/x/text", Version: "v0.14.0", Sum: h1, GoModSum: h1}}}},
		}
	}
	read := func(l *Lock) error {
		p := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(p, l.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, diags := Read(p); diags.HasErrors() {
			return diags
		}
		return nil
	}
	if err := read(valid()); err != nil {
		t.Fatalf("the valid lock is refused: %v", err)
	}
	cases := map[string]func(l *Lock){
		"pip option in a name":       func(l *Lock) { l.Python[0].Packages[0].Name = "tiny-greet --index-url=http://127.0.0.1:1/simple" },
		"pip option in a version":    func(l *Lock) { l.Python[0].Packages[0].Version = "1.2.0 --trusted-host=127.0.0.1" },
		"second line in a version":   func(l *Lock) { l.Python[0].Packages[0].Version = "1.2.0\n-r /etc/shadow\nx==1" },
		"option as a name":           func(l *Lock) { l.Python[0].Packages[0].Name = "-e" },
		"wheel starting with a dash": func(l *Lock) { l.Python[0].Packages[0].Wheel = "--x.whl" },
		"wheel with a separator":     func(l *Lock) { l.Python[0].Packages[0].Wheel = "../x.whl" },
		"module that is a path":      func(l *Lock) { l.Python[0].Packages[0].Modules = []string{"../etc"} },
		"requirements not the key":   func(l *Lock) { l.Python[0].Requirements = []string{"other"} },
		"go version adds a directive": func(l *Lock) {
			l.Go[0].Modules[0].Version = "v0.14.0\n)\nreplace golang.org/x/text => /tmp/evil\nrequire ("
		},
		"go path with dot-dot":      func(l *Lock) { l.Go[0].Modules[0].Path = "golang.org/x/../../tmp/evil" },
		"go path that is local":     func(l *Lock) { l.Go[0].Modules[0].Path = "/tmp/evil" },
		"go hash with a line":       func(l *Lock) { l.Go[0].Modules[0].Sum = h1 + "\nevil v1.0.0 " + h1 },
		"go require not the key":    func(l *Lock) { l.Go[0].Require = map[string]string{"example.com/evil": "v1.0.0"} },
		"npm tarball a local file":  func(l *Lock) { l.JS[0].Tree[0].Resolved = "file:///etc/passwd" },
		"npm tarball with userinfo": func(l *Lock) { l.JS[0].Tree[0].Resolved = "https://u:p@registry.npmjs.org/x.tgz" },
		"npm version not exact":     func(l *Lock) { l.JS[0].Tree[0].Version = "file:../x" },
		"npm integrity with a line": func(l *Lock) { l.JS[0].Tree[0].Integrity = integrity + "\nx" },
		"npm packages not the key":  func(l *Lock) { l.JS[0].Packages = map[string]string{"slugify": "^1.6.0", "evil": "1.0.0"} },
	}
	for name, edit := range cases {
		l := valid()
		edit(l)
		err := read(l)
		if err == nil || !strings.Contains(err.Error(), "Invalid lock file") {
			t.Errorf("%s: read as %v", name, err)
		}
	}
}

// TestReadWheelNamesOnlyModules: the paths of a wheel that are no python
// module (one leaving the wheel, a namespace path in top_level.txt) are
// not locked as its modules, so that the lock flowctl lock writes reads.
func TestReadWheelNamesOnlyModules(t *testing.T) {
	for _, topLevel := range []string{"", "good\n../../etc\nns/sub\n"} {
		path := filepath.Join(t.TempDir(), "evil-1.0-py3-none-any.whl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		files := []string{"good/__init__.py", "../../escape.py", "/abs/x.py", "evil-1.0.dist-info/METADATA"}
		if topLevel != "" {
			files = append(files, "evil-1.0.dist-info/top_level.txt")
		}
		for _, name := range files {
			w, _ := zw.Create(name)
			w.Write([]byte(topLevel))
		}
		zw.Close()
		f.Close()
		p, err := readWheel(path)
		if err != nil {
			t.Fatal(err)
		}
		want := "good"
		if topLevel != "" {
			want = "good,ns"
		}
		if strings.Join(p.Modules, ",") != want {
			t.Errorf("top_level %q: modules %q", topLevel, p.Modules)
		}
	}
}
