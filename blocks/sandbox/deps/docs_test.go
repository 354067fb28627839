package deps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCachesDocumented: docs/runtime.md names every cache directory the
// packages are installed into, and docs/language.md's Dependencies has a
// subsection for each kind of package a block may declare.
func TestCachesDocumented(t *testing.T) {
	runtimeDoc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "runtime.md"))
	if err != nil {
		t.Fatal(err)
	}
	security := string(runtimeDoc)[strings.Index(string(runtimeDoc), "## Security"):]
	py, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{filepath.Base(py), "js-packages", "js-bundles"} {
		root, err := cacheRoot(sub)
		if err != nil {
			t.Fatal(err)
		}
		if want := "flowctl/" + filepath.Base(root) + "/"; !strings.Contains(security, want) {
			t.Errorf("runtime.md's Security does not name the cache %s", want)
		}
	}
	language, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "language.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"#### Python packages", "#### JavaScript packages", "#### Go modules"} {
		if !strings.Contains(string(language), "\n"+h+"\n") {
			t.Errorf("language.md has no %q", h)
		}
	}
}
