package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
)

// The hostile suite: each directory of testdata/hostile holds a flow,
// NAME/NAME.flow.hcl, whose step "hostile" uses a go or js block written
// to break out of the sandbox, exhaust it or confuse flowctl, next to a
// step "independent" that does not depend on it. TestHostile applies each
// flow in a child process, as a user would, and checks that the sandbox
// contained the code:
//
//   - flowctl exits 1 (0 when the case expects nothing to fail), never
//     with a crash: no other exit code or signal, no "panic:" or
//     "fatal error:" on its standard error;
//   - each step finished as the case expects: the hostile step failed
//     with an error matching the case's expectation, the independent
//     step ok;
//   - flowctl ended by itself: the deadline was enforced whatever the
//     code does. A flowctl still running hostileHang after the hostile
//     step's timeout is killed and the case fails; the margin is far above
//     the time any case takes, so that a busy machine never trips it (the
//     test asserts no wall-clock time: the errors say which limit ended
//     each step);
//   - no process flowctl started is left once it has exited;
//   - flowctl's own peak memory stayed under hostileFlowctlMemory;
//   - the value of HOSTILE_SECRET, set in flowctl's environment, appears
//     in none of its output nor in its state directory.
//
// A case's expectations are comment lines at the top of its flow file:
//
//	# expect: REGEXP           the hostile step failed, its error matching REGEXP
//	# expect: ok               the hostile step finished ok
//	# expect STEP: ok|REGEXP   the same for another step (every instance of it)
//	# known: DESCRIPTION       a known sandbox bug: the case is skipped, saying
//	                           so, when its expectations fail (the other checks
//	                           still apply), and fails when they pass
//	# flaky: DESCRIPTION       a known sandbox bug that shows only sometimes
//	                           (it depends on timing): skipped when it shows
//
// The hostile step's timeout is the limit a case tests when it expects a
// timeout; a case that expects anything else (a memory or stack limit, an
// error of its own) gives the hostile step 60s, far above what it takes,
// so that a busy machine cannot turn the expected error into a timeout.
//
// Cases that the compiler must refuse (forbidden imports, go statements,
// syntax) have no expect lines but "// want: REGEXP" comments in the
// block's code, as x/tools' analysistest has: validate and apply must each
// report, at that line of the flow file, an error whose "summary: detail"
// matches REGEXP, and nothing else; apply must not start a run.

const (
	// hostileConcurrency is how many cases run at once (go test's
	// -parallel, GOMAXPROCS by default, may lower it). Most cases keep a
	// worker busy on a CPU until their timeout; many more at once than a
	// 2-core machine has cores would only stretch flowctl's start-up and
	// make the wall-time check measure the scheduler.
	hostileConcurrency = 3

	// hostileHang is how long after the hostile step's timeout flowctl may
	// still be running before it is taken to hang: unloaded, every case
	// ends within a second of its timeout (or of the limit it hits), so a
	// minute leaves room for any load and catches only a deadline that is
	// not enforced.
	hostileHang = time.Minute

	// hostileFlowctlMemory bounds flowctl's own peak resident memory
	// (VmHWM, not counting the workers) whatever a case's code does:
	// about 40 MiB in an ordinary run, with room for the pool's reply
	// buffer (a reply may be up to 32 MiB).
	hostileFlowctlMemory = 160 << 20

	// hostileLeakGrace is how long the processes flowctl started may take
	// to disappear after it has exited: workers are killed with SIGKILL
	// (and have SIGKILL as their parent-death signal), which takes
	// milliseconds; the grace covers scheduling on a loaded machine, not
	// a worker that outlives flowctl.
	hostileLeakGrace = 2 * time.Second
)

func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	if goruntime.GOOS != "linux" {
		t.Skip("the sandbox's limits and the process checks are Linux's")
	}
	if hostileRaceBuild() {
		// The race detector's runtime reserves address space of its own
		// and dies in its own words at the memory limit, and slows flowctl
		// several times over: the cases' expectations are those of a real
		// build.
		t.Skip("the race detector changes how workers die and how long flowctl takes")
	}
	dirs, err := filepath.Glob(filepath.Join("testdata", "hostile", "*"))
	if err != nil {
		t.Fatal(err)
	}
	cases := make([]*hostileCase, 0, len(dirs))
	runtimeCases := 0
	for _, dir := range dirs {
		c, err := readHostileCase(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !c.compileTime() {
			runtimeCases++
		}
		cases = append(cases, c)
	}
	if len(cases) < 30 || runtimeCases < len(cases)/2 {
		t.Fatalf("%d cases of which %d at run time: the suite has lost cases", len(cases), runtimeCases)
	}
	// The process checks must have something to check: the sampling may
	// miss the workers of a short run on a busy machine, but not of every
	// run.
	var ran, watched atomic.Int32
	t.Cleanup(func() {
		if ran.Load() >= 5 && watched.Load() == 0 {
			t.Errorf("the process sampling saw no sandbox worker in %d runs", ran.Load())
		}
	})
	slots := make(chan struct{}, hostileConcurrency)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			if !c.compileTime() {
				ran.Add(1)
			}
			if c.run(t) {
				watched.Add(1)
			}
		})
	}
}

// hostileRaceBuild reports whether the test binary (and so flowctl and its
// workers) was built with the race detector.
func hostileRaceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// hostileCase is one directory of testdata/hostile.
type hostileCase struct {
	name    string
	dir     string
	text    string
	expect  map[string]string // step → "ok" or a regexp its error must match
	known   string
	flaky   bool          // known shows only sometimes
	timeout time.Duration // the hostile step's
	wants   []hostileWant
}

// hostileWant is a diagnostic a compile-time case wants at a line.
type hostileWant struct {
	line int
	re   *regexp.Regexp
}

func (c *hostileCase) compileTime() bool { return len(c.wants) > 0 }

var (
	hostileDirective = regexp.MustCompile(`^#\s*(expect(?:\s+(\w+))?|known|flaky):\s*(.*?)\s*$`)
	hostileWantRE    = regexp.MustCompile(`//\s*want:\s*(.*?)\s*$`)
	hostileStepRE    = regexp.MustCompile(`(?ms)^step "hostile" \{\n(.*?)^\}`)
	hostileTimeoutRE = regexp.MustCompile(`(?m)^\s*timeout\s*=\s*"([^"]+)"`)
)

// readHostileCase reads a case's flow file and its expectations.
func readHostileCase(dir string) (*hostileCase, error) {
	name := filepath.Base(dir)
	b, err := os.ReadFile(filepath.Join(dir, name+".flow.hcl"))
	if err != nil {
		return nil, err
	}
	c := &hostileCase{name: name, dir: dir, text: string(b), expect: map[string]string{}}
	lines := strings.Split(c.text, "\n")
	for i, line := range lines {
		if m := hostileWantRE.FindStringSubmatch(line); m != nil {
			re, err := regexp.Compile(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
			}
			c.wants = append(c.wants, hostileWant{i + 1, re})
		}
	}
	for i, line := range lines {
		if !strings.HasPrefix(line, "#") {
			break
		}
		m := hostileDirective.FindStringSubmatch(line)
		switch {
		case m == nil:
			continue
		case m[1] == "known" || m[1] == "flaky":
			c.known, c.flaky = m[3], m[1] == "flaky"
			continue
		}
		step := m[2]
		if step == "" {
			step = "hostile"
		}
		if m[3] != "ok" {
			if _, err := regexp.Compile(m[3]); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
			}
		}
		c.expect[step] = m[3]
	}
	step := hostileStepRE.FindStringSubmatch(c.text)
	if step == nil {
		return nil, fmt.Errorf("%s has no step \"hostile\"", name)
	}
	to := hostileTimeoutRE.FindStringSubmatch(step[1])
	if to == nil {
		return nil, fmt.Errorf("%s: the hostile step has no explicit timeout", name)
	}
	if c.timeout, err = time.ParseDuration(to[1]); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if !strings.Contains(c.text, "\nstep \"independent\" {") {
		return nil, fmt.Errorf("%s has no step \"independent\"", name)
	}
	switch {
	case c.compileTime() && (len(c.expect) > 0 || c.known != ""):
		return nil, fmt.Errorf("%s has both want comments and expect lines", name)
	case !c.compileTime() && c.expect["hostile"] == "":
		return nil, fmt.Errorf("%s has neither want comments nor an expect line for the hostile step", name)
	}
	if !c.compileTime() {
		c.expect["independent"] = "ok"
	}
	return c, nil
}

// hostileOutcome is what one flowctl command did.
type hostileOutcome struct {
	stdout, stderr []byte
	exit           int // -1 when killed by a signal
	wall           time.Duration
	hung           bool // killed hostileHang after the timeout
	procs          *procWatch
}

// runFlowctl runs flowctl with args in dir and watches the processes it
// starts.
func (c *hostileCase) runFlowctl(t *testing.T, dir, secret string, args ...string) *hostileOutcome {
	t.Helper()
	cmd := flowctl(t, dir, args...)
	cmd.Env = append(cmd.Env, "HOSTILE_SECRET="+secret)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := watchProcs(cmd.Process.Pid)
	var hung atomic.Bool
	guard := time.AfterFunc(c.timeout+hostileHang, func() {
		hung.Store(true)
		cmd.Process.Kill()
	})
	cmd.Wait()
	guard.Stop()
	o := &hostileOutcome{wall: time.Since(start), exit: cmd.ProcessState.ExitCode(), hung: hung.Load()}
	w.stop()
	o.stdout, o.stderr, o.procs = stdout.Bytes(), stderr.Bytes(), w
	return o
}

var hostileCrash = regexp.MustCompile(`(?m)^(panic: |fatal error: |goroutine \d+ \[|SIGSEGV|unexpected fault address)`)

// run runs the case; it reports whether the process sampling saw the
// workers of the run.
func (c *hostileCase) run(t *testing.T) (sawWorkers bool) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(c.dir)); err != nil {
		t.Fatal(err)
	}
	secret := fmt.Sprintf("hostile-%d-%s-Zq7", time.Now().UnixNano(), c.name)
	var outs []*hostileOutcome
	if c.compileTime() {
		v := c.runFlowctl(t, dir, secret, "validate", "--json", ".")
		c.checkDiagnostics(t, "validate", v)
		outs = append(outs, v)
	}
	o := c.runFlowctl(t, dir, secret, "apply", "--auto-approve", "--json", ".")
	outs = append(outs, o)
	t.Logf("apply: exit %d in %s (hostile step's timeout %s); flowctl peak memory %d MiB; %d processes seen",
		o.exit, o.wall.Round(time.Millisecond), c.timeout, o.procs.peakMemory>>20, len(o.procs.started))

	// What must hold whatever the code does.
	for _, o := range outs {
		if o.hung {
			t.Errorf("flowctl was still running %s after the hostile step's %s timeout: the deadline was not enforced", hostileHang, c.timeout)
			continue
		}
		if o.exit != 0 && o.exit != 1 {
			t.Errorf("flowctl exited with %d (a crash):\n%s", o.exit, o.stderr)
		}
		if m := hostileCrash.Find(o.stderr); m != nil {
			t.Errorf("flowctl's standard error shows a crash (%q):\n%s", m, o.stderr)
		}
		if left := o.procs.leftovers(hostileLeakGrace); len(left) > 0 {
			t.Errorf("processes left behind after flowctl exited: %s", left)
		}
		if o.procs.peakMemory > hostileFlowctlMemory {
			t.Errorf("flowctl's peak resident memory was %d MiB, over %d MiB", o.procs.peakMemory>>20, hostileFlowctlMemory>>20)
		}
		if bytes.Contains(o.stdout, []byte(secret)) || bytes.Contains(o.stderr, []byte(secret)) {
			t.Errorf("the secret appears in flowctl's output")
		}
	}
	hostileNoSecretIn(t, filepath.Join(dir, ".flowctl"), secret)
	sawWorkers = len(o.procs.started) > 0

	if c.compileTime() {
		c.checkDiagnostics(t, "apply", o)
		if _, err := os.Stat(filepath.Join(dir, ".flowctl")); err == nil {
			t.Errorf("apply of a flow that does not compile created a state directory")
		}
		return sawWorkers
	}
	problems := c.checkEvents(t, o)
	switch {
	case len(problems) > 0 && c.known != "":
		t.Skipf("known: %s\n%s", c.known, strings.Join(problems, "\n"))
	case len(problems) > 0:
		t.Error(strings.Join(problems, "\n"))
	case c.known != "" && c.flaky:
		t.Logf("the known problem did not show this time: %s", c.known)
	case c.known != "":
		t.Errorf("the case is marked known (%s) but behaves as expected: remove its known line", c.known)
	}
	return sawWorkers
}

// checkEvents checks apply's exit code and step events against the case's
// expectations and returns what differs.
func (c *hostileCase) checkEvents(t *testing.T, o *hostileOutcome) []string {
	var problems []string
	wantExit := 0
	for _, e := range c.expect {
		if e != "ok" {
			wantExit = 1
		}
	}
	if o.exit != wantExit && (o.exit == 0 || o.exit == 1) {
		msg := fmt.Sprintf("flowctl exited with %d, want %d", o.exit, wantExit)
		if len(o.stderr) > 0 {
			msg += "; standard error:\n" + string(o.stderr)
		}
		problems = append(problems, msg)
	}
	finished := map[string][]event{}
	for _, e := range parseEvents(t, o.stdout) {
		if e.Type == "step_finished" {
			finished[e.Step] = append(finished[e.Step], e)
		}
	}
	for _, step := range slices.Sorted(maps.Keys(c.expect)) {
		want := c.expect[step]
		if len(finished[step]) == 0 {
			problems = append(problems, fmt.Sprintf("step %q did not finish; events:\n%s", step, o.stdout))
			continue
		}
		for _, e := range finished[step] {
			msg, _ := e.Error.(string)
			label := step
			if e.Instance != nil {
				label = fmt.Sprintf("%s[%v]", step, e.Instance)
			}
			switch {
			case want == "ok" && e.Status != "ok":
				problems = append(problems, fmt.Sprintf("%s: %s (%s), want ok", label, e.Status, msg))
			case want != "ok" && e.Status != "failed":
				problems = append(problems, fmt.Sprintf("%s: %s, want failed with an error matching %s", label, e.Status, want))
			case want != "ok" && !regexp.MustCompile(want).MatchString(msg):
				problems = append(problems, fmt.Sprintf("%s failed with %q, want an error matching %s", label, msg, want))
			}
		}
	}
	return problems
}

// hostileDiagnostics is the JSON that validate --json, and apply --json
// on a flow that does not compile, print.
type hostileDiagnostics struct {
	Valid       bool `json:"valid"`
	Diagnostics []struct {
		Severity string `json:"severity"`
		Summary  string `json:"summary"`
		Detail   string `json:"detail"`
		Range    *struct {
			Start struct {
				Line int `json:"line"`
			} `json:"start"`
		} `json:"range"`
	} `json:"diagnostics"`
}

// checkDiagnostics checks that a command refused the flow with exactly the
// errors the case's want comments ask for, at their lines.
func (c *hostileCase) checkDiagnostics(t *testing.T, command string, o *hostileOutcome) {
	t.Helper()
	if o.exit != 1 {
		t.Errorf("%s exited with %d, want 1", command, o.exit)
	}
	var d hostileDiagnostics
	if err := json.Unmarshal(o.stdout, &d); err != nil {
		t.Errorf("%s: the output is not a diagnostics document (%v):\n%s", command, err, o.stdout)
		return
	}
	if d.Valid {
		t.Errorf("%s: the flow is valid", command)
	}
	matched := make([]bool, len(c.wants))
	for _, diag := range d.Diagnostics {
		text := diag.Summary + ": " + diag.Detail
		line := 0
		if diag.Range != nil {
			line = diag.Range.Start.Line
		}
		found := false
		for i, w := range c.wants {
			if w.line == line && w.re.MatchString(text) {
				matched[i], found = true, true
			}
		}
		if !found {
			t.Errorf("%s: unexpected %s at line %d: %s", command, diag.Severity, line, text)
		}
	}
	for i, w := range c.wants {
		if !matched[i] {
			t.Errorf("%s: no error at line %d matching %s", command, w.line, w.re)
		}
	}
}

// hostileNoSecretIn checks that no file under dir holds the secret.
func hostileNoSecretIn(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
}

// procWatch samples /proc while a flowctl process runs, to learn the
// processes it starts (its descendants, and the process groups they
// lead) and its own peak memory.
type procWatch struct {
	root    int
	ownPgid int
	quit    chan struct{}
	done    chan struct{}

	// Written by the sampling goroutine until done is closed.
	started    map[int]uint64 // descendant pid → start time
	groups     map[int]bool   // process groups led by descendants
	peakMemory int64          // flowctl's VmHWM in bytes
}

// procSamplePeriod is how often the processes are sampled. A worker lives
// at least until flowctl closes its pool, so every worker is seen.
const procSamplePeriod = 10 * time.Millisecond

func watchProcs(root int) *procWatch {
	w := &procWatch{
		root: root, ownPgid: syscall.Getpgrp(), quit: make(chan struct{}), done: make(chan struct{}),
		started: map[int]uint64{}, groups: map[int]bool{},
	}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(procSamplePeriod)
		defer tick.Stop()
		for {
			w.sample()
			select {
			case <-w.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// stop ends the sampling; call it once the process has been waited for.
func (w *procWatch) stop() {
	close(w.quit)
	<-w.done
}

func (w *procWatch) sample() {
	if hwm := vmHWM(w.root); hwm > w.peakMemory {
		w.peakMemory = hwm
	}
	procs := readProcs()
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	queue := append([]int(nil), children[w.root]...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		p := procs[pid]
		w.started[pid] = p.start
		if p.pgid != w.ownPgid {
			w.groups[p.pgid] = true
		}
		queue = append(queue, children[pid]...)
	}
}

// leftovers returns the processes flowctl started that still run, waiting
// up to grace for them to go: those the sampling saw, anything in the
// process groups they lead, and, for workers that lived between two
// samples, any sandbox worker of this test binary whose parent is not a
// flowctl this test process runs (an orphan; while cases run in parallel,
// another case's leak would be reported here too).
func (w *procWatch) leftovers(grace time.Duration) []procStat {
	deadline := time.Now().Add(grace)
	for {
		var left []procStat
		procs := readProcs()
		for _, p := range procs {
			if p.state == 'Z' || p.state == 'X' {
				continue // dead, waiting for init to reap it
			}
			if start, ok := w.started[p.pid]; (ok && start == p.start) || w.groups[p.pgid] {
				left = append(left, p)
			} else if parent, ok := procs[p.ppid]; (!ok || parent.ppid != os.Getpid()) && isSandboxWorker(p.pid) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// isSandboxWorker reports whether a process is a sandbox worker started
// from this test binary.
func isSandboxWorker(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(string(b), "\x00")
	exe, err := os.Executable()
	return err == nil && len(args) > 1 && args[0] == exe && args[1] == isolate.WorkerArg
}

// procStat is what the test needs of /proc/PID/stat.
type procStat struct {
	pid, ppid, pgid int
	state           byte
	start           uint64 // clock ticks after boot
	comm            string
}

func (p procStat) String() string {
	return fmt.Sprintf("%d (%s, state %c, parent %d, group %d)", p.pid, p.comm, p.state, p.ppid, p.pgid)
}

// readProcs reads the stat file of every process.
func readProcs() map[int]procStat {
	ents, _ := os.ReadDir("/proc")
	out := make(map[int]procStat, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		if p, ok := parseProcStat(pid, string(b)); ok {
			out[pid] = p
		}
	}
	return out
}

// parseProcStat parses "pid (comm) state ppid pgrp session … starttime …";
// comm may hold spaces and parentheses, so the fields are counted from the
// last ')'.
func parseProcStat(pid int, s string) (procStat, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return procStat{}, false
	}
	p := procStat{pid: pid, state: f[0][0], comm: s[open+1 : end]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgid, _ = strconv.Atoi(f[2])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	return p, true
}

// vmHWM is a process's peak resident set size in bytes, 0 when unknown.
func vmHWM(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				kb, _ := strconv.ParseInt(fields[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
