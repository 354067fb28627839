package views

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports are the packages a view may import besides the standard
// library: data (the language, the compiler's plans, the blocks'
// definitions, the state's records, the events, the API's JSON shapes)
// and the libraries that format it. A view renders; it never imports
// what executes (the runtime, a sandbox, a model client, the thinker, a
// server) nor the command line's packages.
var allowedImports = map[string]bool{
	"github.com/flowctl/flowctl/lang":                    true,
	"github.com/flowctl/flowctl/lang/diagjson":           true,
	"github.com/flowctl/flowctl/lang/jsonval":            true,
	"github.com/flowctl/flowctl/compiler":                true,
	"github.com/flowctl/flowctl/compiler/flowdoc":        true, // the documentation and step graph of flows, as data
	"github.com/flowctl/flowctl/blocks":                  true,
	"github.com/flowctl/flowctl/blocks/index":            true,
	"github.com/flowctl/flowctl/blocks/blocktest":        true, // the results of block examples; it imports blocks and lang
	"github.com/flowctl/flowctl/runtime/event":           true,
	"github.com/flowctl/flowctl/runtime/flowtest/result": true, // a flow test's result, as data
	"github.com/flowctl/flowctl/runtime/evaluate/result": true, // an evaluation's outcome, as data
	"github.com/flowctl/flowctl/runtime/state":           true,
	"github.com/flowctl/flowctl/thinker/thinkevent":      true,
	"github.com/flowctl/flowctl/importer":                true,
	"github.com/flowctl/flowctl/server/api":              true,
	"github.com/hashicorp/hcl/v2":                        true,
	"github.com/hashicorp/hcl/v2/hclwrite":               true,
	"github.com/zclconf/go-cty/cty":                      true,
	"github.com/dustin/go-humanize":                      true,
	"github.com/pmezard/go-difflib/difflib":              true,
	"golang.org/x/term":                                  true,
}

// TestImports: the views import the standard library and allowedImports
// only.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if !strings.Contains(first, ".") || allowedImports[path] {
				continue // the standard library's paths have no dot in their first element
			}
			t.Errorf("%s imports %s, which a view may not import", name, path)
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files, want the package's", checked)
	}
}
