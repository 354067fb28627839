package isolate

import (
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

const nativeArch = unix.AUDIT_ARCH_X86_64

// archPrologue refuses x32 system calls, which share the architecture
// value but have numbers of their own.
var archPrologue = []bpf.Instruction{
	bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipFalse: 1},
	bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
}

// archDeniedSyscalls are the older calls amd64 still has next to their
// *at and 4 forms.
var archDeniedSyscalls = []uintptr{
	unix.SYS_FORK, unix.SYS_VFORK, unix.SYS_ACCEPT, unix.SYS_OPEN, unix.SYS_CREAT,
	unix.SYS_UNLINK, unix.SYS_RENAME, unix.SYS_MKDIR, unix.SYS_RMDIR, unix.SYS_LINK, unix.SYS_SYMLINK,
	unix.SYS_CHMOD, unix.SYS_CHOWN, unix.SYS_LCHOWN, unix.SYS_MKNOD, unix.SYS_USELIB,
}
