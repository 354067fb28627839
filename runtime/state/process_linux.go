package state

import (
	"os"
	"strconv"
	"strings"
)

// processToken identifies a process on Linux: the machine's boot, the PID
// namespace and the process's start time (in clock ticks since boot), so
// that a process on the same machine can tell that it has gone, even when
// another process has taken its PID since.
func processToken(pid int) string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	start, ok := startTime(pid)
	if !ok {
		return ""
	}
	return strings.TrimSpace(string(boot)) + " " + ns + " " + start
}

// startTime is field 22 of /proc/PID/stat, the process's start time;
// false when there is no such process, or only its zombie.
func startTime(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// The command, field 2, is in parentheses and may hold anything: the
	// fields after it are counted from its last ")".
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return "", false
	}
	return f[19], true // fields 3.. are f[0..]: field 22 is f[19]
}

// sameMachine reports whether a process of token runs on this machine,
// in this PID namespace: then its PID means the same here.
func (p process) sameMachine(token string) bool {
	mine, _, ok1 := cutLast(p.token)
	theirs, _, ok2 := cutLast(token)
	return ok1 && ok2 && mine == theirs
}

// alive reports whether the process of token (on this machine) still
// runs.
func (p process) alive(pid int, token string) bool {
	_, start, ok := cutLast(token)
	if !ok {
		return true
	}
	now, ok := startTime(pid)
	return ok && now == start
}
