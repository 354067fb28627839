package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/zclconf/go-cty/cty"
)

// TestApplyTableColumns: step names, durations and attempts line up, and a
// failed step's error is under its line, whole (reported once: the
// diagnostics after the run leave it out).
func TestApplyTableColumns(t *testing.T) {
	var out bytes.Buffer
	v := newApplyHuman(&out)
	v.labels = 16
	v.Event(runtime.StepFinished{Step: "a", Status: runtime.StatusOK, Duration: 3 * time.Millisecond})
	v.Event(runtime.StepFinished{Step: "fetch_pages", Instance: runtime.Key{Value: cty.NumberIntVal(12)}, Status: runtime.StatusOK, Duration: 1250 * time.Millisecond, Attempts: 3})
	v.Event(runtime.StepFinished{Step: "post", Status: runtime.StatusFailed, Duration: 20 * time.Millisecond,
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
