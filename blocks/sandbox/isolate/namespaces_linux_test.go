//go:build linux

package isolate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
)

// TestWorkerNamespaces: a js worker, and a compiled go block's program,
// run in a user and a network namespace of their own, mapping only this
// process's user and group, both where the worker makes them itself
// (built with cgo: selfUnshare) and where the kernel makes them as it
// starts the worker.
func TestWorkerNamespaces(t *testing.T) {
	js := plusOneJS(t)
	modes := map[string]bool{"kernel": true}
	if selfUnshare {
		modes["worker"] = false
	}
	for name, fork := range modes {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var said []string
			p := newPool(t, Options{Size: 1, forkNamespaces: fork, Notice: func(s string) {
				mu.Lock()
				defer mu.Unlock()
				said = append(said, s)
			}})
			checkNamespaces(t, workerPid(t, p, js))
			checkNamespaces(t, workerPid(t, p, compiledBlock(t, "", `return map[string]any{"out": input["n"].(float64) + 1}, nil`)))
			mu.Lock()
			defer mu.Unlock()
			for _, s := range said {
				if strings.Contains(s, namespacesLayer) {
					t.Errorf("said %q", s)
				}
			}
		})
	}
}

// checkNamespaces: the process is in a user and network namespace of
// its own, which maps only this process's user and group.
func checkNamespaces(t *testing.T, pid int) {
	t.Helper()
	for _, ns := range []string{"user", "net"} {
		if mine, its := nsOf(t, "self", ns), nsOf(t, strconv.Itoa(pid), ns); mine == its {
			t.Errorf("the worker shares this process's %s namespace (%s)", ns, its)
		}
	}
	for file, want := range map[string]string{
		"uid_map":   fmt.Sprintf("%d %d 1", os.Geteuid(), os.Geteuid()),
		"gid_map":   fmt.Sprintf("%d %d 1", os.Getegid(), os.Getegid()),
		"setgroups": "deny",
	} {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(string(b)), " "); got != want {
			t.Errorf("%s is %q, want %q", file, got, want)
		}
	}
}

// TestSpawnCopiesNoMemory: starting a worker in new namespaces does not
// fork this process (which marks all its memory copy-on-write, so that
// each page it writes afterwards faults), where the worker makes its
// namespaces itself. Where the kernel makes them, it does: the test can
// tell them apart.
func TestSpawnCopiesNoMemory(t *testing.T) {
	buf := make([]byte, 64<<20)
	touch := func() int64 {
		var before, after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		for i := 0; i < len(buf); i += 4096 {
			buf[i]++
		}
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		return after.Minflt - before.Minflt
	}
	faultsAfterSpawn := func(fork bool) int64 {
		p := newPool(t, Options{Size: 1, forkNamespaces: fork})
		touch()
		w, _, err := p.start(true, "")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { w.kill(); <-w.waited }()
		n := touch()
		t.Logf("fork %v: %d faults", fork, n)
		return n
	}
	pages := int64(len(buf) / 4096)
	if selfUnshare {
		if n := faultsAfterSpawn(false); n > pages/16 {
			t.Errorf("writing %d pages after a worker started faulted %d times: the start copied this process", pages, n)
		}
	}
	thp, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if !strings.Contains(string(thp), "[always]") {
		if n := faultsAfterSpawn(true); n < pages/2 {
			t.Errorf("writing %d pages after a fork faulted only %d times: the test does not see the copy", pages, n)
		}
	}
}

// TestWorkerNamespacesLongPath: a worker whose executable has a long path
// (its command line is read whole) still makes its namespaces.
func TestWorkerNamespacesLongPath(t *testing.T) {
	if !selfUnshare {
		t.Skip("workers make their own namespaces only when built with cgo")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 200), strings.Repeat("e", 200))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "worker")
	if err := os.Link(exe, long); err != nil {
		b, err := os.ReadFile(exe)
		if err == nil {
			err = os.WriteFile(long, b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	p := newPool(t, Options{Size: 1, Command: []string{long, WorkerArg}})
	checkNamespaces(t, workerPid(t, p, plusOneJS(t)))
}

// TestWorkerNamespacesRefused: a worker whose namespaces the kernel
// refuses runs without them, and the pool says so once, with the reason.
func TestWorkerNamespacesRefused(t *testing.T) {
	if !selfUnshare {
		t.Skip("workers make their own namespaces only when built with cgo")
	}
	var mu sync.Mutex
	var said []string
	p := newPool(t, Options{Size: 1, breakConfinement: "namespaces", Notice: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		said = append(said, s)
	}})
	pid := workerPid(t, p, plusOneJS(t))
	if mine, its := nsOf(t, "self", "net"), nsOf(t, strconv.Itoa(pid), "net"); mine != its {
		t.Errorf("the worker is in a network namespace of its own (%s), though the kernel refused it", its)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"code blocks run without a user and network namespace (unshare: invalid argument)"}
	if fmt.Sprint(said) != fmt.Sprint(want) {
		t.Errorf("said %q, want %q", said, want)
	}
}

// TestWorkerArgInC: the constructor that makes a worker's namespaces
// knows a worker by the argument the pool gives it.
func TestWorkerArgInC(t *testing.T) {
	if selfUnshare && workerArgC != WorkerArg {
		t.Fatalf("the constructor looks for %q, the pool passes %q", workerArgC, WorkerArg)
	}
}

// TestUnshareOnlyInWorkers: a process that is not a sandbox worker stays
// in its namespaces, even with the worker's variable set.
func TestUnshareOnlyInWorkers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, netProbeArg)
	cmd.Env = append(os.Environ(), unshareEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if mine := nsOf(t, "self", "net"); string(out) != mine {
		t.Errorf("a process that is no worker moved to network namespace %q (this one is %q)", out, mine)
	}
}

// workerPid runs a call of b (whose output is its input plus 1) in a
// pool of one worker and returns the worker's process ID.
func workerPid(t *testing.T, p *Pool, b *blocks.Block) int {
	t.Helper()
	if v, err := run(t, p, b, 1, time.Minute); err != nil {
		t.Fatal(err)
	} else if f, _ := v.AsBigFloat().Float64(); f != 2 {
		t.Fatalf("the call returned %v", v.GoString())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.workers) != 1 {
		t.Fatalf("%d workers", len(p.workers))
	}
	return p.workers[0].cmd.Process.Pid
}

func nsOf(t *testing.T, pid, ns string) string {
	t.Helper()
	l, err := os.Readlink("/proc/" + pid + "/ns/" + ns)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
