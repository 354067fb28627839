package importer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDocumentedDiagnostics checks docs/import.md's table of diagnostics
// against the code: each summary import reports (the summary argument of
// problem, warn and stop, and of the hcl.Diagnostic it writes itself) is
// a row, and each row is one of them.
func TestDocumentedDiagnostics(t *testing.T) {
	inCode := diagnosticSummaries(t)
	if len(inCode) < 40 {
		t.Fatalf("only %d summaries found in the code: %v", len(inCode), inCode)
	}
	doc, err := os.ReadFile("../docs/import.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Diagnostics\n")
	if !ok {
		t.Fatal("docs/import.md has no section Diagnostics")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var inDocs []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(section, -1) {
		inDocs = append(inDocs, m[1])
	}
	for _, s := range inCode {
		if !slices.Contains(inDocs, s) {
			t.Errorf("docs/import.md's Diagnostics lack %q", s)
		}
	}
	for _, s := range inDocs {
		if !slices.Contains(inCode, s) {
			t.Errorf("docs/import.md's Diagnostics list %q, which import does not report", s)
		}
	}
}

// diagnosticSummaries are the summaries in the source of the package and
// of the formats' packages, sorted.
func diagnosticSummaries(t *testing.T) []string {
	var files []string
	for _, dir := range []string{".", "agentflow", "anythingllm", "n8n"} {
		f, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		files = append(files, f...)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	lit := func(e ast.Expr) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return
		}
		if s, err := strconv.Unquote(b.Value); err == nil && s != "" {
			seen[s] = true
		}
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) == 4 &&
					(sel.Sel.Name == "Problem" || sel.Sel.Name == "Warn" || sel.Sel.Name == "Stop") {
					lit(n.Args[2])
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Summary" {
					lit(n.Value)
				}
			}
			return true
		})
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
