package gobuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
	"github.com/flowctl/flowctl/lang"
)

func tinyModule(body string) depstest.GoModule {
	return depstest.GoModule{Path: "example.com/tinyshout", Version: "v1.2.0", Files: map[string]string{
		"shout.go": "package tinyshout\n\nfunc Shout(s string) string { return " + body + " }\n"}}
}

// TestModulesChecked: a compiled block's require is locked through a
// GOPROXY=file:// directory (the module and the h1: hashes of its content
// and go.mod); the block builds with a go.mod and go.sum written from the
// lock, and an import of a module it does not require is refused; with
// an empty module cache and a module whose content changed after the
// lock, the go command refuses it and nothing is built.
func TestModulesChecked(t *testing.T) {
	needGo(t)
	proxy := depstest.GoProxy(t, tinyModule(`s + "!"`))
	ctx := context.Background()
	e, err := deps.LockGo(ctx, map[string]string{"example.com/tinyshout": "v1.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Modules) != 1 || e.Modules[0].Version != "v1.2.0" || !strings.HasPrefix(e.Modules[0].Sum, "h1:") || !strings.HasPrefix(e.Modules[0].GoModSum, "h1:") {
		t.Fatalf("locked %+v", e.Modules)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, deps.FileName), (&deps.Lock{Go: []*deps.GoEntry{e}}).Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := func(imp string) *lang.BlockDef {
		bs, diags := blocks.ParseBlocks([]byte(`block "b" {
  runtime = "go"
  engine  = "compiled"
  require = { "example.com/tinyshout" = "v1.2.0" }
  output "out" { type = any }
  source = <<-GO
package block

import (
	"context"

	"`+imp+`"
)

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	return map[string]any{"out": tinyshout.Shout("hi")}, nil
}
  GO
}
`), filepath.Join(dir, "b.block.hcl"))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return bs[0].Def
	}
	b := newBuilder(t, t.TempDir())
	if diags := b.Check(src("example.com/tinyshout")); len(diags) != 0 {
		t.Fatalf("a block importing its module: %v", diags)
	}
	if diags := b.Check(src("example.com/other/tinyshout")); len(diags) == 0 || diags[0].Summary != "Forbidden import" {
		t.Fatalf("a block importing a module it does not require: %v", diags)
	}

	depstest.WriteGoModule(t, proxy, tinyModule(`"pwned"`))
	cache := t.TempDir()
	t.Setenv("GOMODCACHE", cache)
	t.Cleanup(func() { depstest.CleanModCache(cache) })
	_, err = newBuilder(t, t.TempDir()).Program(ctx, src("example.com/tinyshout"))
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("a module changed after the lock was built: %v", err)
	}
}
