//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/deps/depstest"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
)

// nativeEscape is a package's C extension that, when the package is
// imported (before the block's first call, when the worker's audit hook
// lets a package load C code), tries what only the kernel can refuse:
// start a program, read a file outside what the worker may read, and make
// its own installed file writable. Each attempt's errno is reported.
const nativeEscape = `#define _GNU_SOURCE
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

extern char **environ;

static PyObject *attempt(PyObject *self, PyObject *args) {
    const char *own;
    if (!PyArg_ParseTuple(args, "s", &own))
        return NULL;
    char *argv[] = {"/bin/sh", "-c", "touch /tmp/flowctl-evil-native", NULL};
    int ex, sys, fk, rd, ch, ch2;
    errno = 0; execve("/bin/sh", argv, environ); ex = errno;
    sys = system("touch /tmp/flowctl-evil-native") == 0 ? 0 : 1;
    errno = 0; pid_t p = fork(); if (p == 0) _exit(0); fk = p < 0 ? errno : 0;
    errno = 0; int fd = open("/etc/passwd", O_RDONLY); rd = fd < 0 ? errno : 0; if (fd >= 0) close(fd);
    fd = open(own, O_RDONLY);
    errno = 0; ch = fd < 0 ? -1 : (fchmod(fd, 0666) < 0 ? errno : 0); if (fd >= 0) close(fd);
    errno = 0; ch2 = syscall(SYS_fchmodat2, AT_FDCWD, own, 0666, 0) < 0 ? errno : 0;
    return PyUnicode_FromFormat("execve=%d system=%d fork=%d read=%d fchmod=%d fchmodat2=%d", ex, sys, fk, rd, ch, ch2);
}

static PyMethodDef methods[] = {{"attempt", attempt, METH_VARARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};
PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&mod); }
`

// TestPackagesNativeCodeConfined: a package's own C code, run when the
// package is imported, is stopped by the kernel where the audit hook
// cannot see it: execve, fork and system fail with EPERM (seccomp), a
// file outside the worker's reach cannot be opened (Landlock), and the
// package cannot make its installed files writable (fchmod, fchmodat2),
// which would let anyone change the environment for later runs. A
// package may call libc through ctypes while it is imported (the audit
// hook sees no call of a C function): the kernel still refuses the
// program it starts.
func TestPackagesNativeCodeConfined(t *testing.T) {
	py, err := pyrun.Find()
	if err != nil {
		t.Fatal(err)
	}
	interp, err := deps.Describe(t.Context(), py.Path)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := exec.Command(py.Path, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX')); print(sysconfig.get_paths()['include'])").Output()
	if err != nil {
		t.Fatal(err)
	}
	suffix, include, _ := strings.Cut(strings.TrimSpace(string(conf)), "\n")
	src := filepath.Join(t.TempDir(), "evilnative")
	os.MkdirAll(src, 0o755)
	writeFile(t, filepath.Join(src, "native.c"), nativeEscape)
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-I", include, "-o", filepath.Join(src, "_native"+suffix), filepath.Join(src, "native.c")).CombinedOutput(); err != nil {
		depstest.Missing(t, "a C compiler is needed (apt-get install gcc python3-dev): %v\n%s", err, out)
	}
	os.Remove(filepath.Join(src, "native.c"))
	writeFile(t, filepath.Join(src, "__init__.py"), "from ._native import attempt\nREPORT = attempt(__file__)\n")
	wheels := t.TempDir()
	depstest.WheelOf(t, wheels, "pkg-native", "1.0.0", interp.Tag+"-"+interp.Tag+"-"+interp.Platform, src)
	depstest.Wheel(t, wheels, "pkg-ctypes", "1.0.0", "evilctypes",
		"import ctypes\ntry:\n    R = ctypes.CDLL(None).system(b'touch /tmp/flowctl-evil-native')\nexcept BaseException as e:\n    R = repr(e)\n")
	depstest.Offline(t, wheels)
	os.Remove("/tmp/flowctl-evil-native")
	dir := t.TempDir()
	flow := filepath.Join(dir, "native.flow.hcl")
	writeFile(t, flow, `flow "native" {}

block "native" {
  runtime      = "python"
  requirements = ["pkg-native==1.0.0"]
  output "report" {
    type = string
  }
  source = <<-PY
    import evilnative

    def execute(input, ctx):
        return {"report": evilnative.REPORT}
  PY
}

block "viactypes" {
  runtime      = "python"
  requirements = ["pkg-ctypes==1.0.0"]
  output "report" {
    type = string
  }
  source = <<-PY
    def execute(input, ctx):
        try:
            import evilctypes
        except PermissionError as e:
            return {"report": str(e)}
        return {"report": "imported " + str(evilctypes.R)}
  PY
}

step "n" {
  use = "native"
}

step "c" {
  use = "viactypes"
}

output "native" {
  value = step.n.report
}

output "ctypes" {
  value = step.c.report
}
`)
	if code, out, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %d %s %s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "apply", "--auto-approve", flow)
	if code != 0 {
		t.Fatalf("apply: %d %s %s", code, out, errOut)
	}
	// EPERM is 1, EACCES 13; system=1: it could not run the shell.
	if want := "execve=1 system=1 fork=1 read=13 fchmod=1 fchmodat2=1"; !strings.Contains(out, want) {
		t.Errorf("native code was not stopped: want %q in\n%s", want, out)
	}
	// ctypes called libc's system while the package was imported (the
	// audit hook sees no call of a C function): the kernel refused the
	// shell (glibc's status 127<<8 when it cannot spawn one).
	if !strings.Contains(out, `ctypes = "imported 32512"`) {
		t.Errorf("ctypes at import:\n%s", out)
	}
	if _, err := os.Stat("/tmp/flowctl-evil-native"); err == nil {
		t.Error("a package started a program")
	}
	root, _ := deps.CacheDir()
	inits, _ := filepath.Glob(filepath.Join(root, "*", "evilnative", "__init__.py"))
	for _, p := range inits {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("the package made its file writable: %v %v", fi.Mode(), err)
		}
	}
	if len(inits) == 0 {
		t.Error("the environment is gone")
	}
}
