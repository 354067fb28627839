package gorun

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/traefik/yaegi/stdlib"
	"github.com/zclconf/go-cty/cty"
)

// TestWidenedPackages runs the example of testdata/stdlib.block.hcl, a
// block that uses each package added to the allowlist for data processing
// (CSV, XML, templates, archives and compression on in-memory data, hashes,
// containers, math/big, math/rand/v2) in the interpreter.
// TestEnginesAgreeOnExamples (cmd/flowctl/cli) runs it compiled as well.
func TestWidenedPackages(t *testing.T) {
	defs, diags := blocks.ParseBlockFile(lang.NewParser(), "testdata/stdlib.block.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	def := defs[0]
	if diags := Check(def); diags.HasErrors() {
		t.Fatal(diags)
	}
	b, diags := blocks.FromDef(def)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	e := NewExecutor()
	defer e.Close()
	ex := def.Examples[0]
	res, err := e.Execute(context.Background(), &blocks.Call{Block: b, Inputs: ex.Input.AsValueMap(), Outputs: def.Outputs, Step: "stdlib"})
	if err != nil {
		t.Fatal(err)
	}
	got, want := res.Outputs["out"], ex.Output.GetAttr("out")
	for k, w := range want.AsValueMap() {
		g := got.AsValueMap()[k]
		if !g.RawEquals(w) {
			t.Errorf("%s = %#v, want %#v", k, g, w)
		}
	}
	if n := len(got.AsValueMap()); n != len(want.AsValueMap()) {
		t.Errorf("%d outputs, want %d", n, len(want.AsValueMap()))
	}
}

// TestAllowlistSymbols checks the allowlist against yaegi's tables: every
// allowed package and every removed symbol exists (a typo would leave a
// symbol in), math/rand/v2 is known by its name rand, and the removed
// symbols are gone from the interpreter's table.
func TestAllowlistSymbols(t *testing.T) {
	for p, removed := range allowed {
		table, ok := stdlib.Symbols[p+"/"+pkgName(p)]
		if !ok {
			t.Errorf("yaegi has no table for %s", p)
			continue
		}
		for _, name := range removed {
			if _, ok := table[name]; !ok {
				t.Errorf("%s.%s is removed but is no symbol of the package", p, name)
			}
			if _, ok := symbols[p][name]; ok {
				t.Errorf("%s.%s is still in the interpreter's table", p, name)
			}
			if _, ok := removedWhy(p, name); !ok {
				t.Errorf("%s.%s has no reason", p, name)
			}
		}
	}
	if got := pkgName("math/rand/v2"); got != "rand" {
		t.Errorf("pkgName(math/rand/v2) = %q", got)
	}
}

// TestWrappersMatchPackages checks that each wrapper (wrap/*) declares
// exactly what yaegi's table of its package holds but the removed symbols:
// what the interpreter gets (the real package's table with the wrapper's
// Template, New and Must) and what the compiled engine builds against (the
// wrapper's source) are the same names, and the Template has no method
// that reads files.
func TestWrappersMatchPackages(t *testing.T) {
	for p, w := range wrapped {
		fset := token.NewFileSet()
		src, err := fs.ReadFile(WrapperFS, w.dir+"/template.go")
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, "template.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		var declared, methods []string
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				switch {
				case d.Recv != nil && d.Name.IsExported():
					methods = append(methods, d.Name.Name)
				case d.Name.IsExported():
					declared = append(declared, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared = append(declared, s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared = append(declared, n.Name)
						}
					}
				}
			}
		}
		var want []string
		for name := range stdlib.Symbols[p+"/template"] {
			if !slices.Contains(allowed[p], name) {
				want = append(want, name)
			}
		}
		slices.Sort(declared)
		slices.Sort(want)
		if !slices.Equal(declared, want) {
			t.Errorf("%s: the wrapper declares %v\nyaegi's table, less the removed symbols: %v", p, declared, want)
		}
		for _, m := range methods {
			if slices.Contains(removedMethods, m) {
				t.Errorf("%s: the wrapper's Template has %s", p, m)
			}
		}
		if got := slices.Sorted(maps.Keys(symbols[p])); !slices.Equal(got, want) {
			t.Errorf("%s: the interpreter's table holds %v", p, got)
		}
		if !strings.Contains(string(src), "package template\n") {
			t.Errorf("%s: the wrapper is not package template", p)
		}
	}
}

// TestHostLeftOutOfNewPackages checks that the checks refuse what in the
// added packages reaches the host, at its line, in words that say why:
// the template methods and functions that read files (also called on a
// value of the code's own), mime's tables read from the system, and
// zip.OpenReader.
func TestHostLeftOutOfNewPackages(t *testing.T) {
	for _, c := range []struct {
		imports []string
		body    string
		want    string
	}{
		{[]string{"text/template"}, `_, err := template.ParseFiles("/etc/passwd"); return nil, err`, "template.ParseFiles is not available in go blocks: they cannot read files"},
		{[]string{"html/template"}, `_, err := template.ParseGlob("/etc/*"); return nil, err`, "template.ParseGlob is not available in go blocks: they cannot read files"},
		{[]string{"text/template"}, `_, err := template.New("x").ParseFiles("/etc/passwd"); return nil, err`, "ParseFiles is not available in go blocks: they cannot read files"},
		{[]string{"html/template"}, `f := template.New("x").ParseGlob; _ = f; return nil, nil`, "ParseGlob is not available in go blocks: they cannot read files"},
		{[]string{"mime"}, `return map[string]any{"y": mime.TypeByExtension(".html")}, nil`, "mime.TypeByExtension is not available in go blocks: the MIME type tables are read from the system's files"},
		{[]string{"archive/zip"}, `_, err := zip.OpenReader("/etc/passwd"); return nil, err`, "zip.OpenReader is not available in go blocks: they cannot read files"},
		{[]string{"archive/tar"}, `_, err := tar.FileInfoHeader(nil, ""); return nil, err`, "tar.FileInfoHeader is not available in go blocks: it looks up the host's user and group names"},
		{[]string{"math/rand/v2"}, `return map[string]any{"y": rand.IntN(3) < 3}, nil`, ""},
	} {
		def := parseDef(t, code(c.imports, c.body))
		diags := Check(def)
		_, vet, _ := Vet(def)
		if c.want == "" {
			if diags.HasErrors() || vet.HasErrors() {
				t.Errorf("%s: %v / %v", c.body, diags, vet)
			}
			continue
		}
		for _, d := range []string{diagText(diags), diagText(vet)} {
			if !strings.Contains(d, c.want) {
				t.Errorf("%s:\n%s\nwant %q", c.body, d, c.want)
			}
		}
		if len(diags) == 0 || diags[0].Subject.Start.Line != flowOffset+bodyLine {
			t.Errorf("%s: %v, want line %d", c.body, diags, flowOffset+bodyLine)
		}
	}
}

func diagText(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

// TestTemplateCannotReachFiles executes templates with data that could
// lead to files: the code's own template as its data ({{.ParseFiles}}
// would read a file if the data were text/template's Template), and a
// template's built-in functions. Nothing is read: the wrapper's Template
// has no such method.
func TestTemplateCannotReachFiles(t *testing.T) {
	for _, p := range []string{"text/template", "html/template"} {
		def := parseDef(t, code([]string{p, "strings"}, `t := template.Must(template.New("x").Parse(`+"`"+`{{(.ParseFiles "/etc/passwd").Name}}`+"`"+`))
	var b strings.Builder
	err := t.Execute(&b, t)
	return map[string]any{"y": b.String()}, err`))
		if diags := Check(def); diags.HasErrors() {
			t.Fatal(diags)
		}
		e := NewExecutor()
		got, err := run(t, e, def, cty.NilVal)
		e.Close()
		if err == nil || !strings.Contains(err.Error(), `can't evaluate field ParseFiles`) {
			t.Errorf("%s: %#v, %v", p, got, err)
		}
	}
}

// TestDocsListTheAllowlist: docs/language.md lists exactly the packages
// the code allows, as go generate writes them (PackagesMarkdown).
func TestDocsListTheAllowlist(t *testing.T) {
	b, err := os.ReadFile("../../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), DocsStart)
	list, _, ok2 := strings.Cut(rest, DocsEnd)
	if !ok || !ok2 {
		t.Fatal("docs/language.md has no go allowlist markers")
	}
	if want := PackagesMarkdown(); list != want {
		t.Errorf("docs/language.md lists\n%s\nthe code allows\n%s\n(go generate ./blocks/sandbox/gorun writes the list)", list, want)
	}
	for _, p := range Packages() {
		if !strings.Contains(list, "- `"+p+"`") {
			t.Errorf("%s is not listed", p)
		}
	}
}
