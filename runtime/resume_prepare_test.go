package runtime

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
)

// TestTimeCriticalPath: without a recorded run the path is timed by the
// durations sleep steps declare, the longest in time rather than in
// steps; without any, it is left as it was.
func TestTimeCriticalPath(t *testing.T) {
	const src = `flow "f" {}

step "long" {
  use      = "sleep"
  duration = "2s"
}

step "a" {
  use   = "value"
  value = 1
}

step "b" {
  use   = "value"
  value = step.a.value
}
`
	prog, diags := compiler.Compile("f.flow.hcl", compiler.Options{Parser: lang.NewParser(), Source: []byte(src)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	total, byRecorded := TimeCriticalPath(prog, nil, "")
	if total != 2*time.Second || byRecorded || len(prog.CriticalPath) != 1 || prog.CriticalPath[0].Name != "long" {
		t.Errorf("TimeCriticalPath = %s, %v; path of %d", total, byRecorded, len(prog.CriticalPath))
	}
	prog, _ = compiler.Compile("g.flow.hcl", compiler.Options{Parser: lang.NewParser(), Source: []byte("flow \"g\" {}\nstep \"a\" {\n  use   = \"value\"\n  value = 1\n}\n")})
	before := prog.CriticalPath
	if total, _ := TimeCriticalPath(prog, nil, ""); total != 0 || len(prog.CriticalPath) != len(before) {
		t.Errorf("no durations: %s, path of %d", total, len(prog.CriticalPath))
	}
}

// TestResumeFlowFile: the flow given wins; the recorded one must be
// there.
func TestResumeFlowFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.flow.hcl")
	run := &state.Run{ID: "r1", FlowFile: file}
	if _, diags := ResumeFlowFile(run, ""); !diags.HasErrors() || diags[0].Summary != "Flow not found" {
		t.Errorf("a missing recorded file: %v", diags)
	}
	if got, diags := ResumeFlowFile(run, "other.flow.hcl"); got != "other.flow.hcl" || diags.HasErrors() {
		t.Errorf("given: %q %v", got, diags)
	}
	os.WriteFile(file, nil, 0o644)
	if got, diags := ResumeFlowFile(run, ""); got != file || diags.HasErrors() {
		t.Errorf("recorded: %q %v", got, diags)
	}
}
