//go:build linux

package pyrun

import "syscall"

// helperProcAttr makes the helper die with flowctl.
func helperProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
