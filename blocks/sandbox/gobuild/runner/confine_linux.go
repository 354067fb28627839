//go:build linux

package runner

import (
	"bytes"
	"encoding/hex"
	"errors"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// limitMemory sets RLIMIT_AS to the process's size now plus memory bytes.
// The size is read from fd, /proc/self/status opened before the process
// was confined (it is the same process after exec).
func limitMemory(fd int, memory int64) error {
	if fd < 0 {
		return errors.New("no status file")
	}
	defer syscall.Close(fd)
	buf := make([]byte, 4096)
	n, err := syscall.Pread(fd, buf, 0)
	if err != nil {
		return err
	}
	_, rest, ok := bytes.Cut(buf[:n], []byte("VmSize:"))
	if !ok {
		return errors.New("no VmSize in /proc/self/status")
	}
	fields := bytes.Fields(rest)
	if len(fields) == 0 {
		return errors.New("no VmSize in /proc/self/status")
	}
	kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
	if err != nil {
		return err
	}
	n64 := uint64(kb<<10 + memory)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n64, Max: n64})
}

// sockFprog is struct sock_fprog.
type sockFprog struct {
	len    uint16
	filter unsafe.Pointer
}

// installSeccomp loads a seccomp filter on every thread: filter is the
// hex of its struct sock_filter array, nr the number of the seccomp
// system call on this machine.
func installSeccomp(nr int, filter string) error {
	raw, err := hex.DecodeString(filter)
	if err != nil || len(raw) == 0 || len(raw)%8 != 0 || nr == 0 {
		return errors.New("the filter is malformed")
	}
	const (
		prSetNoNewPrivs = 38
		setModeFilter   = 1
		filterFlagTsync = 1
		maxInstructions = 4096
	)
	if len(raw)/8 > maxInstructions {
		return errors.New("the filter is too long")
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return errno
	}
	prog := sockFprog{len: uint16(len(raw) / 8), filter: unsafe.Pointer(&raw[0])}
	_, _, errno := syscall.Syscall(uintptr(nr), setModeFilter, filterFlagTsync, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(raw)
	if errno != 0 {
		return errno
	}
	return nil
}

// cpuUsed is the CPU time the process has used.
func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
