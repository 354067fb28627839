package cli

import (
	"bufio"
	"encoding/json"
	"os"
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
	cmd := flowctl(t, dir, "watch", "--json", ".")
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
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not JSON: %q", sc.Text())
				continue
			}
			lines <- m
		}
	}()
	// cycle reads the events of one cycle, from cycle_started to
	// cycle_finished.
	cycle := func() []map[string]any {
		t.Helper()
		var evs []map[string]any
		timeout := time.After(20 * time.Second)
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
	cmd.Process.Signal(syscall.SIGINT)
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("watch after SIGINT: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".flowctl", "state.db")); err != nil {
		t.Error(err)
	}
}
