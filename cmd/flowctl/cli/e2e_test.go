package cli

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
)

// flowctl returns a command that runs flowctl in a child process.
func flowctl(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FLOWCTL_TEST_MAIN=1", "NO_COLOR=1")
	return cmd
}

type event struct {
	Type     string `json:"type"`
	Step     string `json:"step"`
	Instance any    `json:"instance"`
	Status   string `json:"status"`
	Error    any    `json:"error"`
}

func parseEvents(t *testing.T, out []byte) []event {
	t.Helper()
	var events []event
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON event: %q", sc.Text())
		}
		events = append(events, e)
	}
	return events
}

const killFlow = `
flow "killme" {}

step "work" {
  use         = "sleep"
  for_each    = range(40)
  parallelism = 4
  duration    = "${20 + each.value}ms" # a cache key of its own for each instance
  cache       = true
}

step "sum" {
  use   = "value"
  value = sum(step.work[*].slept_ms) > 0
}
`

// TestKillDuringApply kills flowctl apply with SIGKILL at several points
// of a run, chosen by the events it has printed rather than by time: at
// once, after run_started, and after 10 and 30 finished step instances.
// The state must open cleanly afterwards, and a second apply must reuse
// every step instance the killed run completed and re-run none of them.
func TestKillDuringApply(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, point := range []struct {
		name     string
		started  bool // wait for run_started
		finished int  // then for this many step_finished events
	}{
		{"at once", false, 0},
		{"after run_started", true, 0},
		{"after 10 steps", true, 10},
		{"after 30 steps", true, 30},
	} {
		t.Run(point.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "k.flow.hcl"), []byte(killFlow), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := flowctl(t, dir, "apply", "--auto-approve", "--json", ".")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if point.started {
				started, finished := false, 0
				sc := bufio.NewScanner(stdout)
				for !(started && finished >= point.finished) && sc.Scan() {
					var e event
					if json.Unmarshal(sc.Bytes(), &e) != nil {
						continue
					}
					started = started || e.Type == "run_started"
					if e.Type == "step_finished" {
						finished++
					}
				}
				if !started || finished < point.finished {
					t.Fatalf("apply ended before the kill point: run_started %v, %d steps finished", started, finished)
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			go io.Copy(io.Discard, stdout)
			cmd.Wait()

			// The database, if the run got as far as making one, opens
			// and is intact.
			dbFile := filepath.Join(dir, ".flowctl", state.FileName)
			if _, err := os.Stat(dbFile); err != nil && !point.started {
				t.Logf("killed before the state was made")
			} else if err := checkIntegrity(dbFile); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, ".flowctl"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			st, err := state.Open(filepath.Join(dir, ".flowctl"))
			if err != nil {
				t.Fatal(err)
			}
			runs, err := st.Runs("", 10)
			if err != nil || len(runs) > 1 {
				t.Fatalf("runs after kill: %d, %v", len(runs), err)
			}
			var steps []*state.StepResult
			if len(runs) == 1 { // none when killed before the run began
				// Opening the state found the killed run and recorded it
				// as interrupted.
				if runs[0].Status != state.StatusInterrupted {
					t.Errorf("the killed run is %s, want %s", runs[0].Status, state.StatusInterrupted)
				}
				if steps, err = st.Steps(runs[0].ID); err != nil {
					t.Fatal(err)
				}
			}
			st.Close()
			completed := map[string]bool{}
			for _, s := range steps {
				if s.Status == "ok" {
					completed[s.Step+"["+s.Instance+"]"] = true
				}
			}
			t.Logf("killed %s with %d instances completed", point.name, len(completed))

			out, err := flowctl(t, dir, "apply", "--auto-approve", "--json", ".").Output()
			if err != nil {
				t.Fatalf("re-apply: %v\n%s", err, out)
			}
			reused := 0
			for _, e := range parseEvents(t, out) {
				if e.Type != "step_finished" {
					continue
				}
				label := fmt.Sprintf("%s[%v]", e.Step, e.Instance)
				if e.Instance == nil {
					label = e.Step + "[]"
				}
				if completed[label] {
					if e.Status != "cached" {
						t.Errorf("%s completed before the kill but was %s on re-apply", label, e.Status)
					}
					reused++
				}
				if e.Status != "ok" && e.Status != "cached" {
					t.Errorf("%s: %s (%v)", label, e.Status, e.Error)
				}
			}
			if reused != len(completed) {
				t.Errorf("reused %d of the %d completed instances", reused, len(completed))
			}
		})
	}
}

// TestSecretNeverWritten runs a flow that sends a secret to an http server,
// passes it through a value step and returns a sensitive output, then looks
// for the secret in stdout, stderr and every byte under .flowctl.
func TestSecretNeverWritten(t *testing.T) {
	const secret = "s3cr3t-Zq7-token-value"
	var gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	flow := fmt.Sprintf(`
flow "secretive" {}

secret "token" {
  env = "FLOWCTL_TEST_TOKEN"
}

step "call" {
  use     = "http"
  url     = "%s/api"
  headers = { Authorization = "Bearer ${secret.token}" }
}

step "echo" {
  use   = "value"
  value = "token is ${secret.token}"
}

step "bad" {
  use      = "value"
  value    = tonumber("x${secret.token}")
  on_error = "continue"
}

step "bad_upper" {
  use      = "value"
  value    = tonumber(upper(secret.token))
  on_error = "continue"
}

step "bad_base64" {
  use      = "value"
  value    = tonumber(base64encode(secret.token))
  on_error = "continue"
}

output "ok" {
  value = step.call.body.ok
}

output "echo" {
  value     = step.echo.value
  sensitive = true
}
`, srv.URL)
	if err := os.WriteFile(filepath.Join(dir, "s.flow.hcl"), []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	var outputs [][]byte
	for _, args := range [][]string{
		{"apply", "--auto-approve", "--json", "."},
		{"apply", "--auto-approve", "."},
		{"runs", "list", "--json", "--flow", "."},
		{"output", "--json", "--flow", "."},
	} {
		cmd := flowctl(t, dir, args...)
		cmd.Env = append(cmd.Env, "FLOWCTL_TEST_TOKEN="+secret)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		outputs = append(outputs, stdout.Bytes(), stderr.Bytes())
		if args[0] == "apply" && !strings.Contains(stdout.String(), "(sensitive)") {
			t.Errorf("%v: the sensitive output is not shown as (sensitive):\n%s", args, stdout.String())
		}
	}
	if gotAuth != "Bearer "+secret {
		t.Fatalf("the block did not receive the real secret: %q", gotAuth)
	}
	forms := [][]byte{[]byte(secret), []byte(strings.ToUpper(secret)), []byte(base64.StdEncoding.EncodeToString([]byte(secret)))}
	for i, out := range outputs {
		for _, form := range forms {
			if bytes.Contains(out, form) {
				t.Errorf("output %d contains the secret (%s):\n%s", i, form, out)
			}
		}
	}
	filepath.WalkDir(filepath.Join(dir, ".flowctl"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range append(forms, []byte("Zq7-token")) {
			if bytes.Contains(b, form) {
				t.Errorf("%s contains the secret (%s)", p, form)
			}
		}
		return nil
	})
}

// checkIntegrity checks a state database with SQLite's integrity check.
func checkIntegrity(file string) error {
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return err
	}
	defer db.Close()
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		return fmt.Errorf("integrity_check of %s: %q, %v", file, check, err)
	}
	return nil
}
