package gobuild

import (
	"go/parser"
	"go/token"
	"io/fs"
	"strconv"
	"strings"
	"testing"
)

func TestRewriteKeepsLines(t *testing.T) {
	src := "package block\n\nimport (\n\tctx \"context\"\n)\n\nfunc Execute(c ctx.Context, input map[string]any) (map[string]any, error) {\n\tc2, cancel := ctx.WithCancel(c); _ = ctx.Background()\n\tdefer cancel()\n\t_ = ctx.WithValue(c2, 1, 2)\n\treturn nil, nil\n}\n"
	got, edits := rewrite(src)
	if strings.Count(got, "\n") != strings.Count(src, "\n") {
		t.Fatalf("lines moved:\n%s", got)
	}
	for _, want := range []string{
		`package block; import flowctlcontext "flowctl.invalid/program/wrap/contextcheck"`,
		"c2, cancel := flowctlcontext.WithCancel(c); _ = ctx.Background()",
		"_ = flowctlcontext.WithValue(c2, 1, 2)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	// "_ = ctx.Background()" is at column 35 of line 8 in the code, and
	// the rewritten line is 11 bytes longer before it.
	if c := originalColumn(edits, 8, 46); c != 35 {
		t.Errorf("column %d, want 35", c)
	}
	if plain, edits := rewrite("package block\n\nimport \"context\"\n\nfunc Execute(ctx context.Context, input map[string]any) (map[string]any, error) { return nil, nil }\n"); edits != nil || strings.Contains(plain, "flowctlcontext") {
		t.Errorf("rewrote code that derives no context: %s", plain)
	}
}

// TestRunnerIsStandardLibraryOnly: the runner is copied into programs
// that are built without downloading anything.
func TestRunnerIsStandardLibraryOnly(t *testing.T) {
	names, _ := fs.Glob(runnerFS, "runner/*.go")
	if len(names) < 3 {
		t.Fatalf("runner files: %v", names)
	}
	for _, n := range names {
		data, _ := runnerFS.ReadFile(n)
		f, err := parser.ParseFile(token.NewFileSet(), n, data, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s, which is not in the standard library", n, p)
			}
		}
	}
}

// TestRewriteWrappedImports: a block's code that imports text/template or
// html/template (under any name) is built against the wrappers the
// interpreter gives it (gorun.Wrapper), copied into the program, and
// columns after the longer path map back.
func TestRewriteWrappedImports(t *testing.T) {
	src := "package block\n\nimport (\n\t\"context\"\n\tht \"html/template\"\n\t\"text/template\"\n)\n\nfunc Execute(c context.Context, input map[string]any) (map[string]any, error) {\n\t_, _ = ht.New(\"a\"), template.New(\"b\")\n\treturn nil, nil\n}\n"
	got, edits := rewrite(src)
	if strings.Count(got, "\n") != strings.Count(src, "\n") {
		t.Fatalf("lines moved:\n%s", got)
	}
	for _, want := range []string{
		"\tht \"flowctl.invalid/program/wrap/htmltemplate\"\n",
		"\t\"flowctl.invalid/program/wrap/texttemplate\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if c := originalColumn(edits, 6, 2+len(`"flowctl.invalid/program/wrap/texttemplate"`)); c != 2+len(`"text/template"`) {
		t.Errorf("column %d", c)
	}
	files, err := copiedFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"wrap/texttemplate/template.go", "wrap/htmltemplate/template.go", "wrap/contextcheck/contextcheck.go", "runner/runner.go"} {
		if files[f] == "" {
			t.Errorf("no %s among the files copied into a program: %v", f, files)
		}
	}
	for f := range files {
		if strings.HasSuffix(f, "_test.go") {
			t.Errorf("%s is copied into a program", f)
		}
	}
}
