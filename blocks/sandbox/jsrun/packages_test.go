package jsrun

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// TestCheckPackages: a block with packages is read by esbuild (goja
// cannot parse import): its syntax errors are at their lines, a source
// without execute is named so, an import no package declares is refused,
// and packages no lock pins are a warning.
func TestCheckPackages(t *testing.T) {
	def := func(src string) *lang.BlockDef {
		return &lang.BlockDef{Name: "b", Runtime: lang.RuntimeJS, Source: src, SourceLine: 10,
			Packages: map[string]string{"tiny-slug": "^1"}, DeclRange: hcl.Range{Filename: t.TempDir() + "/b.block.hcl"}, SourceRange: hcl.Range{Filename: "b.block.hcl", Start: hcl.Pos{Line: 9}, End: hcl.Pos{Line: 20}}}
	}
	cases := []struct{ src, summary, detail string }{
		{"import s from 'tiny-slug';\nfunction execute() {\n  return {a: s(}\n}\n", "Invalid JavaScript", ""},
		{"import s from 'tiny-slug';\nfunction run() {}\n", "Missing execute function", "does not define a function execute"},
		{"import s from 'tiny-slug';\nimport p from 'left-pad';\nfunction execute() {}\n", "Forbidden import", `imports "left-pad"`},
		{"import s from 'tiny-slug/sub/x.js';\nfunction execute() {}\n", "Packages not locked", "no flowctl.lock.hcl"},
	}
	for _, c := range cases {
		diags := Check(def(c.src))
		if len(diags) == 0 || diags[0].Summary != c.summary || !strings.Contains(diags[0].Detail, c.detail) {
			t.Errorf("%q: %v", c.src, diags)
		}
	}
	if d := Check(def("import s from 'tiny-slug';\nfunction execute() {\n  return {a: s(}\n}\n")); d[0].Subject.Start.Line != 12 {
		t.Errorf("the syntax error is at line %d of the file, want 12", d[0].Subject.Start.Line)
	}
}
