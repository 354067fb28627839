package deps

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dop251/goja"
	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
)

// polyfillPackages: tiny-emit requires Node's events and (as node:timers)
// timers; the registry serves their polyfills, events and
// timers-browserify (small stand-ins of the real ones, which finds Node's
// global); it requires stream inside a try, expecting it may throw.
var polyfillPackages = []depstest.NPMPackage{
	{Name: "tiny-emit", Version: "1.0.0", Files: map[string]string{"index.js": "const E = require('events');\nconst t = require('node:timers');\n" +
		"let S; try { S = require('stream').Stream; } catch (e) { S = 'none'; }\n" +
		"module.exports = (s) => { const e = new E(); let got = ''; e.on('x', (v) => { got = v + t.tag + S; }); e.emit('x', s); return got; };\n"}},
	{Name: "events", Version: "3.3.0", Files: map[string]string{"index.js": "function E() { this.h = {}; }\n" +
		"E.prototype.on = function (n, f) { this.h[n] = f; };\nE.prototype.emit = function (n, v) { this.h[n](v); };\nmodule.exports = E;\n"}},
	{Name: "events", Version: "4.0.0", Files: map[string]string{"index.js": "module.exports = null;"}},
	{Name: "timers-browserify", Version: "2.0.12", Files: map[string]string{"index.js": "var scope = (typeof global !== 'undefined' && global) || window;\nexports.tag = scope === globalThis ? '!' : '?';"}},
	{Name: "tiny-emit-fs", Version: "1.0.0", Files: map[string]string{"index.js": "require('events'); module.exports = require('fs');"}},
}

// TestLockJSPolyfills: a package requiring Node's events and timers
// locks with their npm polyfills, pinned like any package, timers-
// browserify at node_modules/timers; the lock reads back, the block
// bundles and runs on goja with them, global is globalThis, and the
// require of stream inside a try throws, as the package expects (stream
// is not locked); a package that also requires fs,
// which has no polyfill, is still refused.
func TestLockJSPolyfills(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	depstest.NPMRegistry(t, polyfillPackages...)
	ctx := context.Background()
	e, err := LockJS(ctx, map[string]string{"tiny-emit": "1"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range e.Tree {
		got[p.Path] = p.Name + "@" + p.Version
	}
	want := map[string]string{"node_modules/tiny-emit": "tiny-emit@1.0.0", "node_modules/events": "events@3.3.0",
		"node_modules/timers": "timers-browserify@2.0.12"}
	if len(got) != len(want) || got["node_modules/events"] != want["node_modules/events"] || got["node_modules/timers"] != want["node_modules/timers"] {
		t.Fatalf("tree %v, want %v", got, want)
	}
	lockPath := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(lockPath, (&Lock{JS: []*JSEntry{e}}).Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, diags := Read(lockPath)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	be := back.JSFor(map[string]string{"tiny-emit": "1"})
	if be == nil || be.Hash() != e.Hash() {
		t.Fatalf("the lock read back differs")
	}
	code, err := Bundle(ctx, be, "import emit from 'tiny-emit';\nfunction execute(input) { return emit(input.s); }\n")
	if err != nil {
		t.Fatal(err)
	}
	vm := goja.New()
	if _, err := vm.RunString(code); err != nil {
		t.Fatal(err)
	}
	execute, _ := goja.AssertFunction(vm.Get("execute"))
	v, err := execute(goja.Undefined(), vm.ToValue(map[string]any{"s": "hi"}))
	if err != nil || v.String() != "hi!none" {
		t.Fatalf("execute: %v %v", v, err)
	}

	_, err = LockJS(ctx, map[string]string{"tiny-emit-fs": "1"})
	var bi *BuiltinError
	if !errors.As(err, &bi) || bi.Module != "fs" {
		t.Fatalf("a package needing fs was locked: %v", err)
	}
}
