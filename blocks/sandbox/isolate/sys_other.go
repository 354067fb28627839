//go:build !unix

package isolate

import (
	"errors"
	"os"
	"syscall"
)

// Workers need a Unix: their protocol runs on inherited pipes. Elsewhere
// starting one fails with an error that says so, and code blocks can run
// with --sandbox=inprocess.

func killGroup(pid int) {}

func signalOf(st *os.ProcessState) string { return "" }

func isPipe(fd int) bool { return false }

func execProgram(path string, args []string) error { return errors.New("not available on this system") }

func sysProcAttr(namespaces bool) *syscall.SysProcAttr { return nil }

// haveNamespaces: the system has user and network namespaces.
const haveNamespaces = false
