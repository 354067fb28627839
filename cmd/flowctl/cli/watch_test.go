package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchCommand runs flowctl watch --json in a child process, edits the
// flow, breaks it, fixes it, and stops it with SIGINT.
func TestWatchCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	flow := filepath.Join(dir, "w.flow.hcl")
	src := "flow \"w\" {}\n\nstep \"a\" {\n  use   = \"value\"\n  value = 1\n}\n\nstep \"b\" {\n  use   = \"value\"\n  value = step.a.value * 2\n}\n\noutput \"b\" {\n  value = step.b.value\n}\n"
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cycle, stop := startWatch(t, dir)
	statuses := func(evs []map[string]any) string {
		var s []string
		for _, e := range evs {
			if e["type"] == "step_finished" {
				s = append(s, e["step"].(string)+"="+e["status"].(string))
			}
		}
		return strings.Join(s, " ")
	}
	first := cycle()
	if got := statuses(first); got != "a=ok b=ok" {
		t.Errorf("first cycle: %s", got)
	}
	os.WriteFile(flow, []byte(strings.Replace(src, "* 2", "* 3", 1)), 0o644)
	second := cycle()
	last := second[len(second)-1]
	if got := statuses(second); got != "a=cached b=ok" || last["status"] != "ok" || last["outputs"].(map[string]any)["b"] != 3.0 {
		t.Errorf("second cycle: %s, %v", got, last)
	}
	if ch := last["changed_outputs"].([]any); len(ch) != 1 || ch[0] != "b" {
		t.Errorf("changed outputs: %v", ch)
	}
	os.WriteFile(flow, []byte(strings.Replace(src, "step.a.value", "step.z.value", 1)), 0o644)
	third := cycle()
	last = third[len(third)-1]
	diags := last["diagnostics"].([]any)
	if last["status"] != "invalid" || len(diags) != 1 || diags[0].(map[string]any)["summary"] != "Unknown step" {
		t.Errorf("broken flow: %v", last)
	}
	if last["outputs"].(map[string]any)["b"] != 3.0 {
		t.Errorf("the last good outputs are not kept: %v", last["outputs"])
	}
	stop()
	if _, err := os.Stat(filepath.Join(dir, ".flowctl", "state.db")); err != nil {
		t.Error(err)
	}
}

// startWatch runs flowctl watch --json in dir in a child process. cycle
// returns the events of its next cycle, from cycle_started to
// cycle_finished; stop ends it with SIGINT and checks that it exits well.
func startWatch(t *testing.T, dir string, args ...string) (cycle func() []map[string]any, stop func()) {
	cycle, _, stop = startWatchEvents(t, dir, args...)
	return cycle, stop
}

// startWatchEvents is startWatch that also returns a function giving the
// next event, whatever it is.
func startWatchEvents(t *testing.T, dir string, args ...string) (cycle func() []map[string]any, next func() map[string]any, stop func()) {
	cmd := flowctl(t, dir, append([]string{"watch", "--json"}, append(args, ".")...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan map[string]any)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not JSON: %q", sc.Text())
				continue
			}
			lines <- m
		}
	}()
	next = func() map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("watch ended")
			}
			return m
		case <-time.After(2 * time.Minute):
			t.Fatal("no event")
		}
		return nil
	}
	cycle = func() []map[string]any {
		t.Helper()
		var evs []map[string]any
		timeout := time.After(2 * time.Minute)
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatal("watch ended")
				}
				evs = append(evs, m)
				if m["type"] == "cycle_finished" {
					if evs[0]["type"] != "cycle_started" {
						t.Fatalf("a cycle starts with %v", evs[0])
					}
					return evs
				}
			case <-timeout:
				t.Fatal("no cycle_finished")
			}
		}
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGINT)
		for range lines {
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("watch after SIGINT: %v", err)
		}
	}
	return cycle, next, stop
}

// TestWatchTests: with --test, each successful cycle runs the flow's tests
// and reports them; a cycle that breaks them says so.
func TestWatchTests(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	flow := filepath.Join(dir, "w.flow.hcl")
	src := "flow \"w\" {}\n\nstep \"a\" {\n  use   = \"value\"\n  value = 2\n}\n\noutput \"a\" {\n  value = step.a.value\n}\n"
	test := "test \"two\" {\n  assert {\n    condition     = output.a == 2\n    error_message = \"a is two\"\n  }\n}\n"
	os.WriteFile(flow, []byte(src), 0o644)
	os.WriteFile(filepath.Join(dir, "w.test.hcl"), []byte(test), 0o644)
	cycle, next, stop := startWatchEvents(t, dir, "--test")
	defer stop()
	cycle()
	if e := next(); e["type"] != "tests_finished" || e["passed"] != 1.0 || e["failed"] != 0.0 {
		t.Fatalf("after the first cycle: %v", e)
	}
	os.WriteFile(flow, []byte(strings.Replace(src, "value = 2", "value = 3", 1)), 0o644)
	cycle()
	e := next()
	results, _ := e["results"].([]any)
	if e["type"] != "tests_finished" || e["failed"] != 1.0 || len(results) != 1 || results[0].(map[string]any)["status"] != "failed" {
		t.Fatalf("after the change: %v", e)
	}
}

// TestWatchCompiledBlock: watch builds a changed compiled block; a build
// error is a diagnostic at the code's line and the last results stand;
// the fix is built and run.
func TestWatchCompiledBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("compiled go blocks need the Go toolchain on PATH")
	}
	dir := t.TempDir()
	flow := filepath.Join(dir, "w.flow.hcl")
	src := `flow "w" {}

block "triple" {
  runtime = "go"
  engine  = "compiled"
  input "n" { type = number }
  output "n" { type = number }
  source = <<-GO
    package block

    import "context"

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"n": input["n"].(float64) * 3}, nil
    }
  GO
}

step "t" {
  use = "triple"
  n   = 2
}

output "n" {
  value = step.t.n
}
`
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cycle, stop := startWatch(t, dir)
	defer stop()
	last := func(evs []map[string]any) map[string]any { return evs[len(evs)-1] }
	if c := last(cycle()); c["status"] != "ok" || c["outputs"].(map[string]any)["n"] != 6.0 {
		t.Fatalf("first cycle: %v", c)
	}
	os.WriteFile(flow, []byte(strings.Replace(src, "* 3", "* three", 1)), 0o644)
	c := last(cycle())
	diags, _ := c["diagnostics"].([]any)
	if c["status"] != "invalid" || len(diags) != 1 || !strings.Contains(diags[0].(map[string]any)["detail"].(string), "undefined: three") {
		t.Fatalf("broken block: %v", c)
	}
	if line := diags[0].(map[string]any)["range"].(map[string]any)["start"].(map[string]any)["line"]; line != 14.0 {
		t.Errorf("the compile error is at line %v, want 14", line)
	}
	if c["outputs"].(map[string]any)["n"] != 6.0 {
		t.Errorf("the last good outputs are not kept: %v", c["outputs"])
	}
	os.WriteFile(flow, []byte(strings.Replace(src, "* 3", "* 4", 1)), 0o644)
	if c := last(cycle()); c["status"] != "ok" || c["outputs"].(map[string]any)["n"] != 8.0 {
		t.Fatalf("after the fix: %v", c)
	}
}
