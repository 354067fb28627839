//go:build linux && (amd64 || arm64)

package isolate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// maxOpenFiles is the worker's RLIMIT_NOFILE: the protocol pipes and what
// the Go runtime opens for itself, with room to spare, but no more.
const maxOpenFiles = 32

// confine applies the worker's limits to itself and returns the layers it
// had to go without, each with the reason. It runs before the first
// request is read.
func confine(l limits) (missing []string) {
	debug.SetMaxStack(l.maxStack)
	// The garbage collector works harder as the heap nears the budget;
	// RLIMIT_AS is the hard stop.
	debug.SetMemoryLimit(l.memory)
	// A worker's heap is small and short-lived; collecting less often
	// saves CPU per call, and the limit above still bounds it.
	debug.SetGCPercent(400)
	if err := os.Chdir("/"); err != nil {
		missing = append(missing, "a neutral working directory ("+err.Error()+")")
	}
	if vm, err := virtualSize(); err != nil {
		missing = append(missing, "the memory limit ("+err.Error()+")")
	} else if err := setLimit(unix.RLIMIT_AS, uint64(vm+l.memory)); err != nil {
		missing = append(missing, "the memory limit ("+err.Error()+")")
	}
	missing = append(missing, setLimits(l)...)
	if err := restrictLandlock(); err != nil {
		missing = append(missing, "Landlock file system and network rules ("+err.Error()+")")
	}
	if err := installSeccomp(); err != nil {
		missing = append(missing, "the seccomp system call filter ("+err.Error()+")")
	}
	return missing
}

// confineForExec confines a worker that is to become a compiled block's
// program: the limits and Landlock rules of confine (Landlock lets it
// execute the program and nothing else), which hold across exec. What
// cannot be done before exec is left to the program, with what it needs:
// the file descriptor of /proc/self/status, to size the memory limit once
// it runs (-1 when it could not be opened), and the seccomp filter (as the
// hex of its struct sock_filter array), which would refuse the exec.
func confineForExec(l limits, program string) (missing []string, statusFD int, filter string) {
	if err := os.Chdir("/"); err != nil {
		missing = append(missing, "a neutral working directory ("+err.Error()+")")
	}
	statusFD, err := unix.Open("/proc/self/status", unix.O_RDONLY, 0) // inherited by the program
	if err != nil {
		statusFD = -1
	}
	missing = append(missing, setLimits(l)...)
	rule := landlock.PathAccess(llsys.AccessFSExecute|llsys.AccessFSReadFile, program)
	if err := restrictLandlock(rule); err != nil {
		missing = append(missing, "Landlock file system and network rules ("+err.Error()+")")
	}
	raw, err := seccompFilter(false)
	if err != nil {
		missing = append(missing, "the seccomp system call filter ("+err.Error()+")")
		return missing, statusFD, ""
	}
	return missing, statusFD, filterHex(raw)
}

// confineForPython confines a worker that is to become the python runner:
// the limits of confineForExec, and Landlock rules that let it execute
// the interpreter (and its dynamic loader) and read its own installation,
// the shared libraries it maps and the time zone database, and nothing
// else. The memory limit, sized once the interpreter has started, and the
// seccomp filter (which would refuse the exec) are left to the runner,
// with what it needs.
func confineForPython(l limits, w *pyrun.Worker) (missing []string, statFD int, filter string) {
	if err := os.Chdir("/"); err != nil {
		missing = append(missing, "a neutral working directory ("+err.Error()+")")
	}
	// /proc/self/stat, inherited by the interpreter: the runner reads its
	// size and its number of threads there.
	statFD, err := unix.Open("/proc/self/stat", unix.O_RDONLY, 0)
	if err != nil {
		statFD = -1
	}
	missing = append(missing, setLimits(l)...)
	exe := []string{w.Python}
	if w.ELF != "" {
		exe = append(exe, w.ELF)
	}
	rules := []landlock.Rule{
		landlock.PathAccess(llsys.AccessFSExecute|llsys.AccessFSReadFile, exe...),
		landlock.RODirs(w.Dirs...).IgnoreIfMissing(),
		landlock.ROFiles(w.Files...).IgnoreIfMissing(),
	}
	if err := restrictLandlock(rules...); err != nil {
		missing = append(missing, "Landlock file system and network rules ("+err.Error()+")")
	}
	raw, err := seccompFilter(true)
	if err != nil {
		missing = append(missing, "the seccomp system call filter ("+err.Error()+")")
		return missing, statFD, ""
	}
	return missing, statFD, filterHex(raw)
}

// filterHex is the hex of a filter's struct sock_filter array, as a
// program started after exec installs it.
func filterHex(raw []bpf.RawInstruction) string {
	b := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		b = binary.NativeEndian.AppendUint16(b, in.Op)
		b = append(b, in.Jt, in.Jf)
		b = binary.NativeEndian.AppendUint32(b, in.K)
	}
	return hex.EncodeToString(b)
}

// confinable reports the layers a worker of a python block (python) or of
// a compiled go block cannot have on this system, which the pool refuses
// to run them without: none on Linux, but Landlock for python (which,
// unlike a compiled block, opens files: the seccomp filter lets it read,
// and Landlock keeps it to its own installation).
func confinable(python bool) (missing []string) {
	if forcedUnconfinable() {
		return unconfinableLayers
	}
	if !python {
		return nil
	}
	if abi, err := llsys.LandlockGetABIVersion(); err != nil || abi < 1 {
		return []string{"Landlock file rules (the kernel has none)"}
	}
	return nil
}

// seccompNr is the number of the seccomp system call.
const seccompNr = unix.SYS_SECCOMP

// setLimits sets the worker's CPU, file size, core dump and open file
// limits.
func setLimits(l limits) (missing []string) {
	cpu := uint64((l.cpu + time.Second - 1) / time.Second)
	for _, r := range []struct {
		res  int
		max  uint64
		name string
	}{
		{unix.RLIMIT_CPU, cpu, "the CPU time limit"},
		{unix.RLIMIT_FSIZE, 0, "the file size limit"},
		{unix.RLIMIT_CORE, 0, "the core dump limit"},
		{unix.RLIMIT_NOFILE, maxOpenFiles, "the open file limit"},
	} {
		if err := setLimit(r.res, r.max); err != nil {
			missing = append(missing, r.name+" ("+err.Error()+")")
		}
	}
	return missing
}

func setLimit(res int, n uint64) error {
	return unix.Setrlimit(res, &unix.Rlimit{Cur: n, Max: n})
}

// virtualSize is the process's current virtual memory size in bytes, from
// /proc/self/status.
func virtualSize() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "VmSize:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}

// restrictLandlock denies every file system access but what rules allow,
// TCP bind and connect, and signals and abstract sockets outside the
// worker, as far as the kernel's Landlock supports.
func restrictLandlock(rules ...landlock.Rule) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		if err == nil {
			err = fmt.Errorf("ABI version %d", abi)
		}
		return fmt.Errorf("not available on this kernel: %w", err)
	}
	return landlock.V11.BestEffort().Restrict(rules...)
}

// cpuUsed is the CPU time the worker has used.
func cpuUsed() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
