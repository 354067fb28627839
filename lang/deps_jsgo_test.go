package lang

import (
	"strings"
	"testing"
)

// TestPackagesAndRequire: a js block's packages and a compiled go block's
// require decode; specs that are not semver ranges or exact versions,
// packages on other runtimes and require on the interpreted engine are
// refused with what to write instead.
func TestPackagesAndRequire(t *testing.T) {
	decode := func(body string) (*BlockDef, string) {
		f, diags := NewParser().ParseSource([]byte("block \"b\" {\n"+body+"\n}\n"), "b.block.hcl")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		defs, diags := DecodeBlockFile(f)
		var def *BlockDef
		if len(defs) > 0 {
			def = defs[0]
		}
		if !diags.HasErrors() {
			return def, ""
		}
		return def, diags.Error()
	}
	def, errs := decode(`runtime = "js"
source = "function execute() {}"
packages = { "slugify" = "^1.6.6", "@scope/x" = ">=2 <3", "d" = "1.x || 2.x" }`)
	if errs != "" || len(def.Packages) != 3 || PackagesKey(def.Packages) != "@scope/x@>=2 <3; d@1.x || 2.x; slugify@^1.6.6" {
		t.Fatalf("packages: %v %s", def.Packages, errs)
	}
	def, errs = decode(`runtime = "go"
engine = "compiled"
source = "package block"
require = { "github.com/tidwall/gjson" = "v1.18.0" }`)
	if errs != "" || def.Require["github.com/tidwall/gjson"] != "v1.18.0" {
		t.Fatalf("require: %v %s", def.Require, errs)
	}
	for _, c := range []struct{ body, want string }{
		{`runtime = "js"
source = "function execute() {}"
packages = { "x" = "git+https://github.com/a/b.git" }`, "is not a semver range"},
		{`runtime = "js"
source = "function execute() {}"
packages = { "x" = "file:../x" }`, "is not a semver range"},
		{`runtime = "js"
source = "function execute() {}"
packages = { "Bad Name" = "1.0.0" }`, "is not an npm package's name"},
		{`runtime = "python"
source = "def execute(i, c): pass"
packages = { "x" = "1.0.0" }`, "names the npm packages of js blocks"},
		{`runtime = "go"
source = "package block"
require = { "github.com/tidwall/gjson" = "v1.18.0" }`, `use engine = "compiled"`},
		{`runtime = "go"
engine = "compiled"
source = "package block"
require = { "github.com/tidwall/gjson" = "^1.18" }`, "is not an exact Go module version"},
		{`runtime = "js"
source = "function execute() {}"
require = { "github.com/tidwall/gjson" = "v1.18.0" }`, "names the Go modules of go blocks"},
	} {
		if _, errs := decode(c.body); !strings.Contains(errs, c.want) {
			t.Errorf("%s\ngot %q, want %q", c.body, errs, c.want)
		}
	}
}
