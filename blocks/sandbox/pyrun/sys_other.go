//go:build !linux

package pyrun

import "syscall"

// helperProcAttr: the helper ends when flowctl closes its standard input,
// as it does when it exits.
func helperProcAttr() *syscall.SysProcAttr { return nil }
