package views

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/flowtest/result"
	"github.com/hashicorp/hcl/v2"
)

// Watch renders a watch: its cycles, the events of each run, and the
// results of the tests run after a cycle (watch --test).
type Watch interface {
	Event(e any)
	// Tests shows the results of the tests run after cycle; files are
	// the parsed files, diags the problems of loading the tests.
	Tests(cycle int, results []result.Result, files map[string]*hcl.File, diags hcl.Diagnostics)
	Close()
}

var (
	_ Watch = (*watchJSON)(nil)
	_ Watch = (*watchHuman)(nil)
)

// NewWatch returns the view of watch: JSON events on out, or for people
// the cycles on out and the diagnostics on errw; color and errColor say
// whether each shows colours, verbose prints what steps log, and files
// are shown relative to the working directory wd.
func NewWatch(out, errw io.Writer, color, errColor, jsonOut, verbose bool, wd string) Watch {
	if jsonOut {
		return &watchJSON{applyJSON: NewApplyJSON(out)}
	}
	return &watchHuman{w: out, errw: errw, color: color, errColor: errColor, verbose: verbose, wd: wd, failures: sameFailures{}}
}

// watchJSON prints the runtime's events as apply --json does, framed by
// cycle_started and cycle_finished.
type watchJSON struct {
	*applyJSON
}

type jsonCycleStarted struct {
	JSONHead
	Cycle   int      `json:"cycle"`
	Changed []string `json:"changed"`
}

// JSONCycleFinished is the event cycle_finished of watch --json.
type JSONCycleFinished struct {
	JSONHead
	Cycle          int              `json:"cycle"`
	Status         string           `json:"status"`
	DurationMS     int64            `json:"duration_ms"`
	Ran            int              `json:"ran"`
	Cached         int              `json:"cached"`
	Outputs        map[string]any   `json:"outputs"`
	ChangedOutputs []string         `json:"changed_outputs"`
	Diagnostics    []jsonDiagnostic `json:"diagnostics"`
}

func (v *watchJSON) Event(e any) {
	switch e := e.(type) {
	case event.CycleStarted:
		changed := e.Changed
		if changed == nil {
			changed = []string{}
		}
		v.write(jsonCycleStarted{JSONHead{"cycle_started", JSONTime(e.Time)}, e.Cycle, changed})
	case event.CycleFinished:
		out := JSONCycleFinished{
			JSONHead: JSONHead{"cycle_finished", JSONTime(e.Time)}, Cycle: e.Cycle, Status: e.Status,
			DurationMS: e.Duration.Milliseconds(), Ran: e.Ran, Cached: e.Cached,
			Outputs: event.PlainOutputs(e.Outputs), ChangedOutputs: e.ChangedOutputs,
			Diagnostics: newJSONValidate(e.Files, e.Diagnostics).Diagnostics,
		}
		if out.ChangedOutputs == nil {
			out.ChangedOutputs = []string{}
		}
		v.write(out)
	case event.Event:
		v.applyJSON.Event(e)
	}
}

func (v *watchJSON) write(x any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.enc.Encode(x)
	v.buf.Flush()
}

// watchHuman prints each cycle compactly: the steps that ran (cached ones
// are counted), the outputs and what changed in them, or the diagnostics.
type watchHuman struct {
	w, errw         io.Writer
	color, errColor bool   // colours on w, on errw
	verbose         bool   // print what steps log
	wd              string // file names are relative to it
	mu              sync.Mutex
	last            int // the last good cycle
	// failures are the errors of this cycle shown in full, by step.
	failures sameFailures
}

func (v *watchHuman) Event(e any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch e := e.(type) {
	case event.CycleStarted:
		what := "start"
		if len(e.Changed) > 0 {
			var names []string
			for _, c := range e.Changed {
				names = append(names, relPath(v.wd, c))
			}
			what = strings.Join(names, ", ") + " changed"
		}
		fmt.Fprintf(v.w, "── cycle %d · %s · %s\n", e.Cycle, e.Time.Local().Format("15:04:05"), what)
		v.failures = sameFailures{}
	case event.StepFinished:
		label := event.Label(e.Step, e.Instance)
		line := fmt.Sprintf("  %s %-9s %s", statusMarks[e.Status], e.Status, label)
		if e.Status == event.StatusOK || e.Status == event.StatusFailed {
			line += "  " + FormatDuration(e.Duration)
		}
		end, same := v.failures.endOfLine(e, label)
		line += end
		if e.Status == event.StatusCached && v.color {
			line = dim(line)
		}
		fmt.Fprintln(v.w, line)
		if e.Error != "" && !same {
			writeIndented(v.w, "      ", e.Error)
		}
	case event.StepLog:
		if v.verbose {
			fmt.Fprintf(v.w, "    %s │ %s\n", event.Label(e.Step, e.Instance), lang.EscapeControlLine(e.Line))
		}
	case event.StepWaiting:
		fmt.Fprintf(v.w, "  ? %-9s %s  (%s; decide with flowctl approve)\n", event.StatusWaiting, event.Label(e.Step, e.Instance), lang.EscapeControlLine(e.Message))
	case event.CycleFinished:
		v.finished(e)
	}
}

func (v *watchHuman) finished(e event.CycleFinished) {
	if e.Status == "invalid" {
		WriteDiagnostics(v.errw, v.errColor, e.Files, e.Diagnostics)
		if v.last > 0 {
			fmt.Fprintf(v.w, "  The flow has errors; the results of cycle %d stand. Watching for changes.\n\n", v.last)
		} else {
			fmt.Fprintln(v.w, "  The flow has errors. Watching for changes.")
			fmt.Fprintln(v.w)
		}
		return
	}
	WriteRunDiagnostics(v.errw, v.errColor, e.Files, e.Diagnostics)
	fmt.Fprintf(v.w, "  %s: %d ran, %d cached in %s\n", e.Status, e.Ran, e.Cached, FormatDuration(e.Duration))
	if e.Status == "ok" {
		v.last = e.Cycle
		changed := map[string]bool{}
		for _, n := range e.ChangedOutputs {
			changed[n] = true
		}
		outputs := shownOutputs(e.Outputs)
		for _, n := range lang.SortedKeys(outputs) {
			b, _ := json.Marshal(outputs[n])
			mark := ""
			if changed[n] {
				mark = "   (changed)"
			}
			fmt.Fprintf(v.w, "  %s = %s%s\n", n, bareSensitive(b), mark)
		}
	}
	fmt.Fprintln(v.w)
}

func (v *watchHuman) Close() {}

// jsonTestsFinished is the event of --json after a cycle's tests.
type jsonTestsFinished struct {
	JSONHead
	Cycle int `json:"cycle"`
	testCounts
	Results []any `json:"results"`
}

func (v *watchJSON) Tests(cycle int, results []result.Result, files map[string]*hcl.File, _ hcl.Diagnostics) {
	tj := newTestJSON(io.Discard)
	tj.Tests(results, files)
	v.write(jsonTestsFinished{JSONHead: JSONHead{"tests_finished", JSONTime(time.Now())}, Cycle: cycle, testCounts: tj.out.testCounts, Results: tj.out.Results})
}

func (v *watchHuman) Tests(_ int, results []result.Result, files map[string]*hcl.File, diags hcl.Diagnostics) {
	WriteDiagnostics(v.errw, v.errColor, files, diags)
	h := newTestHuman(v.w, v.wd)
	h.Tests(results, files)
	c := h.counts
	fmt.Fprintf(v.w, "  tests: %d passed, %d failed, %d errored\n\n", c.Passed, c.Failed, c.Errored)
}

// relPath is p relative to the directory wd when it is under it, else p.
func relPath(wd, p string) string {
	if wd != "" {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
