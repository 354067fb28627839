package cli

import (
	"encoding/json"
	"os"
	"os/exec"
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

	// A state next to the flow that is not the project's is pointed at,
	// saying what it is and not how it came to be.
	if err := os.Mkdir(filepath.Join(sub, ".flowctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = flowctl(t, dir, "apply", "--auto-approve", "sub/x.flow.hcl")
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if w := errb.String(); !strings.Contains(w, "Warning: sub/.flowctl, next to this flow, is a state other than the project's, which is .flowctl") ||
		!strings.Contains(w, "--state sub/.flowctl") || strings.Contains(w, "before") {
		t.Errorf("no warning of the old state:\n%s", w)
	}
}

// TestProjectStateAtGitTop: in a fresh git repository, the first apply in
// a subdirectory makes the state at the repository's top, with a
// .gitignore of * (git status lists only the flow), and says where, once;
// serve from the top lists that run, and no state is made next to the
// flow.
func TestProjectStateAtGitTop(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	top := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = top
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	haveGit := true
	if _, err := exec.LookPath("git"); err != nil {
		haveGit = false
		if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	} else {
		git("init", "-q")
	}
	triage := filepath.Join(top, "triage")
	if err := os.Mkdir(triage, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(triage, "x.flow.hcl"), []byte(projectFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	apply := func() (string, string) {
		t.Helper()
		cmd := flowctl(t, triage, "apply", "--auto-approve", "--json")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("apply: %v\n%s%s", err, out, stderr.String())
		}
		var first struct {
			RunID string `json:"run_id"`
		}
		json.Unmarshal([]byte(strings.SplitN(string(out), "\n", 2)[0]), &first)
		return first.RunID, stderr.String()
	}
	first, stderr := apply()
	if _, err := os.Stat(filepath.Join(top, ".flowctl", "state.db")); err != nil {
		t.Fatalf("no state at the repository's top: %v", err)
	}
	if _, err := os.Stat(filepath.Join(triage, ".flowctl")); err == nil {
		t.Error("a state next to the flow")
	}
	if b, err := os.ReadFile(filepath.Join(top, ".flowctl", ".gitignore")); err != nil || string(b) != "*\n" {
		t.Errorf(".flowctl/.gitignore: %q, %v; want *", b, err)
	}
	want := "Made the project's state ../.flowctl at the top of the git repository " + top
	if strings.Count(stderr, "Made the project's state") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("the first apply does not say %q once:\n%s", want, stderr)
	}
	second, stderr := apply()
	if strings.Contains(stderr, "Made") || strings.Contains(stderr, "Warning") {
		t.Errorf("the second apply says:\n%s", stderr)
	}
	if haveGit {
		if st := git("status", "--porcelain", "--untracked-files=all"); st != "?? triage/x.flow.hcl\n" {
			t.Errorf("git status lists:\n%s", st)
		}
	}
	// serve from the top lists both runs; runs at the top too.
	p := startServe(t, top, nil)
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
	if !strings.Contains(ids, first) || !strings.Contains(ids, second) {
		t.Errorf("serve at the top lists %q, not the runs %s %s applied in triage", ids, first, second)
	}

	// A state left in triage (as an earlier flowctl made it) is pointed
	// at by serve and mcp at the top, whose lists do not have its runs.
	if err := os.Mkdir(filepath.Join(triage, ".flowctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := flowctl(t, top, "mcp", ".")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcp: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Warning: triage/.flowctl, next to flows served here, is a state other than the project's, which is .flowctl") {
		t.Errorf("mcp at the top does not point at triage/.flowctl:\n%s", out)
	}
}

// TestInit: flowctl init in an empty directory makes a project whose flow
// validates and whose tests pass offline, and says what to run next; a
// second init writes nothing over the files.
func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	code, out, errOut := runCLI(t, "init", dir)
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Next: cd "+dir+" && flowctl test && flowctl apply\n") {
		t.Errorf("init does not say what to run next:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".flowctl", ".gitignore")); err != nil || string(b) != "*\n" {
		t.Errorf(".flowctl/.gitignore: %q, %v", b, err)
	}
	t.Chdir(dir)
	if code, out, errOut := runCLI(t, "validate"); code != 0 || !strings.Contains(out, "1 flow, 0 block files and 1 test file are valid") {
		t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "test"); code != 0 || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("test: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "apply", "--auto-approve"); code != 0 || errOut != "" {
		t.Errorf("apply in the project: exit %d\n%s%s", code, out, errOut)
	}
	flow := filepath.Join(dir, "hello.flow.hcl")
	if err := os.WriteFile(flow, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "hello.test.hcl"))
	code, _, errOut = runCLI(t, "init")
	if code != exitFailure || !strings.Contains(errOut, "Error: File exists") {
		t.Errorf("init over a file: exit %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(flow); string(b) != "# mine\n" {
		t.Errorf("init overwrote the flow: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.test.hcl")); err == nil {
		t.Error("init wrote the test next to a flow it refused to overwrite")
	}

	// In a subdirectory of a git repository, the state is the one at the
	// repository's top, where serve at the top finds DIR's runs.
	top := t.TempDir()
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(top)
	code, out, errOut = runCLI(t, "init", "triage")
	if code != 0 || !strings.Contains(out, "its state .flowctl (at the top of the git repository "+top) {
		t.Errorf("init in a repository: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(top, ".flowctl", ".gitignore")); err != nil {
		t.Errorf("no state at the repository's top: %v", err)
	}
	if _, err := os.Stat(filepath.Join(top, "triage", ".flowctl")); err == nil {
		t.Error("init made a state in the subdirectory of a repository")
	}
}

// TestOutputNameSaysWhichRun: output NAME names the run on stderr, as
// output does, and prints the value alone on stdout.
func TestOutputNameSaysWhichRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if code, out, errOut := runCLI(t, "init"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	var first struct {
		RunID string `json:"run_id"`
	}
	json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first)
	code, out, errOut = runCLI(t, "output", "count")
	if code != 0 || out != "2\n" {
		t.Fatalf("output count: exit %d, %q\n%s", code, out, errOut)
	}
	if want := "Output of run " + first.RunID + ` of flow "hello" (ok, finished `; first.RunID == "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("output count's stderr does not start with %q:\n%s", want, errOut)
	}
	if _, _, errOut := runCLI(t, "output", "--json", "count"); errOut != "" {
		t.Errorf("output --json count writes on stderr:\n%s", errOut)
	}
}
