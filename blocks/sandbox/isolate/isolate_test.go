package isolate

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// probeArg makes the test binary confine itself like a worker and then try
// what the confinement must stop, printing one line per attempt.
const probeArg = "__isolate-probe"

// netProbeArg makes the test binary print its network namespace.
const netProbeArg = "__isolate-net-probe"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case WorkerArg:
			os.Exit(Main(os.Args[2:]))
		case probeArg:
			os.Exit(probe())
		case netProbeArg:
			l, _ := os.Readlink("/proc/self/ns/net")
			fmt.Print(l)
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// probe confines the process and reports what it can still do.
func probe() int {
	missing := confine(limits{memory: DefaultMemory, cpu: time.Minute, maxStack: defaultStack})
	fmt.Println("missing:", strings.Join(missing, "; "))
	if _, err := os.ReadFile("/etc/passwd"); err != nil {
		fmt.Println("read: denied")
	} else {
		fmt.Println("read: allowed")
	}
	if err := os.WriteFile("/tmp/isolate-probe", []byte("x"), 0o600); err != nil {
		fmt.Println("write: denied")
	} else {
		fmt.Println("write: allowed")
	}
	if c, err := net.DialTimeout("tcp", os.Getenv("PROBE_ADDR"), time.Second); err != nil {
		fmt.Println("dial: denied")
	} else {
		c.Close()
		fmt.Println("dial: allowed")
	}
	if err := exec.Command("/bin/true").Run(); err != nil {
		fmt.Println("exec: denied")
	} else {
		fmt.Println("exec: allowed")
	}
	return 0
}

// block decodes a block definition from flow-file text.
func block(t testing.TB, text string) *blocks.Block {
	t.Helper()
	bs, diags := blocks.ParseBlocks([]byte(text), "flow.hcl")
	if diags.HasErrors() || len(bs) == 0 {
		t.Fatal(diags)
	}
	return bs[0]
}

// jsBlock is block "x" with input "n" (number) and output "out" (any); the
// code's first line is line 5 of flow.hcl.
// plusOneJS is a js block whose output is its input plus 1.
func plusOneJS(t testing.TB) *blocks.Block {
	return jsBlock(t, `function execute(input) { return { out: input.n + 1 } }`)
}

func jsBlock(t testing.TB, js string) *blocks.Block {
	return block(t, `block "x" {
  runtime = "js"
  input "n" { type = number }
  output "out" { type = any }
  source = <<-JS
`+js+`
  JS
}
`)
}

// goBlock is block "g" with input "n" (number) and output "out" (any),
// Execute's body given.
func goBlock(t testing.TB, imports, body string) *blocks.Block {
	return block(t, `block "g" {
  runtime = "go"
  input "n" { type = number }
  output "out" { type = any }
  source = <<-GO
package block

import (
	"context"
`+imports+`
)

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
`+body+`
}
  GO
}
`)
}

func newPool(t testing.TB, o Options) *Pool {
	t.Helper()
	if len(o.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		o.Command = []string{exe, WorkerArg}
	}
	p := New(o)
	t.Cleanup(func() { p.Close() })
	return p
}

func callOf(b *blocks.Block, n float64) *blocks.Call {
	return &blocks.Call{Block: b, Inputs: map[string]cty.Value{"n": cty.NumberFloatVal(n)}, Outputs: b.Outputs, Step: "s"}
}

func run(t testing.TB, p *Pool, b *blocks.Block, n float64, timeout time.Duration) (cty.Value, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := p.Execute(ctx, callOf(b, n))
	if err != nil {
		return cty.NilVal, err
	}
	return res.Outputs["out"], nil
}

func TestJSAndGoCalls(t *testing.T) {
	p := newPool(t, Options{Size: 2})
	js := jsBlock(t, `function execute(input) { return { out: { twice: input.n * 2, s: "é" + input.n } } }`)
	g := goBlock(t, `"strconv"`, `return map[string]any{"out": []any{input["n"].(float64) + 1, strconv.Itoa(3)}}, nil`)
	for i := range 5 {
		v, err := run(t, p, js, float64(i), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := cty.ObjectVal(map[string]cty.Value{"twice": cty.NumberIntVal(int64(2 * i)), "s": cty.StringVal(fmt.Sprint("é", i))})
		if !v.RawEquals(want) {
			t.Fatalf("js: got %#v, want %#v", v, want)
		}
		v, err = run(t, p, g, float64(i), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want = cty.TupleVal([]cty.Value{cty.NumberIntVal(int64(i + 1)), cty.StringVal("3")})
		if !v.RawEquals(want) {
			t.Fatalf("go: got %#v, want %#v", v, want)
		}
	}
	if n := p.Spawned(); n < 1 || n > 2 {
		t.Errorf("spawned %d workers for sequential calls, want 1 or 2", n)
	}
}

func TestLogLinesAreRedacted(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	js := jsBlock(t, `function execute(input) { console.log("token", "s3cret"); return { out: 1 } }`)
	var lines []string
	call := callOf(js, 1)
	call.Log = func(l string) { lines = append(lines, l) }
	call.Redact = func(s string) string { return strings.ReplaceAll(s, "s3cret", "(sensitive)") }
	if _, err := p.Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "token (sensitive)" {
		t.Fatalf("log lines %q", lines)
	}
}

func TestErrorsNameBlockAndLine(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	js := jsBlock(t, "function execute(input) {\n  throw new TypeError('bad ' + input.n)\n}")
	_, err := run(t, p, js, 7, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), `block "x"`) || !strings.Contains(err.Error(), "line 7") || !strings.Contains(err.Error(), "TypeError: bad 7") {
		t.Fatalf("error %v", err)
	}
	g := goBlock(t, `"errors"`, `return nil, errors.New("no good")`)
	_, err = run(t, p, g, 1, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), `block "g" returned an error: no good`) {
		t.Fatalf("error %v", err)
	}
	// The worker serves on after code errors.
	if p.Spawned() != 1 {
		t.Errorf("spawned %d workers, want 1", p.Spawned())
	}
}

func TestTimeoutReplacesWorker(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	loop := jsBlock(t, `function execute(input) { for (;;) { try { while (true) {} } catch (e) {} } }`)
	_, err := run(t, p, loop, 1, 300*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) && (err == nil || !strings.Contains(err.Error(), "timeout")) {
		t.Fatalf("error %v", err)
	}
	ok := jsBlock(t, `function execute(input) { return { out: input.n } }`)
	if v, err := run(t, p, ok, 3, 5*time.Second); err != nil || !v.RawEquals(cty.NumberIntVal(3)) {
		t.Fatalf("after a timeout: %#v, %v", v, err)
	}
	if p.Spawned() != 2 {
		t.Errorf("spawned %d workers, want 2 (the timed-out one replaced)", p.Spawned())
	}
}

func TestMemoryBombsKillOnlyTheirWorker(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under the workers' address-space limit")
	}
	p := newPool(t, Options{Size: 2, Memory: 128 << 20})
	cases := map[string]*blocks.Block{
		"repeat":   jsBlock(t, `function execute(input) { return { out: 'x'.repeat(2 ** 40).length } }`),
		"doubling": jsBlock(t, `function execute(input) { let s = 'xy'; for (;;) { s = s + s } }`),
		"growth":   jsBlock(t, `function execute(input) { const a = []; for (;;) { a.push(new Array(100000).fill(1)) } }`),
		"go make":  goBlock(t, ``, `b := make([]byte, 1<<40); return map[string]any{"out": len(b)}, nil`),
		"go grow":  goBlock(t, ``, "var keep [][]byte\nfor {\n keep = append(keep, make([]byte, 1<<20))\n}"),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := run(t, p, b, 1, 20*time.Second)
			if err == nil || !strings.Contains(err.Error(), "memory limit") {
				t.Fatalf("error %v", err)
			}
		})
	}
	ok := jsBlock(t, `function execute(input) { return { out: input.n } }`)
	if v, err := run(t, p, ok, 3, 5*time.Second); err != nil || !v.RawEquals(cty.NumberIntVal(3)) {
		t.Fatalf("after the bombs: %#v, %v", v, err)
	}
}

func TestDeepRecursion(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under the workers' address-space limit")
	}
	p := newPool(t, Options{Size: 1})
	g := goBlock(t, ``, "var f func(int) int\nf = func(n int) int { return f(n+1) + 1 }\nreturn map[string]any{\"out\": f(0)}, nil")
	_, err := run(t, p, g, 1, 2*time.Second)
	if err == nil || !(strings.Contains(err.Error(), "stack") || strings.Contains(err.Error(), "memory") || strings.Contains(err.Error(), "recursion deeper") || strings.Contains(err.Error(), "timeout")) {
		t.Fatalf("error %v", err)
	}
}

func TestOversizedReply(t *testing.T) {
	p := newPool(t, Options{Size: 1, MaxMessage: 1 << 20})
	js := jsBlock(t, `function execute(input) { return { out: 'x'.repeat(2 << 20) } }`)
	_, err := run(t, p, js, 1, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "returned more than 524288 bytes of output") {
		t.Fatalf("error %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	p := newPool(t, Options{Size: 3})
	js := plusOneJS(t)
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := run(t, p, js, float64(i), 10*time.Second)
			if err == nil && !v.RawEquals(cty.NumberIntVal(int64(i+1))) {
				err = fmt.Errorf("call %d got %#v", i, v)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := p.Spawned(); n > 3 {
		t.Errorf("spawned %d workers, size is 3", n)
	}
}

func TestCloseKillsWorkers(t *testing.T) {
	p := newPool(t, Options{Size: 2})
	loop := jsBlock(t, `function execute(input) { while (true) {} }`)
	errc := make(chan error, 1)
	go func() {
		_, err := run(t, p, loop, 1, time.Minute)
		errc <- err
	}()
	// Wait, however long the machine takes, until a worker has started
	// and taken the call (none is idle).
	var pids []int
	for deadline := time.Now().Add(time.Minute); len(pids) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no worker took the call within a minute")
		}
		p.mu.Lock()
		for _, w := range p.workers {
			if len(w.pending) > 0 {
				pids = append(pids, w.cmd.Process.Pid)
			}
		}
		p.mu.Unlock()
	}
	p.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the running call succeeded")
		}
	case <-time.After(time.Minute):
		t.Fatal("the running call did not end after Close")
	}
	for _, pid := range pids {
		deadline := time.Now().Add(time.Minute)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("worker %d still exists", pid)
		}
	}
}

func TestConfinement(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, probeArg)
	cmd.Env = []string{"PROBE_ADDR=" + ln.Addr().String()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("%s", out)
	for _, want := range []string{"read: denied", "write: denied", "dial: denied", "exec: denied"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("probe output lacks %q", want)
		}
	}
}

func TestRouteRunsOptedInBlocksInProcess(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	var inProcess int
	local := blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		inProcess++
		return &blocks.Result{Outputs: map[string]cty.Value{"out": cty.NumberIntVal(9)}}, nil
	})
	ex := Route(p, local, RouteOptions{})
	reviewed := block(t, `block "r" {
  runtime = "js"
  sandbox = "inprocess"
  output "out" { type = any }
  source  = "function execute() { return { out: 1 } }"
}
`)
	if _, err := ex.Execute(context.Background(), &blocks.Call{Block: reviewed, Outputs: reviewed.Outputs}); err != nil {
		t.Fatal(err)
	}
	if inProcess != 1 || p.Spawned() != 0 {
		t.Fatalf("in process %d, workers %d; want 1 and 0", inProcess, p.Spawned())
	}
	js := jsBlock(t, `function execute(input) { return { out: input.n } }`)
	if _, err := ex.Execute(context.Background(), callOf(js, 1)); err != nil {
		t.Fatal(err)
	}
	if inProcess != 1 || p.Spawned() != 1 {
		t.Fatalf("in process %d, workers %d; want 1 and 1", inProcess, p.Spawned())
	}
	// The runtime starts as many calls of a for_each at once as the
	// executor's Width: the pool's for pooled blocks, none for in-process
	// blocks of an executor that is not bounded.
	if w := ex.(blocks.Bounded).Width(js); w < 1*pipelineDepth || w > 1*maxPipelineDepth {
		t.Errorf("width of a pooled block %d, want %d to %d", w, pipelineDepth, maxPipelineDepth)
	}
	if w := ex.(blocks.Bounded).Width(reviewed); w != 0 {
		t.Errorf("width of an in-process block %d, want 0", w)
	}
}

func TestWorkerThatDiedIdleIsReplaced(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	js := jsBlock(t, `function execute(input) { return { out: input.n } }`)
	if _, err := run(t, p, js, 1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	w := p.workers[0]
	p.mu.Unlock()
	syscall.Kill(w.cmd.Process.Pid, syscall.SIGKILL)
	<-w.waited
	if v, err := run(t, p, js, 2, 5*time.Second); err != nil || !v.RawEquals(cty.NumberIntVal(2)) {
		t.Fatalf("%#v, %v", v, err)
	}
	if p.Spawned() != 2 {
		t.Errorf("spawned %d, want 2", p.Spawned())
	}
}

func TestSpawnFailureIsAnError(t *testing.T) {
	p := newPool(t, Options{Command: []string{"/nonexistent/flowctl", WorkerArg}})
	_, err := run(t, p, jsBlock(t, `function execute() { return { out: 1 } }`), 1, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), `block "x" could not be run: cannot start a sandbox worker`) {
		t.Fatalf("error %v", err)
	}
}

func TestWorkerModeNeedsItsPipes(t *testing.T) {
	exe, _ := os.Executable()
	out, err := exec.Command(exe, WorkerArg).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "for flowctl's own use") {
		t.Fatalf("%v: %s", err, out)
	}
}

func TestRecycledAfterMaxCalls(t *testing.T) {
	p := newPool(t, Options{Size: 1, MaxCalls: 3})
	js := jsBlock(t, `function execute(input) { return { out: input.n } }`)
	for i := range 7 {
		if _, err := run(t, p, js, float64(i), 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if p.Spawned() != 3 {
		t.Errorf("spawned %d workers for 7 calls at 3 per worker, want 3", p.Spawned())
	}
}

func TestEmptyLogLines(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	js := jsBlock(t, `function execute(input) { console.log(""); console.log("a\n\nb"); return { out: 1 } }`)
	var lines []string
	call := callOf(js, 1)
	call.Log = func(l string) { lines = append(lines, l) }
	if _, err := p.Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if want := []string{"", "a", "", "b"}; fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("log lines %q, want %q", lines, want)
	}
}

func TestHugeOutputIsASizeError(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under the workers' address-space limit")
	}
	p := newPool(t, Options{Size: 1})
	for _, b := range []*blocks.Block{
		jsBlock(t, `function execute(input) { return { out: "x".repeat(20 << 20) } }`),
		goBlock(t, `"strings"`, `return map[string]any{"out": strings.Repeat("x", 20<<20)}, nil`),
	} {
		_, err := run(t, p, b, 1, 20*time.Second)
		if err == nil || !strings.Contains(err.Error(), "returned more than 16777216 bytes of output") {
			t.Errorf("%s: error %v", b.Runtime, err)
		}
	}
}

func TestTimeoutIsSeenByTheCaller(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	loop := goBlock(t, ``, "for {\n}")
	for range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		_, err := p.Execute(ctx, callOf(loop, 1))
		// The deadline has passed, whether or not the context's timer
		// has run yet (on a busy machine it may not have).
		d, _ := ctx.Deadline()
		deadline := !time.Now().Before(d)
		cancel()
		if err == nil || !deadline || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v; the caller's deadline passed: %v", err, deadline)
		}
	}
}

func TestMissingLayersAreSaidOnce(t *testing.T) {
	var said []string
	p := newPool(t, Options{Size: 2, Notice: func(s string) { said = append(said, s) }})
	for range 3 {
		p.notice("Landlock file system and network rules (not available on this kernel)")
	}
	p.notice("the seccomp system call filter (EINVAL)")
	want := []string{
		"code blocks run without Landlock file system and network rules (not available on this kernel)",
		"code blocks run without the seccomp system call filter (EINVAL)",
	}
	if fmt.Sprint(said) != fmt.Sprint(want) {
		t.Fatalf("said %q, want %q", said, want)
	}
}

// TestWaitIsNotTheStepsTime: with every worker held by runaway code, a
// call waits for a worker and then gets its whole timeout: a block that
// fails at once fails with its own error, not with a timeout.
func TestWaitIsNotTheStepsTime(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	loop := jsBlock(t, `function execute(input) { for (;;) {} }`)
	bad := jsBlock(t, `function execute(input) { return require("fs") }`)
	held := make(chan error, 1)
	go func() {
		c := callOf(loop, 1)
		c.Timeout = 2 * time.Second
		_, err := p.Execute(context.Background(), c)
		held <- err
	}()
	waitBusy(t, p)
	c := callOf(bad, 1)
	c.Timeout = 300 * time.Millisecond // far less than the 2s the runaway call holds the worker
	_, err := p.Execute(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "ReferenceError: require is not defined") {
		t.Errorf("the waiting call ended with %v, want its own ReferenceError", err)
	}
	if err := <-held; err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the runaway call ended with %v, want its timeout", err)
	}
}

// TestMaxWait: a call that waits longer than MaxWait for a worker fails
// saying so.
func TestMaxWait(t *testing.T) {
	p := newPool(t, Options{Size: 1, MaxWait: 200 * time.Millisecond})
	loop := jsBlock(t, `function execute(input) { for (;;) {} }`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Execute(ctx, callOf(loop, 1))
	waitBusy(t, p)
	_, err := p.Execute(context.Background(), callOf(jsBlock(t, `function execute(input) { return { out: 1 } }`), 1))
	var we *blocks.WaitError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "waited ") || !strings.Contains(err.Error(), "for a sandbox worker (all 1 were busy)") {
		t.Errorf("error %v, want a WaitError", err)
	}
}

// waitBusy waits, however long it takes, until every worker of the pool
// is taken.
func waitBusy(t *testing.T, p *Pool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pool's workers were not all taken within a minute")
		}
		p.mu.Lock()
		busy := len(p.workers) == p.opts.Size
		for _, w := range p.workers {
			busy = busy && len(w.pending) > 0
		}
		p.mu.Unlock()
		if busy {
			return
		}
	}
}

// pipelined is a pool of one worker that is sent calls behind the one it
// runs however long that has run.
func pipelined(t *testing.T) *Pool {
	p := newPool(t, Options{Size: 1})
	p.behind = time.Hour
	return p
}

// waitPending waits, however long it takes, until the pool's one worker
// has been sent n calls it has not answered.
func waitPending(t *testing.T, p *Pool, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker was not sent %d calls within a minute", n)
		}
		p.mu.Lock()
		ok := len(p.workers) == 1 && len(p.workers[0].pending) == n
		p.mu.Unlock()
		if ok {
			return
		}
	}
}

// TestQueuedCallsMoveWhenTheWorkerStops: calls sent to a worker behind
// one that times out (which replaces the worker) run on the next worker
// and succeed; one whose caller gave up while it waited is not run.
func TestQueuedCallsMoveWhenTheWorkerStops(t *testing.T) {
	p := pipelined(t)
	loop := jsBlock(t, `function execute(input) { for (;;) {} }`)
	echo := jsBlock(t, `function execute(input) { return { out: input.n * 10 } }`)
	first := make(chan error, 1)
	go func() {
		c := callOf(loop, 0)
		c.Timeout = 2 * time.Second
		_, err := p.Execute(context.Background(), c)
		first <- err
	}()
	waitPending(t, p, 1)
	results := make([]chan error, 4)
	for i := range results {
		results[i] = make(chan error, 1)
		go func() {
			v, err := run(t, p, echo, float64(i+1), time.Minute)
			if err == nil && !v.RawEquals(cty.NumberIntVal(int64(10*(i+1)))) {
				err = fmt.Errorf("call %d got %#v", i+1, v)
			}
			results[i] <- err
		}()
	}
	waitPending(t, p, 5)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := p.Execute(ctx, callOf(echo, 99))
		gaveUp <- err
	}()
	waitPending(t, p, 6)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("the call whose caller gave up ended with %v", err)
	}
	if err := <-first; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the runaway call ended with %v, want its timeout", err)
	}
	for i, r := range results {
		if err := <-r; err != nil {
			t.Errorf("queued call %d: %v", i+1, err)
		}
	}
	if p.Spawned() != 2 {
		t.Errorf("spawned %d workers, want 2", p.Spawned())
	}
}

// TestPipelinedLogsGoToTheirCalls: log lines of calls sent together reach
// each its own call's log.
func TestPipelinedLogsGoToTheirCalls(t *testing.T) {
	p := pipelined(t)
	loud := jsBlock(t, `function execute(input) { console.log("call " + input.n); return { out: input.n } }`)
	const n = 20
	logs := make([][]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := callOf(loud, float64(i))
			c.Log = func(l string) { logs[i] = append(logs[i], l) }
			if _, err := p.Execute(context.Background(), c); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, l := range logs {
		if want := []string{fmt.Sprintf("call %d", i)}; fmt.Sprint(l) != fmt.Sprint(want) {
			t.Errorf("call %d logged %q, want %q", i, l, want)
		}
	}
}

// TestPipelineDepth: a worker is sent as many calls of a block at once as
// it runs in queueBehind at the pace of the block's calls, 8 to 64; the
// pace is an average that the calls' durations move, and the pool's Width
// follows it.
func TestPipelineDepth(t *testing.T) {
	p := &Pool{behind: 20 * time.Millisecond, opts: Options{Size: 2}}
	for _, c := range []struct {
		pace time.Duration
		want int
	}{{0, 8}, {time.Second, 8}, {2 * time.Millisecond, 10}, {time.Millisecond, 20}, {100 * time.Microsecond, 64}} {
		pace := new(atomic.Int64)
		pace.Store(int64(c.pace))
		if got := p.depth(pace); got != c.want {
			t.Errorf("depth at a pace of %v: %d, want %d", c.pace, got, c.want)
		}
	}
	if got := p.depth(nil); got != pipelineDepth {
		t.Errorf("depth of no pace: %d", got)
	}
	pace := new(atomic.Int64)
	timed(pace, 8*time.Millisecond)
	if got := time.Duration(pace.Load()); got != 8*time.Millisecond {
		t.Errorf("the first call's pace %v", got)
	}
	timed(pace, 0)
	if got := time.Duration(pace.Load()); got != 7*time.Millisecond {
		t.Errorf("pace after a call of 0s: %v, want 7ms", got)
	}
	for range 100 {
		timed(pace, 50*time.Microsecond)
	}
	if got := p.depth(pace); got != maxPipelineDepth {
		t.Errorf("depth after 100 short calls: %d (pace %v)", got, time.Duration(pace.Load()))
	}
}

// TestPaceOfCalls: the pool learns the pace of a block's calls from their
// replies, and its Width for the block grows when they are short.
func TestPaceOfCalls(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	js := jsBlock(t, `function execute(input) { return { out: input.n } }`)
	for i := range 20 {
		if _, err := p.Execute(context.Background(), callOf(js, float64(i))); err != nil {
			t.Fatal(err)
		}
	}
	e, err := p.wireOf(js.Def)
	if err != nil {
		t.Fatal(err)
	}
	pace := time.Duration(e.pace.Load())
	if pace <= 0 || pace > time.Minute {
		t.Fatalf("pace %v after 20 calls", pace)
	}
	if w, want := p.Width(js), p.depth(e.pace); w != want {
		t.Errorf("Width %d, want %d (pace %v)", w, want, pace)
	}
}
