package deps

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testPython is the interpreter the tests build wheels and install with:
// Debian's, which has pip, setuptools and wheel from apt (.ci/run
// installs them); FLOWCTL_TEST_PYTHON names another.
func testPython(t *testing.T) string {
	t.Helper()
	p := os.Getenv("FLOWCTL_TEST_PYTHON")
	if p == "" {
		p = "/usr/bin/python3"
	}
	if out, err := exec.Command(p, "-c", "import setuptools, wheel, pip").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot build wheels (pip, setuptools and wheel are needed: apt-get install python3-pip python3-wheel): %v %s", p, err, out)
	}
	return p
}

// BuildWheel builds a wheel of a one-module project with pip wheel, into
// dir, and returns its path. The module's source is given.
func BuildWheel(t *testing.T, python, dir, name, version, module, source string) string {
	t.Helper()
	proj := filepath.Join(t.TempDir(), name)
	os.MkdirAll(filepath.Join(proj, module), 0o755)
	os.WriteFile(filepath.Join(proj, module, "__init__.py"), []byte(source), 0o644)
	os.WriteFile(filepath.Join(proj, "setup.py"), []byte(
		"from setuptools import setup\nsetup(name='"+name+"', version='"+version+"', packages=['"+module+"'])\n"), 0o644)
	cmd := exec.Command(python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", dir, proj)
	cmd.Env = append(os.Environ(), "PIP_DISABLE_PIP_VERSION_CHECK=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pip wheel: %v\n%s", err, out)
	}
	wheels, _ := filepath.Glob(filepath.Join(dir, strings.ReplaceAll(name, "-", "_")+"-"+version+"-*.whl"))
	if len(wheels) != 1 {
		t.Fatalf("pip wheel wrote %v", wheels)
	}
	return wheels[0]
}

// offline points pip at a wheel directory only, and the cache at a
// directory of the test.
func offline(t *testing.T, wheels string) {
	t.Setenv("PIP_NO_INDEX", "1")
	t.Setenv("PIP_FIND_LINKS", wheels)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

// TestLockAndInstall: a requirement is resolved by pip from a local wheel
// directory and pinned (version, hash, modules); the lock file reads back
// the same; the environment is installed read-only, once; a wheel whose
// content changed after the lock is refused, and nothing is installed.
func TestLockAndInstall(t *testing.T) {
	python := testPython(t)
	wheels := t.TempDir()
	whl := BuildWheel(t, python, wheels, "tiny-greet", "1.2.0", "tinygreet", "def hello(n):\n    return 'hello ' + n\n")
	offline(t, wheels)
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
	tampered := BuildWheel(t, python, wheels, "tiny-greet", "1.2.0", "tinygreet", "def hello(n):\n    return 'pwned'\n")
	if tampered != whl {
		t.Fatalf("wheel name changed: %s", tampered)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, err = interp.Install(ctx, got)
	if err == nil || !strings.Contains(err.Error(), "THESE PACKAGES DO NOT MATCH THE HASHES") {
		t.Fatalf("a tampered wheel was installed: %v", err)
	}
	root, _ := CacheDir()
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a refused install left %v", entries)
	}
}
