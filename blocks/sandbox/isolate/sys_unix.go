//go:build unix

package isolate

import (
	"os"
	"syscall"
)

// killGroup kills a worker's process group.
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }

// signalOf names the signal that ended a process, or "".
func signalOf(st *os.ProcessState) string {
	if st == nil {
		return ""
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	switch ws.Signal() {
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	}
	return ws.Signal().String()
}

// isPipe reports whether fd is open on a pipe, as the protocol's are.
func isPipe(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
}

// execProgram replaces the process with a program, with an empty
// environment.
func execProgram(path string, args []string) error {
	return syscall.Exec(path, args, []string{})
}
