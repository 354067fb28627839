//go:build linux && (amd64 || arm64)

package isolate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
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

// pythonConfinement is how a python worker confines itself: the pool
// starts the interpreter directly (in a user and network namespace of its
// own), and the runner, before it reads a request, sets the limits of
// setLimits and the memory limit, enforces the Landlock ruleset (the file
// returned, which the worker inherits) and installs the seccomp filter.
// The ruleset lets it read its own installation, the shared libraries it
// maps and the time zone database, and nothing else.
func pythonConfinement(l limits, w *pyrun.Worker) (pyrun.RunnerConfig, *os.File, error) {
	key := w.Packages
	if key != "" {
		// A Landlock rule holds the directory it was made for, not its
		// path: an environment removed from the cache and installed
		// again is a directory of its own, which needs rules of its own.
		var st unix.Stat_t
		if err := unix.Stat(w.Packages, &st); err == nil {
			key = fmt.Sprintf("%s\x00%d:%d", w.Packages, st.Dev, st.Ino)
		}
	}
	pyMu.Lock()
	c := py[key]
	if c == nil {
		c = &pyConfinement{}
		py[key] = c
	}
	pyMu.Unlock()
	c.once.Do(func() {
		exe := []string{w.Python}
		if w.ELF != "" {
			exe = append(exe, w.ELF)
		}
		rules := []pathRule{
			{llsys.AccessFSExecute | llsys.AccessFSReadFile, exe, false},
			{llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir, w.Dirs, true},
			{llsys.AccessFSExecute | llsys.AccessFSReadFile, w.Files, true},
		}
		if w.Packages != "" {
			// A block's packages: read, never written (their
			// environment is read-only to the worker, root or not).
			rules = append(rules, pathRule{llsys.AccessFSReadFile | llsys.AccessFSReadDir, []string{w.Packages}, false},
				pathRule{llsys.AccessFSExecute | llsys.AccessFSReadFile, w.PackageLibraries, true})
		}
		c.ruleset, c.err = landlockRuleset(rules...)
		if c.err != nil {
			c.err = fmt.Errorf("cannot make the Landlock rules of a python worker: %w", c.err)
			return
		}
		raw, err := seccompFilter(true)
		if err != nil {
			c.err = fmt.Errorf("cannot make the seccomp filter of a python worker: %w", err)
			return
		}
		c.filter = filterHex(raw)
	})
	if c.err != nil {
		return pyrun.RunnerConfig{}, nil, c.err
	}
	return pyrun.RunnerConfig{
		Limits: rlimits(l), Memory: l.memory, MemoryResource: unix.RLIMIT_AS, CPU: l.cpu,
		Landlock: rulesetFD, LandlockNr: unix.SYS_LANDLOCK_RESTRICT_SELF,
		Seccomp: c.filter, SeccompNr: seccompNr, NoAudit: l.noAudit,
	}, c.ruleset, nil
}

// py is what the python workers of the process are given, made once for
// each environment of packages ("" for none; its directory's path and
// device and inode, since the rules hold the directory): the Landlock ruleset (the
// python workers' rules depend on the interpreter and the environment
// only) and the seccomp filter.
var (
	pyMu sync.Mutex
	py   = map[string]*pyConfinement{}
)

type pyConfinement struct {
	once    sync.Once
	ruleset *os.File
	filter  string
	err     error
}

// pathRule lets a process have access to each of paths (beneath it, for a
// directory); a missing path is skipped when ignoreMissing.
type pathRule struct {
	access        uint64
	paths         []string
	ignoreMissing bool
}

// landlockRuleset makes a Landlock ruleset, for a worker to enforce on
// itself, that denies every file system access but what rules allow, TCP
// bind and connect, and signals and abstract sockets outside the worker,
// as far as the kernel's Landlock supports: what restrictLandlock
// enforces in the process itself (go-landlock's V11 configuration, best
// effort), as a file.
func landlockRuleset(rules ...pathRule) (*os.File, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		if err == nil {
			err = fmt.Errorf("ABI version %d", abi)
		}
		return nil, fmt.Errorf("not available on this kernel: %w", err)
	}
	// Each version's configuration handles all its rights.
	cfg := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
		landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	c := cfg[min(abi, len(cfg))-1]
	attr := llsys.RulesetAttr{
		HandledAccessFS: uint64(c.HandledAccessFS), HandledAccessNet: uint64(c.HandledAccessNet), Scoped: uint64(c.Scoped),
	}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	f := os.NewFile(uintptr(fd), "landlock-ruleset")
	for _, r := range rules {
		for _, path := range r.paths {
			if err := addPathRule(fd, path, r.access&attr.HandledAccessFS); err != nil {
				if r.ignoreMissing && errors.Is(err, unix.ENOENT) {
					continue
				}
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return f, nil
}

// addPathRule adds a "path beneath" rule; a file (not a directory) gets
// the rights that apply to files only.
func addPathRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSTruncate | llsys.AccessFSIoctlDev
	}
	if access == 0 {
		return nil
	}
	return llsys.LandlockAddPathBeneathRule(ruleset, &llsys.PathBeneathAttr{ParentFd: fd, AllowedAccess: access}, 0)
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

// rlimits are a worker's CPU, file size, core dump and open file limits.
func rlimits(l limits) []pyrun.Limit {
	cpu := uint64((l.cpu + time.Second - 1) / time.Second)
	return []pyrun.Limit{
		{Resource: unix.RLIMIT_CPU, Max: cpu, Name: "the CPU time limit"},
		{Resource: unix.RLIMIT_FSIZE, Max: 0, Name: "the file size limit"},
		{Resource: unix.RLIMIT_CORE, Max: 0, Name: "the core dump limit"},
		{Resource: unix.RLIMIT_NOFILE, Max: maxOpenFiles, Name: "the open file limit"},
	}
}

// setLimits sets the limits of rlimits on the worker itself.
func setLimits(l limits) (missing []string) {
	for _, r := range rlimits(l) {
		if err := setLimit(r.Resource, r.Max); err != nil {
			missing = append(missing, r.Name+" ("+err.Error()+")")
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
