package project

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
)

const lockCheckFlow = `flow "deps" {}

block "here" {
  runtime      = "python"
  requirements = ["tiny-here>=1.0"]
  output "x" {
    type = number
  }
  source = <<-PY
    def execute(input, ctx):
        return {"x": 1}
  PY
}

block "there" {
  runtime      = "python"
  requirements = ["tiny-there>=1.0"]
  output "x" {
    type = number
  }
  source = <<-PY
    def execute(input, ctx):
        return {"x": 1}
  PY
}

block "slug" {
  runtime  = "js"
  packages = { "slugify" = "^1.6.6" }
  output "x" {
    type = number
  }
  source = <<-JS
    import slugify from "slugify";
    function execute(input) { return { x: 1 }; }
  JS
}

block "parse" {
  runtime = "go"
  engine  = "compiled"
  require = { "github.com/tidwall/gjson" = "v1.18.0" }
  output "x" {
    type = number
  }
  source = <<-GO
    package block

    import "context"

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
    	return map[string]any{"x": 1}, nil
    }
  GO
}

step "a" {
  use = "here"
}
`

// TestLockCheckPerEntry: lock --check judges each entry of the lock file
// against this machine and its block: a python entry locked for this
// interpreter and platform is kept, one locked for another is named with
// both; a js entry whose tree pins a version its range does not allow and
// a go entry whose build list has an older module than required are
// named, and the lock is not complete; with them right, it is.
func TestLockCheckPerEntry(t *testing.T) {
	py, err := pyrun.Find()
	if err != nil {
		t.Fatal("no python3 (python blocks need one):", err)
	}
	interp, err := deps.Describe(context.Background(), py.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("npm_config_registry", "http://127.0.0.1/") // where the lock's tarballs are
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "deps.flow.hcl"), []byte(lockCheckFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := func(name string) []*deps.Package {
		return []*deps.Package{{Name: name, Version: "1.0.0", Wheel: name + "-1.0.0-py3-none-any.whl", Hash: strings.Repeat("ab", 32), Modules: []string{"m"}}}
	}
	js := &deps.JSEntry{Key: "slugify@^1.6.6", Packages: map[string]string{"slugify": "^1.6.6"},
		Tree: []*deps.JSPackage{{Path: "node_modules/slugify", Name: "slugify", Version: "1.5.0",
			Resolved: "http://127.0.0.1/slugify-1.5.0.tgz", Integrity: "sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="}}}
	gjson := "github.com/tidwall/gjson"
	gomod := &deps.GoModule{Path: gjson, Version: "v1.17.0", Sum: "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", GoModSum: "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
	goe := &deps.GoEntry{Key: gjson + "@v1.18.0", Require: map[string]string{gjson: "v1.18.0"}, Modules: []*deps.GoModule{gomod}}
	lock := &deps.Lock{
		Python: []*deps.PythonEntry{
			{Key: "tiny-here>=1.0", Requirements: []string{"tiny-here>=1.0"}, Python: interp.Tag, Platform: interp.Platform, Packages: pkg("tiny-here")},
			{Key: "tiny-there>=1.0", Requirements: []string{"tiny-there>=1.0"}, Python: "cp399", Platform: "plan9_mips", Packages: pkg("tiny-there")},
		},
		JS: []*deps.JSEntry{js},
		Go: []*deps.GoEntry{goe},
	}
	write := func() {
		if err := os.WriteFile(filepath.Join(dir, deps.FileName), lock.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write()
	res, diags := Lock(context.Background(), dir, true)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := []string{
		"python tiny-there>=1.0: locked for cp399 on plan9_mips, and this machine's python is " + interp.Tag + " on " + interp.Platform,
		"js slugify@^1.6.6: it pins slugify 1.5.0, which ^1.6.6 does not allow",
		"go " + gjson + "@v1.18.0: it pins " + gjson + " v1.17.0, older than the v1.18.0 required",
	}
	if !res.Stale || !slices.Equal(res.Problems, want) || !slices.Equal(res.Kept, []string{"tiny-here>=1.0"}) || res.Written {
		t.Fatalf("check: stale %v kept %q\nproblems %q\nwant     %q", res.Stale, res.Kept, res.Problems, want)
	}

	lock.Python[1].Python, lock.Python[1].Platform = interp.Tag, interp.Platform
	js.Tree[0].Version = "1.6.6"
	gomod.Version = "v1.18.1"
	write()
	res, diags = Lock(context.Background(), dir, true)
	if diags.HasErrors() || res.Stale || len(res.Problems) != 0 || len(res.Kept) != 4 {
		t.Fatalf("check of a complete lock: %v stale %v kept %q problems %q", diags, res.Stale, res.Kept, res.Problems)
	}
}
