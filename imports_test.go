package flowctl_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/flowctl/flowctl/"

// dataPackages are the packages that hold data and its rendering only,
// for code that renders a run or the thinker's work without running
// anything; each may reach (import, directly or not) only the packages
// of this module that its row allows: "lang/" allows lang and every
// package under it, "blocks" that package alone (not blocks/sandbox or
// blocks/llm).
var dataPackages = []struct {
	dir   string
	reach []string
}{
	{"runtime/event", []string{"lang", "lang/", "blocks"}},
	{"thinker/thinkevent", []string{"lang", "lang/", "blocks"}},
	{"runtime/evaluate/result", nil},
}

// dataExternal are the modules outside the standard library a data
// package may import itself: values, diagnostics.
var dataExternal = []string{"github.com/hashicorp/hcl/v2", "github.com/zclconf/go-cty/cty"}

// TestDataPackagesExecuteNothing: a data package imports nothing that
// executes (the runtime, runtime/state, a sandbox, a model's client, the
// thinker…), neither itself nor through the packages it imports. The
// imports are read from the source (go/parser), every file but the tests,
// whatever its build constraints.
func TestDataPackagesExecuteNothing(t *testing.T) {
	for _, p := range dataPackages {
		t.Run(p.dir, func(t *testing.T) {
			imports, err := importsOf(p.dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(imports) == 0 {
				t.Fatalf("%s imports nothing: is it there?", p.dir)
			}
			for _, imp := range imports {
				first, _, _ := strings.Cut(imp, "/")
				if !strings.HasPrefix(imp, module) && strings.Contains(first, ".") && !slices.ContainsFunc(dataExternal, func(m string) bool {
					return imp == m || strings.HasPrefix(imp, m+"/")
				}) {
					t.Errorf("%s imports %s", p.dir, imp)
				}
			}
			// Every package of the module it reaches, with the chain of
			// imports that reaches it.
			chain := map[string]string{p.dir: p.dir}
			queue := []string{p.dir}
			for len(queue) > 0 {
				dir := queue[0]
				queue = queue[1:]
				imports, err := importsOf(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, imp := range imports {
					sub, ok := strings.CutPrefix(imp, module)
					if !ok || chain[sub] != "" {
						continue
					}
					chain[sub] = chain[dir] + " → " + sub
					if !reachable(sub, p.reach) {
						t.Errorf("%s reaches %s, which may execute: %s", p.dir, sub, chain[sub])
						continue
					}
					queue = append(queue, sub)
				}
			}
		})
	}
}

// reachable reports whether a data package whose row allows reach may
// reach the package at dir.
func reachable(dir string, reach []string) bool {
	for _, r := range reach {
		if dir == r || strings.HasSuffix(r, "/") && strings.HasPrefix(dir, r) {
			return true
		}
	}
	return false
}

// importsOf lists the import paths of the non-test Go files in dir.
func importsOf(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(filepath.FromSlash(dir), "*.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, path)
		}
	}
	return out, nil
}

// TestRetrievalBlocksInTheirPackage: the retrieval blocks' executors are
// in blocks/retrieval (DESIGN.md §19), so that package blocks, which the
// data packages reach, imports no document reader or tokenizer.
func TestRetrievalBlocksInTheirPackage(t *testing.T) {
	imports, err := importsOf("blocks")
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range imports {
		for _, heavy := range []string{"github.com/ledongthuc/pdf", "codeberg.org/readeck/go-readability", "github.com/JohannesKaufmann/html-to-markdown", "github.com/tiktoken-go/tokenizer"} {
			if strings.HasPrefix(imp, heavy) {
				t.Errorf("package blocks imports %s", imp)
			}
		}
	}
	if imports, err = importsOf("blocks/retrieval"); err != nil || !slices.Contains(imports, "github.com/ledongthuc/pdf") {
		t.Errorf("blocks/retrieval reads no PDF: %v %v", err, imports)
	}
}
