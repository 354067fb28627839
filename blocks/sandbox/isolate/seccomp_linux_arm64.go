package isolate

import (
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

const nativeArch = unix.AUDIT_ARCH_AARCH64

var archPrologue []bpf.Instruction

// archDeniedSyscalls: arm64 has only the *at forms, listed for all.
var archDeniedSyscalls []uintptr
