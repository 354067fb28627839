// Package depstest builds python wheels for tests of code blocks with
// requirements, with pip itself, from small projects the tests write.
package depstest

import (
	"archive/zip"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Python is the interpreter that builds wheels: FLOWCTL_TEST_PYTHON, else
// Debian's /usr/bin/python3, which has pip, setuptools and wheel from apt
// (.ci/run installs them), else python3 on PATH. A test fails, never
// skips in CI, when it cannot build (Missing).
func Python(t testing.TB) string {
	t.Helper()
	candidates := []string{os.Getenv("FLOWCTL_TEST_PYTHON"), "/usr/bin/python3", "python3"}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if exec.Command(p, "-c", "import setuptools, wheel, pip").Run() == nil {
			return p
		}
	}
	Missing(t, "no python can build wheels (pip, setuptools and wheel are needed: apt-get install python3-pip python3-wheel)")
	return ""
}

// Wheel builds the wheel of a project named name at version, holding one
// package (a directory module with __init__.py of the source given), with
// pip wheel, into dir, and returns its path.
func Wheel(t testing.TB, dir, name, version, module, source string) string {
	t.Helper()
	return WheelModules(t, dir, name, version, map[string]string{module: source})
}

// WheelModules is Wheel of a project of several packages: module name →
// the source of its __init__.py.
func WheelModules(t testing.TB, dir, name, version string, modules map[string]string) string {
	t.Helper()
	python := Python(t)
	proj := filepath.Join(t.TempDir(), name)
	var names []string
	for module, source := range modules {
		if err := os.MkdirAll(filepath.Join(proj, module), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(proj, module, "__init__.py"), []byte(source), 0o644)
		names = append(names, "'"+module+"'")
	}
	sort.Strings(names)
	os.WriteFile(filepath.Join(proj, "setup.py"), []byte(
		"from setuptools import setup\nsetup(name='"+name+"', version='"+version+"', packages=["+strings.Join(names, ", ")+"])\n"), 0o644)
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

// Offline points pip at a wheel directory only (PIP_NO_INDEX,
// PIP_FIND_LINKS) and the test, and the commands it starts, at a user
// cache of its own, so that the environments it installs (package deps)
// are its own: tests of other packages run at the same time and install
// the same environments (the same wheels make the same hash), and the
// cleanup of one removed an environment from under the other's worker
// (numpy then imported as an empty namespace package). Go's build cache
// and compiled go blocks' cache stay the user's (GOCACHE,
// FLOWCTL_GO_CACHE), so nothing is built again. The environments are
// removed when the test ends; before lists those there were (none).
func Offline(t *testing.T, wheels string) (before map[string]bool) {
	t.Setenv("PIP_NO_INDEX", "1")
	t.Setenv("PIP_FIND_LINKS", wheels)
	if user, err := os.UserCacheDir(); err == nil {
		if os.Getenv("GOCACHE") == "" {
			t.Setenv("GOCACHE", filepath.Join(user, "go-build"))
		}
		if os.Getenv("FLOWCTL_GO_CACHE") == "" { // gobuild.EnvCacheDir
			t.Setenv("FLOWCTL_GO_CACHE", filepath.Join(user, "flowctl", "go"))
		}
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	before = envs(t)
	t.Cleanup(func() { ForgetEnvs(t, before) })
	return before
}

// envDir is where package deps keeps environments.
func envDir(t testing.TB) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "flowctl", "python-envs")
}

// envs lists the environments there are.
func envs(t testing.TB) map[string]bool {
	out := map[string]bool{}
	entries, _ := os.ReadDir(envDir(t))
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

// ForgetEnvs removes the environments installed since before (a list
// taken by Offline, or nil for since Offline), as on a machine that never
// installed them.
func ForgetEnvs(t testing.TB, before map[string]bool) {
	root := envDir(t)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if before[e.Name()] {
			continue
		}
		p := filepath.Join(root, e.Name())
		filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(q, 0o755)
			}
			return nil
		})
		if err := os.RemoveAll(p); err != nil {
			t.Errorf("removing the environment %s: %v", p, err)
		}
	}
}

// WheelOf makes a wheel of a package installed elsewhere (its directory
// src, such as Debian's /usr/lib/python3/dist-packages/numpy), tagged for
// the platform given (cp311-cp311-linux_x86_64), into dir, and returns its
// path: a wheel of native code built by someone else, as an index would
// serve it.
func WheelOf(t testing.TB, dir, name, version, tag, src string) string {
	t.Helper()
	module := filepath.Base(src)
	dist := strings.ReplaceAll(name, "-", "_") + "-" + version
	path := filepath.Join(dir, dist+"-"+tag+".whl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	var record []string
	add := func(name string, body []byte) {
		w, err := zw.Create(name)
		if err == nil {
			_, err = w.Write(body)
		}
		if err != nil {
			t.Fatal(err)
		}
		record = append(record, name+",,")
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.Contains(p, "__pycache__") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(src), p)
		add(filepath.ToSlash(rel), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	info := dist + ".dist-info/"
	add(info+"METADATA", []byte("Metadata-Version: 2.1\nName: "+name+"\nVersion: "+version+"\n"))
	add(info+"WHEEL", []byte("Wheel-Version: 1.0\nGenerator: depstest\nRoot-Is-Purelib: false\nTag: "+tag+"\n"))
	add(info+"top_level.txt", []byte(module+"\n"))
	record = append(record, info+"RECORD,,")
	w, _ := zw.Create(info + "RECORD")
	w.Write([]byte(strings.Join(record, "\n") + "\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Missing ends a test that needs a component this machine lacks (a python
// that builds wheels, Debian's numpy, a C compiler): it fails in CI
// (CI set), where .ci/run installs them, and is skipped elsewhere, so that
// `go test ./...` on a machine with only Go passes.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format+" (skipped outside CI; .ci/run installs it)", args...)
}
