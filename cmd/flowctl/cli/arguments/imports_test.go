package arguments

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports: the package reads command lines and nothing else: pflag,
// lang (for Closest and the names of sandboxes, engines and runtimes),
// levenshtein and the standard library; never cobra, a view or a package
// that runs anything.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/spf13/pflag":          true,
		"github.com/flowctl/flowctl/lang": true,
		"github.com/agext/levenshtein":    true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if std := !strings.Contains(strings.Split(path, "/")[0], "."); !std && !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
