package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
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
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"golang.org/x/tools/txtar"
)

// The hostile suite: each archive of testdata/hostile (golang.org/x/tools/txtar)
// holds a flow, hostile.flow.hcl, whose step "hostile" uses a go, js or
// python block written to break out of the sandbox, exhaust it or confuse
// flowctl, next to a step "independent" that does not depend on it, and
// what flowctl must make of it, in a file "want". TestHostile applies each
// flow in a child process, as a user would, and checks that the sandbox
// contained the code:
//
//   - flowctl exits 1 (0 when nothing is to fail), never with a crash: no
//     other exit code or signal, no "panic:" or "fatal error:" on its
//     standard error;
//   - each step finished as the want file says;
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
// A file of the archive may hold {{repeat "TEXT" N}}, written as TEXT N
// times over: a case can be megabytes of source (a million unary
// minuses) without a tracked file of that size.
//
// The archive's comment describes the case. A line of it may mark a known
// sandbox bug:
//
//	known: DESCRIPTION   the case is skipped, saying so, when its want
//	                     fails (the other checks still apply), and fails
//	                     when it passes
//	flaky: DESCRIPTION   a known bug that shows only sometimes (it depends
//	                     on timing): skipped when it shows
//
// Each line of the want file is what a step (every instance of it) or a
// line of the flow file must show:
//
//	STEP: ok
//	STEP: failed ~ REGEXP       its error matches REGEXP
//	STEP: failed: TEXT          its error is TEXT
//	line N: error ~ REGEXP      a diagnostic at line N, "summary: detail"
//	line N: error: TEXT         matching REGEXP or equal to TEXT
//
// A run-time case names its steps, "hostile" and "independent" at least.
// A compile-time case (forbidden imports, go statements, syntax) names
// lines: validate and apply must each report exactly those diagnostics,
// and apply must not start a run. `go test -run TestHostile -update`
// rewrites each want line that no longer holds with what flowctl did,
// keeping the others.
//
// The hostile step's timeout is the limit a case tests when it expects a
// timeout; a case that expects anything else (a memory or stack limit, an
// error of its own) gives the hostile step 60s, far above what it takes,
// so that a busy machine cannot turn the expected error into a timeout.

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
	// 82–95 MiB in every case, most of it the executable's own pages. No
	// case's reply reaches flowctl whole: every worker refuses outputs
	// over the cap itself (a compiled program too, whose reply then holds
	// none), so flowctl's memory does not grow with what the code returns;
	// the bound leaves room for a loaded machine, not for a reply.
	hostileFlowctlMemory = 128 << 20

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
	files, err := filepath.Glob(filepath.Join("testdata", "hostile", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	cases := make([]*hostileCase, 0, len(files))
	runtimeCases := 0
	compiled := 0
	_, noPython := pyrun.Find()
	if noPython != nil && os.Getenv("CI") != "" {
		t.Fatalf("CI needs python for the python cases: %v", noPython)
	}
	pythonCases := 0
	for _, file := range files {
		c, err := readHostileCase(file, "want")
		if err != nil {
			t.Fatal(err)
		}
		if hostilePythonRE.MatchString(c.flow) {
			pythonCases++
			if noPython != nil {
				t.Logf("%s: skipped: %v", c.name, noPython)
				continue
			}
		}
		if !c.compileTime() {
			runtimeCases++
		}
		cases = append(cases, c)
		// Every go case runs again with its go blocks compiled, when
		// there is a Go toolchain (CI has one).
		if _, err := exec.LookPath("go"); err == nil && hostileGoRE.MatchString(c.flow) {
			cc, err := readHostileCase(file, "want compiled")
			if err != nil {
				t.Fatal(err)
			}
			cc.name, cc.env = "compiled_"+c.name, []string{"FLOWCTL_GO_ENGINE=compiled"}
			cases = append(cases, cc)
			compiled++
		}
	}
	if _, err := exec.LookPath("go"); err == nil && compiled < 20 {
		t.Fatalf("%d go cases to run compiled: the suite has lost cases", compiled)
	}
	if pythonCases < 30 {
		t.Fatalf("%d python cases: the suite has lost cases", pythonCases)
	}
	if len(cases) < 30 || runtimeCases < 50 {
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

// hostileCase is one archive of testdata/hostile.
type hostileCase struct {
	name    string
	file    string
	archive *txtar.Archive
	flow    string // hostile.flow.hcl
	want    []hostileLine
	known   string
	flaky   bool          // known shows only sometimes
	timeout time.Duration // the hostile step's
	// wantFile is the file of the want lines: "want", or for the run of a
	// go case with every go block compiled, "want compiled" when the case
	// has one (the engines' errors may differ in their words).
	wantFile string
	env      []string // of flowctl, added to the test's
}

// hostileLine is one line of a case's want file.
type hostileLine struct {
	subject string // a step, or "line N"
	status  string // ok or failed for a step, a severity for a line
	exact   *string
	re      *regexp.Regexp
	text    string // as written
}

// matches reports whether a step's or a diagnostic's outcome is the line's.
func (w hostileLine) matches(subject, status, msg string) bool {
	switch {
	case w.subject != subject || w.status != status:
		return false
	case w.exact != nil:
		return *w.exact == msg
	case w.re != nil:
		return w.re.MatchString(msg)
	}
	return true
}

// hostileGot is the want line an outcome would be written as.
func hostileGot(subject, status, msg string) hostileLine {
	text := subject + ": " + status
	var exact *string
	if msg != "" {
		text += ": " + msg
		exact = &msg
	}
	return hostileLine{subject: subject, status: status, exact: exact, text: text}
}

func (c *hostileCase) compileTime() bool {
	return len(c.want) > 0 && strings.HasPrefix(c.want[0].subject, "line ")
}

var (
	hostileDirective = regexp.MustCompile(`^(known|flaky):\s*(.*?)\s*$`)
	hostileWantLine  = regexp.MustCompile(`^(line \d+|\w+): (\w+)(?:: (.*)| ~ (.*))?$`)
	hostileStepRE    = regexp.MustCompile(`(?ms)^step "hostile" \{\n(.*?)^\}`)
	hostileTimeoutRE = regexp.MustCompile(`(?m)^\s*timeout\s*=\s*"([^"]+)"`)
	hostileGoRE      = regexp.MustCompile(`(?m)^block "hostile" \{\n\s*runtime\s*=\s*"go"`)
	hostilePythonRE  = regexp.MustCompile(`(?m)^block "hostile" \{\n\s*runtime\s*=\s*"python"`)
)

// readHostileCase reads a case's archive, with the want lines of wantFile
// ("want" when the archive has no such file).
func readHostileCase(file, wantFile string) (*hostileCase, error) {
	name := strings.TrimSuffix(filepath.Base(file), ".txtar")
	ar, err := txtar.ParseFile(file)
	if err != nil {
		return nil, err
	}
	c := &hostileCase{name: name, file: file, archive: ar, wantFile: wantFile}
	if !slices.ContainsFunc(ar.Files, func(f txtar.File) bool { return f.Name == wantFile }) {
		wantFile = "want"
	}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if m := hostileDirective.FindStringSubmatch(line); m != nil {
			c.known, c.flaky = m[2], m[1] == "flaky"
		}
	}
	var haveFlow, haveWant bool
	for _, f := range ar.Files {
		switch f.Name {
		case "hostile.flow.hcl":
			c.flow, haveFlow = string(f.Data), true
		case wantFile:
			haveWant = true
			for i, line := range strings.Split(strings.TrimRight(string(f.Data), "\n"), "\n") {
				w, err := parseHostileLine(line)
				if err != nil {
					return nil, fmt.Errorf("%s: want line %d: %v", file, i+1, err)
				}
				c.want = append(c.want, w)
			}
		}
	}
	if !haveFlow || !haveWant {
		return nil, fmt.Errorf("%s needs a hostile.flow.hcl and a want file", file)
	}
	step := hostileStepRE.FindStringSubmatch(c.flow)
	if step == nil {
		return nil, fmt.Errorf("%s has no step \"hostile\"", file)
	}
	to := hostileTimeoutRE.FindStringSubmatch(step[1])
	if to == nil {
		return nil, fmt.Errorf("%s: the hostile step has no explicit timeout", file)
	}
	if c.timeout, err = time.ParseDuration(to[1]); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if !strings.Contains(c.flow, "\nstep \"independent\" {") {
		return nil, fmt.Errorf("%s has no step \"independent\"", file)
	}
	subjects := map[string]bool{}
	for _, w := range c.want {
		subjects[w.subject] = true
		if strings.HasPrefix(w.subject, "line ") != c.compileTime() {
			return nil, fmt.Errorf("%s wants both steps and diagnostics", file)
		}
	}
	switch {
	case c.compileTime() && c.known != "":
		return nil, fmt.Errorf("%s: a compile-time case cannot be known", file)
	case !c.compileTime() && (!subjects["hostile"] || !subjects["independent"]):
		return nil, fmt.Errorf("%s does not say how the steps hostile and independent end", file)
	}
	return c, nil
}

func parseHostileLine(line string) (hostileLine, error) {
	m := hostileWantLine.FindStringSubmatch(line)
	if m == nil {
		return hostileLine{}, fmt.Errorf("%q is not SUBJECT: STATUS[: TEXT| ~ REGEXP]", line)
	}
	w := hostileLine{subject: m[1], status: m[2], text: line}
	switch {
	case strings.Contains(line, " ~ "):
		re, err := regexp.Compile(m[4])
		if err != nil {
			return w, err
		}
		w.re = re
	case m[3] != "" || strings.HasSuffix(line, ": "):
		w.exact = &m[3]
	}
	return w, nil
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
	cmd.Env = append(append(cmd.Env, "HOSTILE_SECRET="+secret), c.env...)
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

var hostileRepeat = regexp.MustCompile(`\{\{repeat "((?:[^"\\]|\\.)*)" (\d+)\}\}`)

// hostileExpand writes out a file's {{repeat "TEXT" N}}.
func hostileExpand(data []byte) []byte {
	return hostileRepeat.ReplaceAllFunc(data, func(m []byte) []byte {
		sm := hostileRepeat.FindSubmatch(m)
		text, err := strconv.Unquote(`"` + string(sm[1]) + `"`)
		n, err2 := strconv.Atoi(string(sm[2]))
		if err != nil || err2 != nil {
			return m
		}
		return []byte(strings.Repeat(text, n))
	})
}

var hostileCrash = regexp.MustCompile(`(?m)^(panic: |fatal error: |goroutine \d+ \[|SIGSEGV|unexpected fault address)`)

// run runs the case; it reports whether the process sampling saw the
// workers of the run.
func (c *hostileCase) run(t *testing.T) (sawWorkers bool) {
	dir := t.TempDir()
	for _, f := range c.archive.Files {
		if strings.HasPrefix(f.Name, "want") {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), hostileExpand(f.Data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret := fmt.Sprintf("hostile-%d-%s-Zq7", time.Now().UnixNano(), c.name)
	var outs []*hostileOutcome
	var problems []string
	var got []hostileLine
	if c.compileTime() {
		v := c.runFlowctl(t, dir, secret, "validate", "--json", ".")
		problems, got = c.checkDiagnostics("validate", v)
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
		p, _ := c.checkDiagnostics("apply", o)
		problems = append(problems, p...)
		if _, err := os.Stat(filepath.Join(dir, ".flowctl")); err == nil {
			t.Errorf("apply of a flow that does not compile created a state directory")
		}
	} else {
		problems, got = c.checkEvents(t, o)
	}
	switch {
	case len(problems) > 0 && c.known != "":
		t.Skipf("known: %s\n%s", c.known, strings.Join(problems, "\n"))
	case len(problems) > 0 && *update:
		c.update(t, got)
	case len(problems) > 0:
		t.Errorf("%s\n(go test -run TestHostile -update rewrites the want lines that no longer hold)", strings.Join(problems, "\n"))
	case c.known != "" && c.flaky:
		t.Logf("the known problem did not show this time: %s", c.known)
	case c.known != "":
		t.Errorf("the case is marked known (%s) but behaves as expected: remove its known line", c.known)
	}
	return sawWorkers
}

// update rewrites the case's want file.
func (c *hostileCase) update(t *testing.T, got []hostileLine) {
	var b strings.Builder
	for _, w := range got {
		b.WriteString(w.text + "\n")
	}
	i := slices.IndexFunc(c.archive.Files, func(f txtar.File) bool { return f.Name == c.wantFile })
	if i < 0 {
		c.archive.Files = append(c.archive.Files, txtar.File{Name: c.wantFile})
		i = len(c.archive.Files) - 1
	}
	c.archive.Files[i].Data = []byte(b.String())
	if err := os.WriteFile(c.file, txtar.Format(c.archive), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote the want file of %s", c.file)
}

// checkEvents checks apply's exit code and step events against the want
// lines. It returns what differs, and the want lines that hold: those of
// the case that do, what happened instead of the others.
func (c *hostileCase) checkEvents(t *testing.T, o *hostileOutcome) (problems []string, got []hostileLine) {
	wantExit := 0
	for _, w := range c.want {
		if w.status != "ok" {
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
	for _, w := range c.want {
		if len(finished[w.subject]) == 0 {
			problems = append(problems, fmt.Sprintf("step %q did not finish; events:\n%s", w.subject, o.stdout))
			got = append(got, w)
			continue
		}
		held := w
		for _, e := range finished[w.subject] {
			msg, _ := e.Error.(string)
			if w.matches(e.Step, e.Status, msg) {
				continue
			}
			label := e.Step
			if e.Instance != nil {
				label = fmt.Sprintf("%s[%v]", e.Step, e.Instance)
			}
			problems = append(problems, fmt.Sprintf("%s: %s %q, want %q", label, e.Status, msg, w.text))
			held = hostileGot(e.Step, e.Status, msg)
		}
		got = append(got, held)
	}
	return problems, got
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
// diagnostics of the want lines. It returns what differs, and the want
// lines that hold.
func (c *hostileCase) checkDiagnostics(command string, o *hostileOutcome) (problems []string, got []hostileLine) {
	if o.exit != 1 {
		problems = append(problems, fmt.Sprintf("%s exited with %d, want 1", command, o.exit))
	}
	var d hostileDiagnostics
	if err := json.Unmarshal(o.stdout, &d); err != nil {
		return append(problems, fmt.Sprintf("%s: the output is not a diagnostics document (%v):\n%s", command, err, o.stdout)), c.want
	}
	if d.Valid {
		problems = append(problems, command+": the flow is valid")
	}
	matched := make([]bool, len(c.want))
	for _, diag := range d.Diagnostics {
		line := 0
		if diag.Range != nil {
			line = diag.Range.Start.Line
		}
		subject, text := fmt.Sprintf("line %d", line), diag.Summary+": "+diag.Detail
		held := hostileGot(subject, diag.Severity, text)
		found := false
		for i, w := range c.want {
			if w.matches(subject, diag.Severity, text) {
				matched[i], found, held = true, true, w
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("%s: unexpected %q", command, held.text))
		}
		if !slices.ContainsFunc(got, func(g hostileLine) bool { return g.text == held.text }) {
			got = append(got, held)
		}
	}
	for i, w := range c.want {
		if !matched[i] {
			problems = append(problems, fmt.Sprintf("%s: no diagnostic %q", command, w.text))
		}
	}
	return problems, got
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
