package deps

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
)

// TestLockAndInstall: a requirement is resolved by pip from a local wheel
// directory and pinned (version, hash, modules); the lock file reads back
// the same; the environment is installed read-only, once; a wheel whose
// content changed after the lock is refused, and nothing is installed.
func TestLockAndInstall(t *testing.T) {
	python := depstest.Python(t)
	wheels := t.TempDir()
	whl := depstest.Wheel(t, wheels, "tiny-greet", "1.2.0", "tinygreet", "def hello(n):\n    return 'hello ' + n\n")
	before := depstest.Offline(t, wheels)
	ctx := context.Background()
	interp, err := Describe(ctx, python)
	if err != nil {
		t.Fatal(err)
	}
	e, err := interp.LockPython(ctx, []string{"tiny-greet>=1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Packages) != 1 || e.Packages[0].Name != "tiny-greet" || e.Packages[0].Version != "1.2.0" ||
		len(e.Packages[0].Hash) != 64 || strings.Join(e.Packages[0].Modules, ",") != "tinygreet" {
		t.Fatalf("locked %+v", e.Packages[0])
	}
	lockPath := filepath.Join(t.TempDir(), FileName)
	l := &Lock{Python: []*PythonEntry{e}}
	if err := os.WriteFile(lockPath, l.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, diags := Read(lockPath)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := back.PythonFor([]string{"tiny-greet >= 1.0"})
	if got == nil || got.Hash() != e.Hash() {
		t.Fatalf("the lock read back differs:\n%s", l.Bytes())
	}

	env, err := interp.Install(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(env.Dir, "tinygreet", "__init__.py")); err != nil || !strings.Contains(string(b), "hello") {
		t.Fatalf("not installed: %v", err)
	}
	if fi, _ := os.Stat(filepath.Join(env.Dir, "tinygreet")); fi.Mode().Perm()&0o222 != 0 {
		t.Errorf("the environment is writable: %v", fi.Mode())
	}
	// Installed once: a second install needs no pip (none is reachable).
	t.Setenv("PATH", "")
	broken := *interp
	broken.Path = "/nonexistent/python"
	if env2, err := broken.Install(ctx, got); err != nil || env2.Dir != env.Dir {
		t.Fatalf("a second install ran pip: %v", err)
	}

	// The wheel changes after the lock (same name and version): refused.
	os.Remove(whl)
	tampered := depstest.Wheel(t, wheels, "tiny-greet", "1.2.0", "tinygreet", "def hello(n):\n    return 'pwned'\n")
	if tampered != whl {
		t.Fatalf("wheel name changed: %s", tampered)
	}
	depstest.ForgetEnvs(t, before)
	_, err = interp.Install(ctx, got)
	if err == nil || !strings.Contains(err.Error(), "THESE PACKAGES DO NOT MATCH THE HASHES") {
		t.Fatalf("a tampered wheel was installed: %v", err)
	}
	root, _ := CacheDir()
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !before[e.Name()] {
			t.Errorf("a refused install left %s", e.Name())
		}
	}
}
