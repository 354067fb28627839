package views

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/term"
)

// Apply renders a run's events.
type Apply interface {
	Event(e event.Event)
	Close()
}

var (
	_ Apply = (*applyJSON)(nil)
	_ Apply = (*ApplyHuman)(nil)
)

// applyJSON prints one JSON object per event (docs/design.md, "Commands"). Events are buffered and
// flushed at least every flushInterval, so that a run of many short steps
// does not make a write per event, and a reader still sees them promptly.
type applyJSON struct {
	mu   sync.Mutex // events and the flusher
	buf  *bufio.Writer
	enc  *json.Encoder
	line []byte // the last event's line, reused
	stop func()
}

const flushInterval = 50 * time.Millisecond

// NewApplyJSON returns the view of apply --json.
func NewApplyJSON(w io.Writer) *applyJSON {
	v := &applyJSON{buf: bufio.NewWriterSize(w, 64<<10)}
	v.enc = json.NewEncoder(v.buf)
	return v
}

// JSONTime is a time as the --json outputs write it (event.JSONTime).
func JSONTime(t time.Time) string { return event.JSONTime(t) }

// JSONHead begins each object of the commands' --json event streams
// (think, watch, test --watch, and the diagnostics that end a command):
// its type, and the time as apply --json's events write it (JSONTime).
type JSONHead struct {
	Type string `json:"type"`
	Time string `json:"time"`
}

func (v *applyJSON) Event(e event.Event) {
	switch e.(type) {
	case event.RunFinished, event.RunWaiting:
		v.stopFlusher()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if line, ok := event.AppendEventJSON(v.line[:0], e); ok {
		v.line = append(line, '\n')
		v.buf.Write(v.line)
		return
	}
	_, doc := event.EventJSON(e)
	if doc == nil {
		return
	}
	v.enc.Encode(doc)
	switch e.(type) {
	case event.RunStarted:
		v.buf.Flush()
		v.startFlusher()
	case event.RunFinished, event.RunWaiting, event.StepDelta:
		// A streaming step's text goes out as it comes: a reader
		// waits for it, and it comes at the model's pace.
		v.buf.Flush()
	}
}

// startFlusher flushes the buffered events every flushInterval.
func (v *applyJSON) startFlusher() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	mu := &v.mu
	go func() {
		defer close(stopped)
		t := time.NewTicker(flushInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				v.buf.Flush()
				mu.Unlock()
			}
		}
	}()
	v.stop = func() { close(done); <-stopped }
}

func (v *applyJSON) stopFlusher() {
	if v.stop != nil {
		v.stop()
		v.stop = nil
	}
}

func (v *applyJSON) Close() {
	v.stopFlusher()
	v.mu.Lock()
	v.buf.Flush()
	v.mu.Unlock()
}

// shownOutputs are outputs for people: a sensitive value is (sensitive),
// bare, so that it cannot be taken for a string (writeOutputs).
func shownOutputs(outputs map[string]cty.Value) map[string]any {
	out := make(map[string]any, len(outputs))
	for name, v := range outputs {
		out[name] = event.ShowJSON(v, sensitiveMark)
	}
	return out
}

// storedOutputs marks, for people, the sensitive values of outputs read
// back from the state, where they are the string "(sensitive)", so that
// writeOutputs shows them bare as it shows a run's own.
func storedOutputs(outputs map[string]any) map[string]any {
	var mark func(v any) any
	mark = func(v any) any {
		switch v := v.(type) {
		case string:
			if v == event.SensitiveText {
				return sensitiveMark
			}
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, e := range v {
				out[k] = mark(e)
			}
			return out
		case []any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = mark(e)
			}
			return out
		}
		return v
	}
	return mark(outputs).(map[string]any)
}

// bareSensitive is JSON of shownOutputs with (sensitive) bare.
func bareSensitive(b []byte) string {
	return strings.ReplaceAll(string(b), `"`+sensitiveMark+`"`, event.SensitiveText)
}

// sensitiveMark stands in for a sensitive value in shownOutputs: a string
// no value holds, written bare by writeOutputs.
const sensitiveMark = "\ue000" + event.SensitiveText + "\ue000"

// ApplyHuman prints a line per finished step — for a step with for_each,
// one line of counts by status, after the first failure of each kind (a
// line per instance too with verbose) — and, on a terminal, keeps a live
// table of the running instances below them: step, attempt and elapsed
// time.
type ApplyHuman struct {
	w    io.Writer
	term io.Writer // w, but for a question's time (hold)
	live bool
	// labels is the width of the step column: the longest step name
	// (with room for an instance key); 0 when not known.
	labels int
	color  bool // a terminal, NO_COLOR unset: cached steps are dimmed
	// verbose prints each line a step logs as it comes; otherwise the
	// last lines of a step that fails are printed under it (tails).
	verbose bool
	tails   map[string][]string
	// failures are the errors shown in full, by step.
	failures sameFailures
	// groups are the steps with for_each whose instances are ending,
	// by name: such a step is one line of counts, printed when it ends
	// (StepEnded), after the first failure of each kind in full; with
	// verbose, every instance has its line too.
	groups map[string]*stepGroup
	width  int // the terminal's columns; live rows are cut to fit

	mu      sync.Mutex
	running map[string]*runningStep
	drawn   int // lines of the live table on screen
	total   int
	counts  map[event.Status]int
	stop    chan struct{}
	done    chan struct{}
	// asking: a question is on the terminal; lines wait in held.
	asking bool
	held   *bytes.Buffer
}

type runningStep struct {
	label   string
	attempt int
	started time.Time
	// text is the end of what the step's model has streamed so far
	// (StepDelta), shown under its row.
	text string
}

// streamLines is how many of its last lines a streaming step shows under
// its row in the live table; streamKept how much of its text is kept for
// them.
const (
	streamLines = 2
	streamKept  = 1 << 10
)

// NewApplyHuman returns the view of apply for people. color: w is a
// terminal that shows colours; labels is the width of the step column
// (LabelWidth), 0 when not known; verbose prints each line a step logs.
func NewApplyHuman(w io.Writer, color bool, labels int, verbose bool) *ApplyHuman {
	v := &ApplyHuman{w: w, term: w, labels: labels, verbose: verbose, running: map[string]*runningStep{}, counts: map[event.Status]int{}, failures: sameFailures{}}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		v.live = true
		v.color = color
		v.width = 80
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			v.width = cols
		}
		v.stop, v.done = make(chan struct{}), make(chan struct{})
		go v.tick()
	}
	return v
}

var statusMarks = map[event.Status]string{
	event.StatusOK:        "✓",
	event.StatusCached:    "=",
	event.StatusSkipped:   "-",
	event.StatusFailed:    "✗",
	event.StatusCancelled: "!",
}

func (v *ApplyHuman) Event(e event.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch e := e.(type) {
	case event.RunStarted:
		v.total = e.Steps
		fmt.Fprintf(v.w, "Run %s of flow %q\n", e.RunID, e.Flow)
	case event.StepStarted:
		label := event.Label(e.Step, e.Instance)
		if rs := v.running[label]; rs != nil {
			rs.attempt = e.Attempt
		} else {
			v.running[label] = &runningStep{label: label, attempt: e.Attempt, started: e.Time}
		}
		v.redraw()
	case event.StepFinished:
		label := event.Label(e.Step, e.Instance)
		delete(v.running, label)
		v.counts[e.Status]++
		v.clear()
		if !e.Instance.IsNone() && !v.group(e, label) {
			delete(v.tails, label)
			v.redraw()
			return
		}
		line := fmt.Sprintf("  %s %-9s %-*s", statusMarks[e.Status], e.Status, v.labels, label)
		switch {
		case e.Resumed:
			line += "  (from the run's record)"
		case e.Status == event.StatusOK || e.Status == event.StatusFailed:
			line += fmt.Sprintf("  %7s", FormatDuration(e.Duration))
		}
		if e.Attempts > 1 {
			line += fmt.Sprintf("  %d attempts", e.Attempts)
		}
		if e.Retries > 0 {
			line += fmt.Sprintf("  %s, waited %s", Plural(e.Retries, "retry", "retries"), FormatDuration(e.Waited))
		}
		end, same := v.failures.endOfLine(e, label)
		line += end
		line = strings.TrimRight(line, " ")
		if e.Status == event.StatusCached && v.color {
			line = dim(line)
		}
		fmt.Fprintln(v.w, line)
		if e.Error != "" && !same {
			// The whole error, here only: the diagnostics at the end
			// leave it out.
			writeIndented(v.w, "      ", e.Error)
			if t := v.tails[label]; len(t) > 0 && e.Status == event.StatusFailed {
				fmt.Fprintf(v.w, "      its last log lines (flowctl runs logs for all):\n")
				for _, l := range t {
					fmt.Fprintf(v.w, "        │ %s\n", Cut(lang.EscapeControlLine(l), maxErrorLine))
				}
			}
		}
		delete(v.tails, label)
		v.redraw()
	case event.StepLog:
		label := event.Label(e.Step, e.Instance)
		if v.verbose {
			v.clear()
			fmt.Fprintf(v.w, "    %s │ %s\n", label, lang.EscapeControlLine(e.Line))
			v.redraw()
			return
		}
		if v.tails == nil {
			v.tails = map[string][]string{}
		}
		t := append(v.tails[label], e.Line)
		if len(t) > failedLogLines {
			t = t[len(t)-failedLogLines:]
		}
		v.tails[label] = t
	case event.StepDelta:
		// Shown live under the step's row, on the next redraw; the
		// step's outputs say the whole reply.
		if rs := v.running[event.Label(e.Step, e.Instance)]; rs != nil {
			if e.Reset {
				rs.text = ""
			}
			rs.text += e.Text
			if len(rs.text) > streamKept {
				rs.text = strings.ToValidUTF8(rs.text[len(rs.text)-streamKept:], "")
			}
		}
	case event.StepNotice:
		// A build or a model without a price is said as it comes; a
		// retry in the step's line when it ends (and as it happens with
		// --verbose).
		if e.Kind != blocks.NoticeRetry || v.verbose {
			v.clear()
			fmt.Fprintf(v.w, "    %s │ %s\n", event.Label(e.Step, e.Instance), e.Message)
			v.redraw()
		}
	case event.StepWaiting:
		label := event.Label(e.Step, e.Instance)
		delete(v.running, label)
		v.counts[event.StatusWaiting]++
		v.clear()
		fmt.Fprintf(v.w, "  %s %-9s %s  (%s)\n", "?", event.StatusWaiting, label, lang.EscapeControlLine(e.Message))
		v.redraw()
	case event.StepEnded:
		v.clear()
		v.endGroup(e.Step, e.Duration, e.Instances)
		v.redraw()
	case event.RunWaiting:
		v.clear()
		v.endGroups()
		fmt.Fprintf(v.w, "\nRun waiting: %s (%s).\n", e.RunID, v.countsText())
		if len(e.Outputs) > 0 {
			fmt.Fprintln(v.w, "\nOutputs so far:")
			writeOutputs(v.w, shownOutputs(e.Outputs))
		}
		writeFailedOutputs(v.w, e.FailedOutputs)
	case event.RunFinished:
		v.clear()
		v.endGroups()
		v.summary(e)
	}
}

func (v *ApplyHuman) summary(e event.RunFinished) {
	fmt.Fprintf(v.w, "\nRun %s: %s (%s).\n", e.Status, e.RunID, v.countsText())
	if u := e.Usage; u != nil {
		fmt.Fprintf(v.w, "Tokens: %d (%d prompt, %d completion).\n", u.TotalTokens, u.PromptTokens, u.CompletionTokens)
	}
	if len(e.Outputs) > 0 {
		fmt.Fprintln(v.w, "\nOutputs:")
		writeOutputs(v.w, shownOutputs(e.Outputs))
	}
	writeFailedOutputs(v.w, e.FailedOutputs)
}

// writeFailedOutputs lists the outputs a run has no value for, and why.
func writeFailedOutputs(w io.Writer, failed []event.FailedOutput) {
	if len(failed) == 0 {
		return
	}
	fmt.Fprintln(w, "\nOutputs without a value:")
	for _, f := range failed {
		fmt.Fprintf(w, "  %s: %s\n", f.Name, strings.ReplaceAll(lang.EscapeControl(f.Reason), "\n", "\n    "))
	}
}

// writeOutputs prints outputs as NAME = JSON, sorted by name.
func writeOutputs(w io.Writer, outputs map[string]any) {
	for _, n := range lang.SortedKeys(outputs) {
		b, _ := json.MarshalIndent(outputs[n], "", "  ")
		fmt.Fprintf(w, "%s = %s\n", n, bareSensitive(b))
	}
}

// clear erases the live table.
func (v *ApplyHuman) clear() {
	if !v.live || v.drawn == 0 || v.asking {
		return
	}
	fmt.Fprintf(v.w, "\x1b[%dA\x1b[J", v.drawn)
	v.drawn = 0
}

const maxLiveRows = 10

// redraw draws the live table of running steps.
func (v *ApplyHuman) redraw() {
	if !v.live || v.asking {
		return
	}
	v.clear()
	rows := make([]*runningStep, 0, len(v.running))
	for _, rs := range v.running {
		rows = append(rows, rs)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].started.Before(rows[j].started) })
	done := 0
	for _, n := range v.counts {
		done += n
	}
	v.row(fmt.Sprintf("  %d running, %d finished", len(rows), done))
	for i, rs := range rows {
		if i == maxLiveRows {
			v.row(fmt.Sprintf("    … and %d more", len(rows)-maxLiveRows))
			break
		}
		v.row(fmt.Sprintf("    %-30s attempt %d  %s", rs.label, rs.attempt, time.Since(rs.started).Round(100*time.Millisecond)))
		for _, line := range lastLines(rs.text, streamLines) {
			v.row("      │ " + lang.EscapeControlLine(line))
		}
	}
}

// lastLines are the last n lines of text that have something on them.
func lastLines(text string, n int) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out[max(0, len(out)-n):]
}

// row prints one line of the live table, cut to the terminal's width so
// that it never wraps (the redraw counts lines).
func (v *ApplyHuman) row(line string) {
	if r := []rune(line); len(r) > v.width-1 {
		line = string(r[:max(v.width-2, 1)]) + "…"
	}
	fmt.Fprintln(v.w, line)
	v.drawn++
}

func (v *ApplyHuman) tick() {
	defer close(v.done)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
			v.mu.Lock()
			if len(v.running) > 0 {
				v.redraw()
			}
			v.mu.Unlock()
		}
	}
}

func (v *ApplyHuman) Close() {
	if v.live {
		close(v.stop)
		<-v.done
		v.mu.Lock()
		v.clear()
		v.mu.Unlock()
	}
}

// failedLogLines is how many of its last log lines a failed step shows.
const failedLogLines = 5

// maxErrorLine is how much of a log line a failed step shows under it.
const maxErrorLine = 160

// dim is a line printed dimmed on a terminal.
func dim(line string) string { return "\x1b[2m" + line + "\x1b[0m" }

// LabelWidth is the width of the step column for a program's steps.
func LabelWidth(prog *compiler.Program) int {
	w := 0
	for _, s := range prog.Steps {
		n := len(s.Name)
		if s.ForEach != nil {
			n += 5 // [123]
		}
		w = max(w, n)
	}
	return min(w, 40)
}

// FormatDuration is a duration as apply shows it: to the millisecond,
// "<1ms" below.
func FormatDuration(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}
