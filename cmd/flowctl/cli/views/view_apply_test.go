package views

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/event"
	"github.com/zclconf/go-cty/cty"
)

// TestApplyTableColumns: step names, durations and attempts line up, and a
// failed step's error is under its line, whole (reported once: the
// diagnostics after the run leave it out).
func TestApplyTableColumns(t *testing.T) {
	var out bytes.Buffer
	v := NewApplyHuman(&out, false, 16, true) // verbose: every instance has its line
	v.Event(event.StepFinished{Step: "a", Status: event.StatusOK, Duration: 3 * time.Millisecond})
	v.Event(event.StepFinished{Step: "fetch_pages", Instance: event.Key{Value: cty.NumberIntVal(12)}, Status: event.StatusOK, Duration: 1250 * time.Millisecond, Attempts: 3})
	v.Event(event.StepFinished{Step: "post", Status: event.StatusFailed, Duration: 20 * time.Millisecond,
		Error: "HTTP 404: <!DOCTYPE html>" + strings.Repeat("x", 300) + "\n<html>\n<body>Not found</body>"})
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	duration := regexp.MustCompile(`\d+(\.\d+)?m?s`)
	col := duration.FindStringIndex(lines[0])[1]
	for _, l := range lines[1:3] {
		if loc := duration.FindStringIndex(l); loc == nil || loc[1] != col {
			t.Errorf("durations do not end at column %d:\n%s", col, out.String())
		}
	}
	if !strings.HasSuffix(lines[1], "  3 attempts") {
		t.Errorf("attempts: %q", lines[1])
	}
	want := "      HTTP 404: <!DOCTYPE html>" + strings.Repeat("x", 300) + "\n      <html>\n      <body>Not found</body>"
	if got := strings.Join(lines[3:], "\n"); got != want {
		t.Errorf("error lines: %q", got)
	}
}

// TestApplyForEachOneLine (issue 50 #4): the instances of a for_each step
// are one line of counts, printed when the step ends, whatever their
// number; a failure is in full once, the instances that failed the same
// way are named under the step's line; with verbose every instance has its
// line too.
func TestApplyForEachOneLine(t *testing.T) {
	run := func(verbose bool) []string {
		var out bytes.Buffer
		v := NewApplyHuman(&out, false, 9, verbose)
		v.Event(event.RunStarted{RunID: "r1", Flow: "batch", Steps: 2})
		for i := range 5000 {
			st := event.StatusCached
			if i == 7 || i == 4000 {
				st = event.StatusOK
			}
			v.Event(event.StepFinished{Step: "norm", Instance: event.Key{Value: cty.NumberIntVal(int64(i))}, Status: st})
		}
		v.Event(event.StepEnded{Step: "norm", Instances: 5000, Duration: 1200 * time.Millisecond})
		for i := range 3 {
			v.Event(event.StepFinished{Step: "parse", Instance: event.Key{Value: cty.NumberIntVal(int64(i))}, Status: event.StatusFailed, Error: "bad item"})
		}
		v.Event(event.StepFinished{Step: "parse", Instance: event.Key{Value: cty.NumberIntVal(3)}, Status: event.StatusOK, Resumed: true})
		// The engine does not say the step ended: its line comes with
		// the run's end.
		v.Event(event.RunFinished{RunID: "r1", Status: event.StatusFailed})
		v.Close()
		return strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	}
	lines := run(false)
	want := []string{
		`Run r1 of flow "batch"`,
		"  ✓ ok        norm[*]    4,998 cached, 2 ok  (5,000 instances, 1.2s)",
		"  ✗ failed    parse[0]      <1ms",
		"      bad item",
		"  ✗ failed    parse[*]   3 failed, 1 kept  (4 instances, <1ms)",
		"      parse[0] and 2 more instances failed the same way: parse[1], parse[2].",
		"",
		"Run failed: r1 (3 ok, 4,998 cached, 3 failed).",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i := range want {
		got := lines[i]
		if i == 4 {
			got = regexp.MustCompile(`instances, [^)]+\)$`).ReplaceAllString(got, "instances, <1ms)")
		}
		if got != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, got, want[i])
		}
	}
	if n := len(run(true)); n != 5000+4+len(want)-2 {
		t.Errorf("verbose: %d lines, want a line per instance and the steps' lines", n)
	}
}
