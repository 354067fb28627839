//go:build linux && (amd64 || arm64)

package isolate

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // the low 32 bits of args[0] on little-endian machines
	offArg2 = 32 // of args[2]
)

// openWrites are the flags of an open for writing, or that creates or
// truncates a file.
const openWrites = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC | unix.O_APPEND

const cloneThread = unix.CLONE_THREAD

// deniedSyscalls are refused with EPERM: starting programs, sockets,
// opening and changing files (their modes and owners too), tracing other processes, namespaces,
// mounts, kernel modules and keys, io_uring (which bypasses the filter),
// and signals to other processes. The Go runtime needs none of them once
// it has started.
var deniedSyscalls = append([]uintptr{
	unix.SYS_EXECVE, unix.SYS_EXECVEAT,
	unix.SYS_SOCKET, unix.SYS_SOCKETPAIR, unix.SYS_CONNECT, unix.SYS_BIND, unix.SYS_LISTEN, unix.SYS_ACCEPT4,
	unix.SYS_OPENAT, unix.SYS_OPENAT2, unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_UNLINKAT, unix.SYS_RENAMEAT, unix.SYS_RENAMEAT2, unix.SYS_MKDIRAT, unix.SYS_MKNODAT,
	unix.SYS_LINKAT, unix.SYS_SYMLINKAT, unix.SYS_FCHMODAT, unix.SYS_FCHOWNAT, unix.SYS_TRUNCATE,
	// A file a python worker opened for reading is still its owner's:
	// without these its native code could make it writable (Landlock
	// rules reads and writes, not modes or owners).
	unix.SYS_FCHMOD, unix.SYS_FCHOWN, unix.SYS_FCHMODAT2,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_KILL, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT,
}, archDeniedSyscalls...)

// seccompFilter is the worker's filter: system calls of another
// architecture are refused, clone is allowed only for threads (clone3,
// whose flags a filter cannot see, is refused so that callers fall back to
// clone), and deniedSyscalls are refused. A python worker's (python) lets
// openat open files for reading (its interpreter imports modules as code
// asks for them; Landlock keeps it to its own installation) and
// socketpair make a pair of Unix sockets (asyncio's event loop wakes
// itself through one; they reach nothing outside the process).
func seccompFilter(python bool) ([]bpf.RawInstruction, error) {
	deny := bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)}
	allow := bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: nativeArch, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	prog = append(prog, archPrologue...)
	prog = append(prog,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE3, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipFalse: 4},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: cloneThread, SkipFalse: 1},
		allow,
		deny,
	)
	if python {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_OPENAT, SkipFalse: 4},
			bpf.LoadAbsolute{Off: offArg2, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: openWrites, SkipFalse: 1},
			deny,
			allow,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKETPAIR, SkipFalse: 4},
			bpf.LoadAbsolute{Off: offArg0, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
			allow,
			deny,
		)
	}
	for _, nr := range deniedSyscalls {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr), SkipFalse: 1}, deny)
	}
	prog = append(prog, allow)
	return bpf.Assemble(prog)
}

// installSeccomp loads the filter on every thread of the worker.
func installSeccomp() error {
	raw, err := seccompFilter(false)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}
