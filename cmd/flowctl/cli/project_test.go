package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const projectFlow = `flow "x" {}

step "count" {
  use   = "value"
  cache = true
  value = 3
}

output "n" {
  value = step.count.value
}
`

// TestProjectState: one rule for where a project's state lives, which
// apply, plan, runs, output and serve all follow (docs/runtime.md, "Where
// the state lives"): the runs an apply of DIR/sub/x.flow.hcl made in DIR
// are the runs serve DIR lists, and the other way round; a command in a
// subdirectory of a git repository finds the project's state; --state and
// FLOWCTL_STATE override it; a state left next to a flow is pointed at.
func TestProjectState(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x.flow.hcl"), []byte(projectFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	apply := func(cwd string, env []string, args ...string) string {
		t.Helper()
		cmd := flowctl(t, cwd, append([]string{"apply", "--auto-approve", "--json"}, args...)...)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("apply %s: %v\n%s", args, err, out)
		}
		var first struct {
			RunID string `json:"run_id"`
		}
		json.Unmarshal([]byte(strings.SplitN(string(out), "\n", 2)[0]), &first)
		if first.RunID == "" {
			t.Fatalf("apply %s: no run id:\n%s", args, out)
		}
		return first.RunID
	}
	run := func(cwd string, args ...string) (string, string) {
		t.Helper()
		cmd := flowctl(t, cwd, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s%s", args, err, out, stderr.String())
		}
		return string(out), stderr.String()
	}

	// apply DIR/sub/x.flow.hcl from DIR: the run is in DIR's state, and
	// serve DIR (from elsewhere) lists it.
	first := apply(dir, nil, "sub/x.flow.hcl")
	if _, err := os.Stat(filepath.Join(dir, ".flowctl")); err != nil {
		t.Fatalf("no state in DIR: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, ".flowctl")); err == nil {
		t.Fatal("a state next to the flow")
	}
	p := startServe(t, t.TempDir(), nil, dir)
	listed := func() string {
		var list struct {
			Runs []struct {
				RunID string `json:"run_id"`
			} `json:"runs"`
		}
		if code := p.do("GET", "/v1/runs", "", &list); code != 200 {
			t.Fatalf("GET /v1/runs: %d", code)
		}
		ids := ""
		for _, r := range list.Runs {
			ids += r.RunID + " "
		}
		return ids
	}
	if ids := listed(); !strings.Contains(ids, first) {
		t.Errorf("serve DIR lists %q, not the run of apply in DIR %s", ids, first)
	}
	// With serve running, the same apply: listed too.
	second := apply(dir, nil, "sub/x.flow.hcl")
	if ids := listed(); !strings.Contains(ids, second) {
		t.Errorf("serve DIR lists %q, not the run applied while it ran %s", ids, second)
	}
	// A run serve makes is listed by runs in DIR.
	var r runReply
	if code := p.do("POST", "/v1/flows/x/runs", `{}`, &r, "Content-Type", "application/json"); code != 202 {
		t.Fatalf("start: %d %+v", code, r)
	}
	p.events(r.RunID, "") // to its end
	out, _ := run(dir, "runs", "--json")
	for _, id := range []string{first, second, r.RunID} {
		if !strings.Contains(out, id) {
			t.Errorf("runs in DIR lacks %s:\n%s", id, out)
		}
	}
	// plan and output read the same state: the step is cached, the
	// outputs are those of the newest run.
	out, _ = run(dir, "plan", "--json", "sub/x.flow.hcl")
	if !strings.Contains(out, `"action": "cached"`) {
		t.Errorf("plan does not see the project's cache:\n%s", out)
	}
	out, stderr := run(dir, "output")
	if out != "n = 3\n" || !strings.Contains(stderr, "of flow \"x\"") {
		t.Errorf("output: %q, %q", out, stderr)
	}

	// Outside a git repository a command in sub has sub's own state;
	// inside one, it finds DIR's.
	cmd := flowctl(t, sub, "runs")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "No state") {
		t.Errorf("runs in sub outside a repository: %v\n%s", err, b)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _ = run(sub, "runs", "--json")
	if !strings.Contains(out, first) {
		t.Errorf("runs in sub of a repository does not list DIR's runs:\n%s", out)
	}
	third := apply(sub, nil, ".")
	if _, err := os.Stat(filepath.Join(sub, ".flowctl")); err == nil {
		t.Error("apply in sub of a repository made a state in sub")
	}
	if out, _ := run(dir, "runs", "--json"); !strings.Contains(out, third) {
		t.Errorf("the run applied in sub is not in DIR's state:\n%s", out)
	}

	// --state and FLOWCTL_STATE override the rule.
	other := filepath.Join(t.TempDir(), "st")
	fourth := apply(dir, []string{"FLOWCTL_STATE=" + other}, "sub/x.flow.hcl")
	if out, _ := run(dir, "runs", "--json", "--state", other); !strings.Contains(out, fourth) || strings.Contains(out, first) {
		t.Errorf("FLOWCTL_STATE: runs --state %s:\n%s", other, out)
	}
	if out, _ := run(dir, "runs", "--json"); strings.Contains(out, fourth) {
		t.Errorf("the run recorded in FLOWCTL_STATE is in the project's state too")
	}

	// A state flowctl kept next to the flow before is pointed at.
	if err := os.Mkdir(filepath.Join(sub, ".flowctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = flowctl(t, dir, "apply", "--auto-approve", "sub/x.flow.hcl")
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if w := errb.String(); !strings.Contains(w, "Warning: sub/.flowctl holds the state flowctl kept next to this flow") ||
		!strings.Contains(w, "--state sub/.flowctl") {
		t.Errorf("no warning of the old state:\n%s", w)
	}
}
