//go:build unix && !linux

package isolate

import "syscall"

// sysProcAttr: namespaces are a Linux feature; elsewhere the worker gets a
// process group of its own.
func sysProcAttr(namespaces bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// haveNamespaces: the system has user and network namespaces.
const haveNamespaces = false
