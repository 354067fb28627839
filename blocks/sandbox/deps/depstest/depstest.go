// Package depstest builds python wheels for tests of code blocks with
// requirements, with pip itself, from small projects the tests write.
package depstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Python is the interpreter that builds wheels: FLOWCTL_TEST_PYTHON, else
// Debian's /usr/bin/python3, which has pip, setuptools and wheel from apt
// (.ci/run installs them), else python3 on PATH. A test fails, never
// skips, when it cannot build.
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
	t.Fatalf("no python can build wheels (pip, setuptools and wheel are needed: apt-get install python3-pip python3-wheel)")
	return ""
}

// Wheel builds the wheel of a project named name at version, holding one
// package (a directory module with __init__.py of the source given), with
// pip wheel, into dir, and returns its path.
func Wheel(t testing.TB, dir, name, version, module, source string) string {
	t.Helper()
	python := Python(t)
	proj := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(proj, module), 0o755); err != nil {
		t.Fatal(err)
	}
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

// Offline points pip at a wheel directory only (PIP_NO_INDEX,
// PIP_FIND_LINKS), and the user's cache at a directory of the test.
func Offline(t *testing.T, wheels string) {
	t.Setenv("PIP_NO_INDEX", "1")
	t.Setenv("PIP_FIND_LINKS", wheels)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}
