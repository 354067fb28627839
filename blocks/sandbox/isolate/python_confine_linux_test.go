//go:build linux && (amd64 || arm64)

package isolate

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// TestPythonWorkerLimitsAndNamespaces: a python worker, which the pool
// starts directly, runs with the limits a sandbox worker sets itself and in
// a user and network namespace of its own.
func TestPythonWorkerLimitsAndNamespaces(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1, noAudit: true, CPU: 3 * time.Minute})
	b := pyBlock(t, escape+`
def execute(input, ctx):
    resource = real_import()("resource")
    return {"out": {name: list(resource.getrlimit(getattr(resource, name)))
                    for name in ("RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_NOFILE", "RLIMIT_AS")}}`)
	v, err := run(t, p, b, 1, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]uint64{"RLIMIT_CPU": 180, "RLIMIT_FSIZE": 0, "RLIMIT_CORE": 0, "RLIMIT_NOFILE": maxOpenFiles} {
		lim := v.GetAttr(name)
		soft, _ := lim.Index(cty.NumberIntVal(0)).AsBigFloat().Uint64()
		hard, _ := lim.Index(cty.NumberIntVal(1)).AsBigFloat().Uint64()
		if soft != want || hard != want {
			t.Errorf("%s is %d/%d, want %d", name, soft, hard, want)
		}
	}
	// The address space may grow by Memory after start-up: its limit is
	// above Memory, and far below what an unlimited one reads (2⁶⁴-1).
	as, _ := v.GetAttr("RLIMIT_AS").Index(cty.NumberIntVal(1)).AsBigFloat().Uint64()
	if as <= DefaultMemory || as > DefaultMemory+(4<<30) {
		t.Errorf("RLIMIT_AS is %d", as)
	}

	p.mu.Lock()
	if len(p.workers) != 1 {
		p.mu.Unlock()
		t.Fatalf("%d workers", len(p.workers))
	}
	pid := p.workers[0].cmd.Process.Pid
	exe := p.workers[0].cmd.Path
	p.mu.Unlock()
	if self, _ := os.Executable(); exe == self {
		t.Errorf("the worker is this executable, not the interpreter")
	}
	checkNamespaces(t, pid)
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !strings.Contains(string(st), want) {
			t.Errorf("the worker's status lacks %q", want)
		}
	}
}

// TestPythonWorkerRefusesToRunUnconfined: a python worker whose Landlock
// ruleset or resource limits cannot be applied exits before it reads a
// request; the call fails saying why, and the block's code never runs.
func TestPythonWorkerRefusesToRunUnconfined(t *testing.T) {
	needPython(t)
	for layer, want := range map[string]string{
		"landlock": "refused to run: the python worker could not confine itself (Landlock: ",
		"rlimit":   "refused to run: the python worker could not confine itself (a limit that cannot be set: Invalid argument)",
	} {
		p := newPool(t, Options{Size: 1, breakConfinement: layer})
		b := pyBlock(t, "def execute(input, ctx):\n    print('ran')\n    return {'out': 'ran'}")
		var lines []string
		call := callOf(b, 1)
		call.Log = func(l string) { lines = append(lines, l) }
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := p.Execute(ctx, call)
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one with %q", layer, err, want)
		}
		if res != nil || len(lines) > 0 {
			t.Errorf("%s: the block ran: %v, log %q", layer, res, lines)
		}
		if n := p.Spawned(); n != 0 {
			t.Errorf("%s: %d workers started", layer, n)
		}
	}
}
