package runtime

// Contract tests for the runtime, written from docs/design.md ("The
// language", "Blocks", "The runtime") and docs/runtime.md. The cases are
// txtar archives in testdata/contract: a flow (and the files it reads), the
// commands to run against it, and what they must report, side by side.
// `go test ./runtime -run TestContract -update` rewrites the reports.
//
// An archive's comment describes the case; its lines starting with "> "
// are the commands, run in order against one state store:
//
//	> apply [no-cache] [cache-all] [ns=NS] [NAME=VALUE]... [secret:NAME=VALUE]...
//	        [cancelled] [cancel-after STEP,STEP] [summary]
//	> plan [no-cache] [NAME=VALUE]...
//	> write FILE TEXT          (TEXT a Go string literal, or the rest of the line)
//	> release                  (the blocker fake returns from now on)
//	> memory [NS]
//	> runs
//	> never TEXT               (TEXT appears in no report, event or byte of the state)
//
// NAME=VALUE sets an input to an HCL literal (or a string). Every apply is
// checked for well-formed events that agree with the stored state (see
// ctCheckEvents and ctCheckState), and reports the run: each step
// instance's status with its outputs, error or reason, and attempts (with
// summary: how many instances of each step ended with each status); how
// many times each counted executor was called; the outputs, the outputs
// without a value and the diagnostics.
//
// Blocks with runtime "js" run Go fakes chosen by the block's name (see
// ctFakes in contract_fakes_test.go); the value, sleep and file built-ins run for real. Nothing
// touches the network, and nothing asserts on wall-clock durations.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/tools/txtar"
)

var updateContract = flag.Bool("update", false, "rewrite the reports of testdata/contract/*.txtar")

// TestContract runs the cases of testdata/contract.
func TestContract(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "contract", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runContractCase(t, file)
		})
	}
}

// contractCase is one archive being run.
type contractCase struct {
	t     *testing.T
	dir   string // where the flow lives
	prog  *compiler.Program
	store *state.Store
	env   *ctEnv
	never []string
	// summary: the apply being run reports counts, not instances.
	summary bool
	report  strings.Builder
}

func runContractCase(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := &contractCase{t: t, dir: t.TempDir(), env: newCtEnv()}
	var want []byte
	for _, f := range ar.Files {
		if f.Name == "want" {
			want = f.Data
			continue
		}
		p := filepath.Join(c.dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, diags := compiler.Compile(filepath.Join(c.dir, "contract.flow.hcl"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatalf("compile: %s", diags.Error())
	}
	c.prog = prog
	stateDir := t.TempDir()
	if c.store, err = state.Open(stateDir); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		cmd, ok := strings.CutPrefix(line, "> ")
		if !ok {
			continue
		}
		fmt.Fprintf(&c.report, "> %s\n", cmd)
		c.command(cmd)
		c.report.WriteString("\n")
	}
	if err := c.store.Close(); err != nil {
		t.Fatal(err)
	}
	got := c.report.String()
	c.checkNever(got, stateDir)
	if *updateContract {
		out := &txtar.Archive{Comment: ar.Comment}
		for _, f := range ar.Files {
			if f.Name != "want" {
				out.Files = append(out.Files, f)
			}
		}
		out.Files = append(out.Files, txtar.File{Name: "want", Data: []byte(got)})
		if err := os.WriteFile(file, txtar.Format(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(want) {
		t.Errorf("report differs from %s (go test ./runtime -run TestContract -update rewrites it):\n--- got\n%s--- want\n%s", file, got, want)
	}
}

// command runs one command line.
func (c *contractCase) command(line string) {
	t := c.t
	t.Helper()
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "apply":
		c.apply(strings.Fields(rest))
	case "plan":
		c.plan(strings.Fields(rest))
	case "write":
		name, text, _ := strings.Cut(rest, " ")
		if s, err := strconv.Unquote(text); err == nil {
			text = s
		}
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	case "release":
		c.env.release()
	case "memory":
		c.memory(strings.TrimSpace(rest))
	case "runs":
		c.runs()
	case "never":
		c.never = append(c.never, strings.TrimSpace(rest))
	default:
		t.Fatalf("unknown command %q", line)
	}
}

// options reads the words of an apply or plan.
func (c *contractCase) options(words []string) (Options, context.Context, []string) {
	t := c.t
	c.summary = false
	opts := Options{Store: c.store, Executors: c.env.executors(), Secrets: map[string]string{}}
	ctx := context.Background()
	given := map[string]compiler.InputValue{}
	var cancelAfter []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "no-cache":
			opts.NoCache = true
		case w == "cache-all":
			opts.CacheAll = true
		case w == "summary":
			c.summary = true
		case w == "cancelled":
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			ctx = cctx
		case w == "cancel-after" && i+1 < len(words):
			i++
			cancelAfter = strings.Split(words[i], ",")
		case strings.HasPrefix(w, "ns="):
			opts.Namespace = strings.TrimPrefix(w, "ns=")
		case strings.HasPrefix(w, "secret:"):
			name, val, _ := strings.Cut(strings.TrimPrefix(w, "secret:"), "=")
			opts.Secrets[name] = val
			c.never = append(c.never, val)
		case strings.Contains(w, "="):
			name, raw, _ := strings.Cut(w, "=")
			given[name] = compiler.InputValue{Value: literal(raw), Source: "test"}
		default:
			t.Fatalf("unknown word %q", w)
		}
	}
	in, diags := c.prog.ResolveInputs(given)
	if diags.HasErrors() {
		t.Fatalf("inputs: %s", diags.Error())
	}
	opts.Inputs = in
	opts.LookupEnv = func(string) (string, bool) { return "", false }
	return opts, ctx, cancelAfter
}

// literal reads an HCL literal, or else takes raw as a string.
func literal(raw string) cty.Value {
	expr, diags := hclsyntax.ParseExpression([]byte(raw), "arg", hcl.InitialPos)
	if diags.HasErrors() || len(expr.Variables()) > 0 {
		return cty.StringVal(raw)
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return cty.StringVal(raw)
	}
	return v
}

func (c *contractCase) apply(words []string) {
	t := c.t
	opts, ctx, cancelAfter := c.options(words)
	rec := &ctRec{}
	if len(cancelAfter) > 0 {
		// Cancel once the listed steps have finished and the blocker is
		// holding its call.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ctx = cctx
		done := map[string]bool{}
		fired := false
		rec.onEvent = func(e Event) {
			if f, ok := e.(StepFinished); ok {
				done[f.Step] = true
			}
			for _, s := range cancelAfter {
				if !done[s] {
					return
				}
			}
			if !fired {
				fired = true
				go func() {
					c.env.waitHolding()
					cancel()
				}()
			}
		}
	}
	c.env.reset()
	run := ctApply(t, ctx, c.prog, opts, rec)
	c.writeRun(run)
}

// sleptMS matches the sleep block's measure of the clock, which a report
// cannot show.
var sleptMS = regexp.MustCompile(`"slept_ms":[0-9]+`)

// writeRun reports a run.
func (c *contractCase) writeRun(run *ctRun) {
	w := &c.report
	fmt.Fprintf(w, "run %s\n", run.res.Status)
	labels := make([]string, 0, len(run.finished))
	for l := range run.finished {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	if c.summary {
		labels = nil
		c.writeCounts(run)
	}
	for _, l := range labels {
		f := run.finished[l]
		line := fmt.Sprintf("step %s: %s", l, f.Status)
		if row := run.rows[ctRowKey(f.Step, f.Instance.String())]; row != nil && row.CacheKey != "" {
			if _, ok, _ := c.store.CacheGet(row.CacheKey); ok {
				line += " (in the cache)"
			}
		}
		if f.Attempts > 1 || len(run.started[l]) > 1 {
			line += fmt.Sprintf(" after %d attempts", max(f.Attempts, len(run.started[l])))
		}
		switch {
		case f.Error != "":
			line += ": " + c.clean(f.Error)
		case f.Reason != "":
			line += ": " + f.Reason
		case f.Status == StatusOK || f.Status == StatusCached:
			b, _ := json.Marshal(PlainJSON(f.Outputs))
			line += " " + sleptMS.ReplaceAllString(string(b), `"slept_ms":"(the clock)"`)
		}
		w.WriteString(line + "\n")
	}
	if calls := c.env.counts(); calls != "" {
		fmt.Fprintf(w, "calls: %s\n", calls)
	}
	if len(run.res.Outputs) > 0 {
		b, _ := json.Marshal(PlainOutputs(run.res.Outputs))
		fmt.Fprintf(w, "outputs: %s\n", b)
	}
	for _, f := range run.res.FailedOutputs {
		fmt.Fprintf(w, "no output %s: %s\n", f.Name, c.clean(f.Reason))
	}
	for _, d := range run.res.Diagnostics {
		severity := "error"
		if d.Severity == hcl.DiagWarning {
			severity = "warning"
		}
		fmt.Fprintf(w, "%s: %s\n", severity, c.clean(DiagText(hcl.Diagnostics{d})))
	}
}

// writeCounts reports how many instances of each step ended with each
// status: "step wide: 200 ok".
func (c *contractCase) writeCounts(run *ctRun) {
	counts := map[string]map[string]int{}
	for _, f := range run.finished {
		if counts[f.Step] == nil {
			counts[f.Step] = map[string]int{}
		}
		counts[f.Step][string(f.Status)]++
	}
	for _, step := range lang.SortedKeys(counts) {
		var parts []string
		for _, st := range lang.SortedKeys(counts[step]) {
			parts = append(parts, fmt.Sprintf("%d %s", counts[step][st], st))
		}
		fmt.Fprintf(&c.report, "step %s: %s\n", step, strings.Join(parts, ", "))
	}
}

func (c *contractCase) plan(words []string) {
	opts, _, _ := c.options(words)
	c.env.reset()
	plan, diags := Plan(c.prog, opts)
	if diags.HasErrors() {
		fmt.Fprintf(&c.report, "%s\n", c.clean(diags.Error()))
		return
	}
	for _, s := range plan.Steps {
		line := fmt.Sprintf("step %s: %s", s.Name, s.Action)
		if s.Reason != "" {
			line += " (" + s.Reason + ")"
		}
		c.report.WriteString(line + "\n")
	}
	if calls := c.env.counts(); calls != "" {
		fmt.Fprintf(&c.report, "calls: %s\n", calls)
	}
}

func (c *contractCase) memory(ns string) {
	raw, err := c.store.Memory(c.prog.Flow.Name, ns)
	if err != nil {
		c.t.Fatal(err)
	}
	if len(raw) == 0 {
		c.report.WriteString("memory: none\n")
		return
	}
	for _, name := range lang.SortedKeys(raw) {
		v, err := DecodeValue(raw[name])
		if err != nil {
			c.t.Fatalf("memory %s: %v", name, err)
		}
		b, _ := json.Marshal(PlainJSON(v))
		fmt.Fprintf(&c.report, "memory %s: %s\n", name, b)
	}
}

func (c *contractCase) runs() {
	runs, err := c.store.Runs(c.prog.Flow.Name, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, r := range runs {
		if r.SourceHash != c.prog.SourceHash || r.StartedAt.IsZero() || r.FinishedAt.IsZero() {
			c.t.Errorf("run %s: source hash %q, started %v, finished %v", r.ID, r.SourceHash, r.StartedAt, r.FinishedAt)
		}
		fmt.Fprintf(&c.report, "run %s in %s: inputs %s, outputs %s", r.Status, r.Namespace, r.Inputs, r.Outputs)
		if r.Error != "" {
			fmt.Fprintf(&c.report, ", error %q", c.clean(strings.SplitN(r.Error, "\n", 2)[0]))
		}
		c.report.WriteString("\n")
	}
}

// clean removes what differs from run to run from a message: the case's
// directory.
func (c *contractCase) clean(s string) string {
	return strings.ReplaceAll(s, c.dir+string(filepath.Separator), "")
}

// checkNever looks for the texts of "never" (and the secrets given) in the
// report (but for its command lines), the events and every byte of the
// state.
func (c *contractCase) checkNever(report, stateDir string) {
	t := c.t
	for _, text := range c.never {
		if text == "" {
			continue
		}
		for _, line := range strings.Split(report, "\n") {
			if !strings.HasPrefix(line, "> ") && strings.Contains(line, text) {
				t.Errorf("the report shows %q: %s", text, line)
			}
		}
		for _, ev := range c.env.eventText {
			if strings.Contains(ev, text) {
				t.Errorf("an event shows %q: %s", text, ev)
			}
		}
		filepath.WalkDir(stateDir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(text)) {
				t.Errorf("%s holds %q", p, text)
			}
			return nil
		})
	}
}

// ---------------------------------------------------------------------------
// Runs and their checks

// ctRec records events; onEvent, when set, is called after recording.
type ctRec struct {
	mu      sync.Mutex
	events  []Event
	onEvent func(Event)
}

func (r *ctRec) observe(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	f := r.onEvent
	r.mu.Unlock()
	if f != nil {
		f(e)
	}
}

// ctRun is a finished run with its events and stored state.
type ctRun struct {
	res      *Result
	events   []Event
	finished map[string]StepFinished // by Label
	started  map[string][]int        // attempts of StepStarted, by Label
	rows     map[string]*state.StepResult
	runRow   *state.Run
}

func ctRowKey(step, instance string) string { return step + "|" + instance }

// ctApply runs prog with opts, checks that the events are well-formed and
// agree with the stored state, and returns the run.
func ctApply(t *testing.T, ctx context.Context, prog *compiler.Program, opts Options, rec *ctRec) *ctRun {
	t.Helper()
	if rec == nil {
		rec = &ctRec{}
	}
	env, _ := opts.Executors.Runtimes["js"].(ctJSExec)
	inner := rec.onEvent
	rec.onEvent = func(e Event) {
		if env.env != nil {
			if f, ok := e.(StepFinished); ok && f.Step == "list" {
				env.env.mu.Lock()
				done, once := env.env.listDone, env.env.listOnce
				env.env.mu.Unlock()
				once.Do(func() { close(done) })
			}
			env.env.mu.Lock()
			env.env.eventText = append(env.env.eventText, eventText(e))
			env.env.mu.Unlock()
		}
		if inner != nil {
			inner(e)
		}
	}
	opts.Observe = rec.observe
	res, err := Apply(ctx, prog, opts)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	rec.mu.Lock()
	events := append([]Event(nil), rec.events...)
	rec.mu.Unlock()
	run := &ctRun{res: res, events: events}
	ctCheckEvents(t, prog, run)
	if opts.Store != nil {
		ctCheckState(t, opts.Store, run)
	}
	return run
}

// eventText is an event as an observer could show it.
func eventText(e Event) string {
	var b []byte
	switch ev := e.(type) {
	case StepFinished:
		b, _ = json.Marshal(map[string]any{"o": PlainJSON(ev.Outputs), "e": ev.Error, "r": ev.Reason})
	case RunFinished:
		b, _ = json.Marshal(map[string]any{"o": PlainOutputs(ev.Outputs), "e": ev.Error, "f": ev.FailedOutputs})
	}
	return string(b)
}

func ctStatusValid(s Status) bool {
	switch s {
	case StatusOK, StatusFailed, StatusSkipped, StatusCached, StatusCancelled:
		return true
	}
	return false
}

// ctCheckEvents checks that a run's events are well-formed (docs/runtime.md
// "Events").
func ctCheckEvents(t *testing.T, prog *compiler.Program, run *ctRun) {
	t.Helper()
	events := run.events
	run.finished = map[string]StepFinished{}
	run.started = map[string][]int{}
	if len(events) < 2 {
		t.Errorf("events: %d, want at least run_started and run_finished", len(events))
		return
	}
	rs, ok := events[0].(RunStarted)
	if !ok {
		t.Errorf("first event is %T, want RunStarted", events[0])
	} else {
		if rs.RunID != run.res.RunID {
			t.Errorf("run_started run id %q, result's %q", rs.RunID, run.res.RunID)
		}
		if rs.Flow != prog.Flow.Name {
			t.Errorf("run_started flow %q, want %q", rs.Flow, prog.Flow.Name)
		}
	}
	rf, ok := events[len(events)-1].(RunFinished)
	if !ok {
		t.Errorf("last event is %T, want RunFinished", events[len(events)-1])
	} else {
		if rf.RunID != run.res.RunID {
			t.Errorf("run_finished run id %q, result's %q", rf.RunID, run.res.RunID)
		}
		if rf.Status != run.res.Status {
			t.Errorf("run_finished status %s, result's %s", rf.Status, run.res.Status)
		}
	}
	// Events are stamped as they are delivered: their times never go
	// backwards in the order they are seen (times.txtar gives many
	// instances finishing at once every chance to break this).
	if inv := ctTimeInversions(events); len(inv) > 0 {
		t.Errorf("%d of %d events go back in time, e.g. %s", len(inv), len(events), inv[0])
	}
	firstEvent := map[string]int{}   // step name -> index of its first step event
	lastFinished := map[string]int{} // step name -> index of its last StepFinished
	ended := map[string]bool{}       // steps with for_each whose StepEnded came
	for i, e := range events {
		var at time.Time
		switch ev := e.(type) {
		case RunStarted:
			at = ev.Time
			if i != 0 {
				t.Errorf("event %d: a second run_started", i)
			}
		case RunFinished:
			at = ev.Time
			if i != len(events)-1 {
				t.Errorf("event %d: run_finished before the end", i)
			}
		case StepStarted:
			at = ev.Time
			label := Label(ev.Step, ev.Instance)
			if _, done := run.finished[label]; done {
				t.Errorf("event %d: step_started of %s after its step_finished", i, label)
			}
			att := run.started[label]
			if ev.Attempt != len(att)+1 {
				t.Errorf("event %d: step_started of %s with attempt %d after attempts %v", i, label, ev.Attempt, att)
			}
			run.started[label] = append(att, ev.Attempt)
			if _, ok := firstEvent[ev.Step]; !ok {
				firstEvent[ev.Step] = i
			}
		case StepFinished:
			at = ev.Time
			label := Label(ev.Step, ev.Instance)
			if _, dup := run.finished[label]; dup {
				t.Errorf("event %d: a second step_finished of %s", i, label)
			}
			if !ctStatusValid(ev.Status) {
				t.Errorf("event %d: step_finished of %s with status %q", i, label, ev.Status)
			}
			switch ev.Status {
			case StatusSkipped, StatusCancelled:
				if !ctAllNull(ev.Outputs) {
					t.Errorf("event %d: %s %s with outputs %#v, want null", i, label, ev.Status, ev.Outputs)
				}
			}
			run.finished[label] = ev
			if _, ok := firstEvent[ev.Step]; !ok {
				firstEvent[ev.Step] = i
			}
			lastFinished[ev.Step] = i
		case StepEnded:
			// After the last instance of a step with for_each, once.
			at = ev.Time
			if s := prog.StepsByName[ev.Step]; s == nil || s.ForEach == nil {
				t.Errorf("event %d: step_ended of %s, which has no for_each", i, ev.Step)
			}
			if ended[ev.Step] {
				t.Errorf("event %d: a second step_ended of %s", i, ev.Step)
			}
			ended[ev.Step] = true
			n := 0
			for _, f := range run.finished {
				if f.Step == ev.Step {
					n++
				}
			}
			if n != ev.Instances {
				t.Errorf("event %d: step_ended of %s says %d instances after %d step_finished", i, ev.Step, ev.Instances, n)
			}
		default:
			t.Errorf("event %d: unexpected type %T", i, e)
		}
		if at.IsZero() {
			t.Errorf("event %d (%T) has no time", i, e)
		}
	}
	for label := range run.started {
		f, ok := run.finished[label]
		if !ok {
			t.Errorf("%s started but never finished", label)
			continue
		}
		if f.Status == StatusCached {
			t.Errorf("%s is cached but has step_started events", label)
		}
	}
	perStep := map[string][]StepFinished{}
	for _, f := range run.finished {
		perStep[f.Step] = append(perStep[f.Step], f)
	}
	for _, s := range prog.Steps {
		fs := perStep[s.Name]
		if s.ForEach == nil {
			if len(fs) != 1 || !fs[0].Instance.IsNone() {
				t.Errorf("step %s (no for_each) has %d step_finished events; want exactly one without an instance key", s.Name, len(fs))
			}
		}
		// A step starts only once the steps it depends on have finished.
		if first, ok := firstEvent[s.Name]; ok {
			for _, d := range s.Deps {
				if last, ok := lastFinished[d.Name]; ok && last > first {
					t.Errorf("step %s has an event (#%d) before its dependency %s finished (#%d)", s.Name, first, d.Name, last)
				}
				if _, ok := lastFinished[d.Name]; !ok && d.ForEach == nil {
					t.Errorf("step %s ran but its dependency %s never finished", s.Name, d.Name)
				}
			}
		}
	}
}

// ctCheckState checks that the stored run and step results agree with the
// events (docs/runtime.md "State").
func ctCheckState(t *testing.T, st *state.Store, run *ctRun) {
	t.Helper()
	rows, err := st.Steps(run.res.RunID)
	if err != nil {
		t.Fatalf("Steps: %v", err)
	}
	run.rows = map[string]*state.StepResult{}
	for _, r := range rows {
		k := ctRowKey(r.Step, r.Instance)
		if run.rows[k] != nil {
			t.Errorf("two stored results for %s[%s]", r.Step, r.Instance)
		}
		run.rows[k] = r
		if r.Sensitive && len(r.Outputs) != 0 && string(r.Outputs) != "null" {
			t.Errorf("sensitive result %s[%s] stored outputs %s", r.Step, r.Instance, r.Outputs)
		}
		if r.Sensitive && r.CacheKey != "" {
			if _, ok, _ := st.CacheGet(r.CacheKey); ok {
				t.Errorf("sensitive result %s[%s] is in the cache", r.Step, r.Instance)
			}
		}
	}
	if len(rows) != len(run.finished) {
		t.Errorf("%d stored step results, %d step_finished events", len(rows), len(run.finished))
	}
	for label, f := range run.finished {
		r := run.rows[ctRowKey(f.Step, f.Instance.String())]
		if r == nil {
			t.Errorf("no stored result for %s", label)
			continue
		}
		if r.Status != string(f.Status) {
			t.Errorf("%s: stored status %q, event status %q", label, r.Status, f.Status)
		}
		if r.Attempts != f.Attempts && f.Status != StatusCached && f.Status != StatusSkipped && f.Status != StatusCancelled {
			t.Errorf("%s: stored %d attempts, event %d", label, r.Attempts, f.Attempts)
		}
		if lang.IsSensitive(f.Outputs) != r.Sensitive && (f.Status == StatusOK || f.Status == StatusCached) {
			t.Errorf("%s: stored sensitive %v, event outputs sensitive %v", label, r.Sensitive, lang.IsSensitive(f.Outputs))
		}
	}
	rr, err := st.Run(run.res.RunID)
	if err != nil {
		t.Fatalf("Run(%s): %v", run.res.RunID, err)
	}
	run.runRow = rr
	if rr.Status != string(run.res.Status) {
		t.Errorf("stored run status %q, result %q", rr.Status, run.res.Status)
	}
	if rr.FinishedAt.IsZero() {
		t.Errorf("stored run has no finish time")
	}
	if run.res.Diagnostics.HasErrors() && rr.Error == "" {
		t.Errorf("stored run has no error, the result has %s", run.res.Diagnostics.Error())
	}
}

// ctAllNull reports whether a skipped step's outputs are null.
func ctAllNull(v cty.Value) bool {
	if v == cty.NilVal || v.IsNull() {
		return true
	}
	if !v.Type().IsObjectType() {
		return false
	}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if !e.IsNull() {
			return false
		}
	}
	return true
}

// ctWait waits for ch, or gives up after a long time so that a wrong
// implementation fails the test instead of hanging it.
func ctWait(ctx context.Context, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(20 * time.Second):
		return false
	}
}

// ctTimeInversions lists the events whose time is before the previous
// event's.
func ctTimeInversions(events []Event) []string {
	var out []string
	var prev time.Time
	for i, e := range events {
		var at time.Time
		switch ev := e.(type) {
		case RunStarted:
			at = ev.Time
		case StepStarted:
			at = ev.Time
		case StepFinished:
			at = ev.Time
		case StepEnded:
			at = ev.Time
		case RunFinished:
			at = ev.Time
		}
		if at.Before(prev) {
			out = append(out, fmt.Sprintf("event %d (%T) at %s is %s before the previous one", i, e, at.Format("15:04:05.000000"), prev.Sub(at)))
		}
		if !at.IsZero() {
			prev = at
		}
	}
	return out
}
