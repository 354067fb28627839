package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/temporal/devserver"
)

// The tests of the temporal engine run flowctl workers and applies against
// a real Temporal dev server, the temporal CLI's (v1.5.1): FLOWCTL_TEMPORAL
// names the binary, else it is looked for in PATH and in
// ~/.cache/flowctl/bin, where .ci/run installs it. In CI (CI set) its
// absence fails the tests.

// devServer starts a Temporal dev server, stopped when the test ends, and
// returns its address.
func devServer(t *testing.T) string {
	t.Helper()
	return devServerWith(t, devserver.Options{}).Addr
}

// devServerWith starts a dev server with options, stopped when the test
// ends.
func devServerWith(t *testing.T, o devserver.Options) *devserver.Server {
	t.Helper()
	bin := devserver.Find()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no temporal CLI to run the temporal engine's tests: go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (.ci/run does)")
		}
		t.Skip("no temporal CLI (go install github.com/temporalio/cli/cmd/temporal@v1.5.1); CI runs these tests")
	}
	srv, err := devserver.StartWith(bin, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// startWorker starts flowctl worker for dir; stop it with kill.
func startWorker(t *testing.T, addr, queue, dir string) *exec.Cmd {
	t.Helper()
	cmd := flowctl(t, dir, "worker", "--engine", "temporal", "--address", addr, "--task-queue", queue, ".")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("worker log:\n%s", logs.String())
		}
	})
	return cmd
}

// finalOutputs are the outputs of the run_finished event of apply --json.
func finalOutputs(t *testing.T, out []byte) map[string]any {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var last struct {
		Type    string         `json:"type"`
		Status  string         `json:"status"`
		Outputs map[string]any `json:"outputs"`
	}
	if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil || last.Type != "run_finished" {
		t.Fatalf("last line is not run_finished: %s (%v)", lines[len(lines)-1], err)
	}
	if last.Status != "ok" {
		t.Fatalf("run %s:\n%s", last.Status, out)
	}
	return last.Outputs
}

// TestTemporalExamples runs the offline examples on a worker and locally,
// each in a copy of its own, and compares the outputs; runs and output
// read the Temporal run back.
func TestTemporalExamples(t *testing.T) {
	addr := devServer(t)
	local, remote := t.TempDir(), t.TempDir()
	for _, d := range []string{local, remote} {
		if err := os.CopyFS(d, os.DirFS("../../../examples")); err != nil {
			t.Fatal(err)
		}
		for name := range offline {
			os.RemoveAll(filepath.Join(d, name, ".flowctl"))
		}
	}
	startWorker(t, addr, "examples", remote)
	for name := range offline {
		if lockedFirst[name] != nil {
			continue // its packages are locked and run by TestExamples
		}
		t.Run(name, func(t *testing.T) {
			if needsPython[name] {
				needPython(t)
			}
			run := func(dir string, args ...string) []byte {
				t.Helper()
				cmd := flowctl(t, dir, args...)
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				if err := cmd.Run(); err != nil {
					t.Fatalf("flowctl %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
				}
				return out.Bytes()
			}
			want := finalOutputs(t, run(filepath.Join(local, name), "apply", "--auto-approve", "--json", "."))
			// From the worker's DIR: the worker records the run in the
			// state of its project, DIR's.
			got := finalOutputs(t, run(remote, "apply", "--engine", "temporal", "--address", addr,
				"--task-queue", "examples", "--auto-approve", "--json", name))
			wantJSON, _ := json.Marshal(want)
			gotJSON, _ := json.Marshal(got)
			if !bytes.Equal(wantJSON, gotJSON) {
				t.Errorf("outputs on Temporal:\n%s\nlocally:\n%s", gotJSON, wantJSON)
			}
			// runs and output read the run back from the state.
			out := run(remote, "output", "--json", "--flow", name)
			var recorded map[string]any
			if err := json.Unmarshal(out, &recorded); err != nil {
				t.Fatalf("output --json: %s (%v)", out, err)
			}
			recJSON, _ := json.Marshal(recorded)
			if !bytes.Equal(recJSON, wantJSON) {
				t.Errorf("flowctl output after the Temporal run:\n%s\nwant:\n%s", recJSON, wantJSON)
			}
			if out := run(remote, "runs", "list", "--flow", name); !strings.Contains(string(out), " ok ") {
				t.Errorf("runs list does not show the run ok:\n%s", out)
			}
		})
	}
}

// TestTemporalWorkerKilled kills the worker (SIGKILL) in the middle of a
// 20-step chain of http steps, starts another, and checks that the run
// completes and that no step that had finished ran again.
//
// Workers and the client encrypt payloads (FLOWCTL_TEMPORAL_KEY).
func TestTemporalWorkerKilled(t *testing.T) {
	addr := devServer(t)
	t.Setenv("FLOWCTL_TEMPORAL_KEY", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")
	var mu sync.Mutex
	count := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		count[r.URL.Path]++
		mu.Unlock()
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path": %q}`, r.URL.Path)
	}))
	defer srv.Close()
	requests := func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range count {
			out[k] = v
		}
		return out
	}

	var src strings.Builder
	src.WriteString("flow \"chain\" {}\ninput \"base\" { type = string }\n")
	for i := 1; i <= 20; i++ {
		prev := `""`
		if i > 1 {
			prev = fmt.Sprintf("step.s%d.body.path", i-1)
		}
		fmt.Fprintf(&src, "step \"s%d\" {\n  use = \"http\"\n  url = \"${input.base}/s%d?after=${urlencode(%s)}\"\n}\n", i, i, prev)
	}
	src.WriteString("output \"last\" { value = step.s20.body.path }\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "chain.flow.hcl"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	first := startWorker(t, addr, "killed", dir)
	apply := flowctl(t, dir, "apply", "--engine", "temporal", "--address", addr, "--task-queue", "killed",
		"--auto-approve", "--json", "--input", "base="+srv.URL, "chain.flow.hcl")
	var out, errOut bytes.Buffer
	apply.Stdout, apply.Stderr = &out, &errOut
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(requests()) < 8 {
		if time.Now().After(deadline) {
			t.Fatalf("the chain did not reach step 8: %v\n%s", requests(), errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.Process.Kill()
	first.Wait()
	before := requests()
	startWorker(t, addr, "killed", dir)

	done := make(chan error, 1)
	go func() { done <- apply.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("apply: %v\n%s%s", err, out.String(), errOut.String())
		}
	case <-time.After(5 * time.Minute):
		apply.Process.Kill()
		t.Fatalf("the run did not complete after the worker was replaced:\n%s", out.String())
	}
	if got := finalOutputs(t, out.Bytes())["last"]; got != "/s20" {
		t.Errorf("output last = %v", got)
	}
	after := requests()
	for i := 1; i <= 20; i++ {
		path := fmt.Sprintf("/s%d", i)
		n := after[path]
		switch {
		case n == 0:
			t.Errorf("step s%d never ran", i)
		case before[path] > 0 && n > before[path]+1:
			t.Errorf("step s%d ran %d times", i, n)
		}
	}
	// The steps that had finished when the worker died (all that had
	// started but the last) ran once.
	started := len(before)
	for i := 1; i < started; i++ {
		if n := after[fmt.Sprintf("/s%d", i)]; n != 1 {
			t.Errorf("step s%d, finished before the kill, ran %d times", i, n)
		}
	}
}

// TestTemporalApprove approves a run on Temporal with flowctl approve,
// which signals the workflow.
func TestTemporalApprove(t *testing.T) {
	addr := devServer(t)
	dir := t.TempDir()
	src := `
flow "ship" {}
step "ask" {
  use     = "approval"
  message = "Ship it?"
}
output "by" { value = step.ask.by }
`
	if err := os.WriteFile(filepath.Join(dir, "ship.flow.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	startWorker(t, addr, "approve", dir)
	apply := flowctl(t, dir, "apply", "--engine", "temporal", "--address", addr, "--task-queue", "approve",
		"--auto-approve", "--json", "ship.flow.hcl")
	var out, errOut bytes.Buffer
	apply.Stdout, apply.Stderr = &out, &errOut
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- apply.Wait() }()
	// The run's ID is in its first event; the request is recorded when the
	// step waits.
	var runID string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok && strings.Contains(out.String(), `"step_waiting"`) {
			var ev struct {
				RunID string `json:"run_id"`
			}
			json.Unmarshal([]byte(line), &ev)
			runID = ev.RunID
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not wait: %s%s", out.String(), errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	approve := flowctl(t, dir, "approve", "--address", addr, "--by", "ana", runID, "ask")
	if b, err := approve.CombinedOutput(); err != nil {
		t.Fatalf("approve: %v\n%s", err, b)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("apply: %v\n%s%s", err, out.String(), errOut.String())
		}
	case <-time.After(2 * time.Minute):
		apply.Process.Kill()
		t.Fatalf("the run did not go on after the approval:\n%s", out.String())
	}
	if got := finalOutputs(t, out.Bytes())["by"]; got != "ana" {
		t.Errorf("output by = %v", got)
	}
}

// TestTemporalServe: flowctl serve --engine temporal starts a run on a
// worker; the API's approval reaches the waiting workflow as a signal; the
// run ends ok with its outputs, and its event stream ends with
// run_finished.
func TestTemporalServe(t *testing.T) {
	addr := devServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mail.flow.hcl"), []byte(approvalServeFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	startWorker(t, addr, "serve", dir)
	p := startServe(t, dir, nil, "--engine", "temporal", "--address", addr, "--task-queue", "serve")
	var r runReply
	if code := p.do("POST", "/v1/flows/mail/runs", `{"inputs": {"to": "Ada"}}`, &r); code != 202 {
		t.Fatalf("start: %d %+v", code, r)
	}
	// The request is recorded by the worker when the step waits.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var e struct{ Error struct{ Code string } }
		code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/review", `{"approved": true, "by": "bo"}`, &e)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the approval was not taken: %d %+v", code, e)
		}
	}
	run := p.waitStatus(r.RunID, "ok")
	if got := run.Outputs["sent"]; got != "Dear Ada, approved by bo" {
		t.Errorf("sent = %q", got)
	}
	evs := p.events(r.RunID, "")
	if len(evs) == 0 || evs[len(evs)-1].event != "run_finished" {
		t.Errorf("events: %+v", evs)
	}
}
