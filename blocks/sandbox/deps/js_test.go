package deps

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
)

// slugPackages are a small tree: tiny-slug 1.2.0 needs tiny-lower ^1 and
// tiny-pad 2; tiny-pad 2 needs tiny-lower ^2, which cannot be hoisted
// beside tiny-lower 1 and is nested under tiny-pad.
var slugPackages = []depstest.NPMPackage{
	{Name: "tiny-slug", Version: "1.1.0", Files: map[string]string{"index.js": "module.exports = () => 'old';"}},
	{Name: "tiny-slug", Version: "1.2.0", Dependencies: map[string]string{"tiny-lower": "^1.0.0", "tiny-pad": "2.0.0"},
		Files: map[string]string{"index.js": "const lower = require('tiny-lower'); const pad = require('tiny-pad');\nmodule.exports = (s) => pad(lower(s).split(' ').join('-'));\n"}},
	{Name: "tiny-slug", Version: "2.0.0", Files: map[string]string{"index.js": "module.exports = () => 'too new';"}},
	{Name: "tiny-lower", Version: "1.4.0", Files: map[string]string{"index.js": "module.exports = (s) => s.toLowerCase();"}},
	{Name: "tiny-lower", Version: "2.0.1", Files: map[string]string{"index.js": "module.exports = (s) => 'v2:' + s;"}},
	{Name: "tiny-pad", Version: "2.0.0", Dependencies: map[string]string{"tiny-lower": "^2"},
		Files: map[string]string{"index.js": "const l = require('tiny-lower');\nmodule.exports = (s) => '[' + s + ']' + (l('x') === 'v2:x' ? '' : '!');\n"}},
}

// TestLockJSAndBundle: a range resolves against a local registry to the
// highest version that satisfies it, with its dependencies laid out as
// npm would (a conflicting version nested); the lock reads back the same;
// a block's source bundles with its packages into one program that
// defines execute; a tarball changed after the lock is refused.
func TestLockJSAndBundle(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	reg := depstest.NPMRegistry(t, slugPackages...)
	ctx := context.Background()
	e, err := LockJS(ctx, map[string]string{"tiny-slug": "^1.1"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range e.Tree {
		got[p.Path] = p.Version
		if !strings.HasPrefix(p.Integrity, "sha512-") || !strings.HasPrefix(p.Resolved, reg.URL) {
			t.Errorf("%s: %+v", p.Path, p)
		}
	}
	want := map[string]string{"node_modules/tiny-slug": "1.2.0", "node_modules/tiny-lower": "1.4.0",
		"node_modules/tiny-pad": "2.0.0", "node_modules/tiny-pad/node_modules/tiny-lower": "2.0.1"}
	if len(got) != len(want) {
		t.Fatalf("tree %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("tree %v, want %v", got, want)
		}
	}
	lockPath := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(lockPath, (&Lock{JS: []*JSEntry{e}}).Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, diags := Read(lockPath)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	be := back.JSFor(map[string]string{"tiny-slug": " ^1.1"})
	if be == nil || be.Hash() != e.Hash() {
		t.Fatalf("the lock read back differs")
	}

	code, err := Bundle(ctx, be, "import slug from 'tiny-slug';\nfunction execute(input) { return {s: slug(input.s)}; }\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(code, BundleBanner) || !strings.Contains(code, "var execute = ") || !strings.Contains(code, `"v2:" + s`) {
		t.Fatalf("bundle:\n%s", code)
	}
	if _, err := Bundle(ctx, be, "import x from 'left-pad';\nfunction execute() {}\n"); err == nil || !strings.Contains(err.Error(), `imports "left-pad", which its packages argument does not declare`) {
		t.Fatalf("an undeclared import: %v", err)
	}

	// Another machine (an empty cache): the registry now serves another
	// tarball for tiny-pad 2.0.0.
	reg.Tamper(t, depstest.NPMPackage{Name: "tiny-pad", Version: "2.0.0", Files: map[string]string{"index.js": "module.exports = () => 'pwned';"}})
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, err = InstallJS(ctx, be)
	var ie *IntegrityError
	if !errors.As(err, &ie) || ie.Package != "tiny-pad@2.0.0" {
		t.Fatalf("a tampered tarball was installed: %v", err)
	}
	root, _ := cacheRoot("js-packages")
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a refused install left %v", entries)
	}
}

// TestLockJSRefusesBuiltins: a package whose dependency requires fs is
// refused at lock, naming the module and the chain of imports to it.
func TestLockJSRefusesBuiltins(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	depstest.NPMRegistry(t,
		depstest.NPMPackage{Name: "tiny-config", Version: "1.0.0", Dependencies: map[string]string{"tiny-read": "1.0.0"},
			Files: map[string]string{"index.js": "module.exports = require('tiny-read');"}},
		depstest.NPMPackage{Name: "tiny-read", Version: "1.0.0",
			Files: map[string]string{"index.js": "module.exports = require('./lib/read.js');", "lib/read.js": "const fs = require('fs');\nmodule.exports = (p) => fs.readFileSync(p, 'utf8');\n"}},
	)
	_, err := LockJS(context.Background(), map[string]string{"tiny-config": "1"})
	var be *BuiltinError
	if !errors.As(err, &be) || be.Module != "fs" {
		t.Fatalf("a package needing fs was locked: %v", err)
	}
	want := `package "tiny-read" needs Node's built-in module "fs" (block.js → node_modules/tiny-config/index.js → node_modules/tiny-read/index.js → node_modules/tiny-read/lib/read.js → fs`
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("the chain is not named:\n%v\nwant %s", err, want)
	}
}

// TestInstallJSFetchesFromTheRegistryOnly: a lock whose tarball URL names
// another host than the registry of the environment (an internal
// machine, a metadata address) is refused before anything is asked of
// that host; the registry's own URLs install.
func TestInstallJSFetchesFromTheRegistryOnly(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	depstest.NPMRegistry(t, slugPackages[3])
	e, err := LockJS(context.Background(), map[string]string{"tiny-lower": "^1"})
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Add(1) }))
	defer internal.Close()
	evil := *e.Tree[0]
	evil.Resolved = internal.URL + "/latest/meta-data/x.tgz"
	hostile := &JSEntry{Key: e.Key, Packages: e.Packages, Tree: []*JSPackage{&evil}}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, err = InstallJS(context.Background(), hostile)
	if err == nil || !strings.Contains(err.Error(), "is not on the npm registry") || asked.Load() != 0 {
		t.Fatalf("a tarball was fetched from another host: %v (%d requests)", err, asked.Load())
	}
	if _, err := InstallJS(context.Background(), e); err != nil {
		t.Fatalf("the registry's tarball: %v", err)
	}
	// flowctl lock keeps only the entries on the registry (OnRegistry).
	if hostile.OnRegistry() || !e.OnRegistry() {
		t.Errorf("on the registry: %v and %v, want false and true", hostile.OnRegistry(), e.OnRegistry())
	}
}

// TestLockJSRefusesDependencyNames: a registry's document naming a
// dependency that is no npm name (a path climbing out of node_modules) is
// refused at lock, and nothing is unpacked outside the package tree.
func TestLockJSRefusesDependencyNames(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	depstest.NPMRegistry(t,
		depstest.NPMPackage{Name: "tiny-dep", Version: "1.0.0", Dependencies: map[string]string{"../../../../escape": "1.0.0"},
			Files: map[string]string{"index.js": "module.exports = 1;"}},
		depstest.NPMPackage{Name: "../../../../escape", Version: "1.0.0", Files: map[string]string{"escaped.txt": "out"}},
	)
	_, err := LockJS(context.Background(), map[string]string{"tiny-dep": "1"})
	if err == nil || !strings.Contains(err.Error(), `"../../../../escape" (needed by node_modules/tiny-dep) is not an npm package's name`) {
		t.Errorf("a dependency named by a path was locked: %v", err)
	}
	found := []string{}
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "escaped.txt" {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 0 {
		t.Errorf("unpacked: %v", found)
	}
}
