package isolate

import (
	"os"
	"syscall"
)

// sysProcAttr puts a worker in a process group of its own (so that it can
// be killed with anything it started), kills it when flowctl dies, and,
// when asked, in a new user namespace (mapping only our own user) and a
// new network namespace, which has no interfaces but loopback.
func sysProcAttr(namespaces bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if namespaces {
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return a
}

// haveNamespaces: the system has user and network namespaces.
const haveNamespaces = true
