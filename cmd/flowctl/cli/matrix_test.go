package cli

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/state"
)

// The error matrix: every command, for people and with --json, given a
// bad flag, a bad input value, a missing file, a missing secret or a flow
// that does not compile, exits with the documented code and says what is
// wrong on the right stream: standard error for people; for --json, one
// diagnostics object on standard output, in validate --json's diagnostic
// shape, and nothing on standard error.

const (
	matrixPlain = `flow "plain" {}

input "n" {
  type    = number
  default = 1
}

step "double" {
  use   = "value"
  value = input.n * 2
}

output "double" {
  value = step.double.value
}
`
	matrixSecret = `flow "secretive" {}

secret "token" {
  env = "FLOWCTL_MATRIX_TOKEN"
}

step "auth" {
  use   = "value"
  value = "Bearer ${secret.token}"
}
`
	matrixBroken = `flow "broken" {}

step "a" {
  use = "no_such_block"
}
`
	matrixBadBlock = `block "broken" {
  runtime = "cobol"
  output "x" {
    type = string
  }
}
`
)

// matrixDirs writes the fixtures and returns their directory.
func matrixDirs(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"plain/plain.flow.hcl":       matrixPlain,
		"secret/secret.flow.hcl":     matrixSecret,
		"broken/broken.flow.hcl":     matrixBroken,
		"badblocks/broken.block.hcl": matrixBadBlock,
		"notadir":                    "a file where a state directory is expected\n",
		// A plan saved before the flow changed: its source hash is not
		// the flow's.
		"stale.json": `{"format_version": "1.0", "flow": "plain", "flow_file": "plain/plain.flow.hcl",
			"source_hash": "0000", "namespace": "default", "inputs": {}, "plan": {}}`,
		"plain/blocks/x.json":             "[1, 2]\n",
		"secret/unused/placeholder.txt":   "",
		"broken/notes/placeholder.txt":    "",
		"badblocks/notes/placeholder.txt": "",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type matrixCase struct {
	name    string
	args    []string // {dir} is replaced by the fixtures' directory
	code    int
	summary string // of the (first) diagnostic
	// human is what standard error says for people (default "Error: " +
	// summary).
	human string
	// noJSON: the command has no --json.
	noJSON bool
}

func matrixCases() []matrixCase {
	badFlag := func(cmd ...string) matrixCase {
		noJSON := cmd[0] == "fmt" || cmd[0] == "graph"
		return matrixCase{
			name: cmd[0] + "/bad flag", args: append(cmd, "--no-such-flag"), code: exitUsage,
			summary: "Invalid command line", human: "Error: unknown flag: --no-such-flag\nRun 'flowctl " + cmd[0] + " --help' for usage.",
			noJSON: noJSON,
		}
	}
	cases := []matrixCase{
		badFlag("validate"), badFlag("fmt"), badFlag("plan", "{dir}/plain"), badFlag("apply", "{dir}/plain"),
		badFlag("watch", "{dir}/plain"), badFlag("graph", "{dir}/plain"), badFlag("runs"), badFlag("output"),
		badFlag("blocks"), badFlag("test"), badFlag("think", "intent"), badFlag("version"),
		// A flag the command has, given a wrong value.
		{name: "apply/bad parallelism", args: []string{"apply", "--auto-approve", "--parallelism", "-1", "{dir}/plain"}, code: exitUsage,
			summary: "Invalid command line", human: "Error: --parallelism must be 0 (no cap) or more"},
		{name: "runs/too many arguments", args: []string{"runs", "show", "a", "b"}, code: exitUsage,
			summary: "Invalid command line", human: "Error: runs show takes at most one run id"},

		// Bad input values.
		{name: "plan/bad input value", args: []string{"plan", "{dir}/plain", "--input", "n=abc"}, code: exitFailure, summary: "Invalid input value"},
		{name: "apply/bad input value", args: []string{"apply", "--auto-approve", "{dir}/plain", "--input", "n=abc"}, code: exitFailure, summary: "Invalid input value"},
		{name: "plan/unknown input", args: []string{"plan", "{dir}/plain", "--input", "m=1"}, code: exitFailure, summary: "Unknown input"},
		{name: "apply/bad input file", args: []string{"apply", "--auto-approve", "{dir}/plain", "--input-file", "{dir}/plain/plain.flow.hcl"}, code: exitFailure, summary: "Invalid input file"},

		// Missing files.
		{name: "validate/missing file", args: []string{"validate", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path"},
		{name: "fmt/missing file", args: []string{"fmt", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path", noJSON: true},
		{name: "plan/missing file", args: []string{"plan", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path"},
		{name: "apply/missing file", args: []string{"apply", "--auto-approve", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path"},
		{name: "apply/missing plan file", args: []string{"apply", "{dir}/nosuch.json"}, code: exitFailure, summary: "Cannot read path"},
		{name: "apply/missing input file", args: []string{"apply", "--auto-approve", "{dir}/plain", "--input-file", "{dir}/nosuch.json"}, code: exitFailure, summary: "Cannot read path"},
		{name: "watch/missing file", args: []string{"watch", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path"},
		{name: "graph/missing file", args: []string{"graph", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path", noJSON: true},
		{name: "runs/missing flow", args: []string{"runs", "--flow", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path"},
		{name: "runs/missing state", args: []string{"runs", "--state", "{dir}/nowhere"}, code: exitFailure, summary: "No state"},
		{name: "output/missing flow", args: []string{"output", "--flow", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path"},
		{name: "output/missing state", args: []string{"output", "--state", "{dir}/nowhere"}, code: exitFailure, summary: "No state"},
		{name: "blocks/missing registry", args: []string{"blocks", "--registry", "{dir}/nowhere"}, code: exitFailure, summary: "Registry directory not found"},
		{name: "test/missing file", args: []string{"test", "{dir}/nosuch.flow.hcl"}, code: exitFailure, summary: "Cannot read path"},
		{name: "plan/no flow in directory", args: []string{"plan", "{dir}/badblocks"}, code: exitFailure, summary: "No flow file"},

		// Missing secrets.
		{name: "plan/missing secret", args: []string{"plan", "{dir}/secret"}, code: exitFailure, summary: "Missing secret"},
		{name: "apply/missing secret", args: []string{"apply", "--auto-approve", "{dir}/secret"}, code: exitFailure, summary: "Missing secret"},
		{name: "apply/unknown secret", args: []string{"apply", "--auto-approve", "{dir}/plain", "--secret", "tok=x"}, code: exitFailure, summary: "Unknown secret"},

		// Flows and blocks that do not compile.
		{name: "plan/compile error", args: []string{"plan", "{dir}/broken"}, code: exitFailure, summary: "Unknown block"},
		{name: "apply/compile error", args: []string{"apply", "--auto-approve", "{dir}/broken"}, code: exitFailure, summary: "Unknown block"},
		{name: "graph/compile error", args: []string{"graph", "{dir}/broken"}, code: exitFailure, summary: "Unknown block", noJSON: true},
		{name: "runs/compile error", args: []string{"runs", "--flow", "{dir}/broken"}, code: exitFailure, summary: "Unknown block"},
		{name: "output/compile error", args: []string{"output", "--flow", "{dir}/broken"}, code: exitFailure, summary: "Unknown block"},
		{name: "blocks/compile error", args: []string{"blocks", "--registry", "{dir}/badblocks"}, code: exitFailure, summary: "Unknown runtime"},
		{name: "test/compile error", args: []string{"test", "{dir}/badblocks"}, code: exitFailure, summary: "Unknown runtime",
			human: "Error: Unknown runtime"},

		// A saved plan.
		{name: "apply/stale plan", args: []string{"apply", "{dir}/stale.json"}, code: exitFailure, summary: "Saved plan is stale"},
		{name: "apply/not a plan", args: []string{"apply", "{dir}/plain/blocks/x.json"}, code: exitFailure, summary: "Invalid saved plan"},

		// The state.
		{name: "apply/state cannot be opened", args: []string{"apply", "--auto-approve", "{dir}/plain", "--state", "{dir}/notadir"}, code: exitFailure, summary: "Cannot open the state"},
		{name: "runs/state cannot be opened", args: []string{"runs", "--state", "{dir}/notadir/x"}, code: exitFailure, summary: "No state"},
	}
	return cases
}

func TestErrorMatrix(t *testing.T) {
	dir := matrixDirs(t)
	t.Setenv("FLOWCTL_MATRIX_TOKEN", "")
	os.Unsetenv("FLOWCTL_MATRIX_TOKEN")
	for _, c := range matrixCases() {
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = strings.ReplaceAll(a, "{dir}", dir)
		}
		t.Run(c.name+"/human", func(t *testing.T) {
			code, out, errOut := runIn(args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			if out != "" {
				t.Errorf("stdout is not empty:\n%s", out)
			}
			want := c.human
			if want == "" {
				want = "Error: " + c.summary
			}
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr does not say %q:\n%s", want, errOut)
			}
		})
		if c.noJSON {
			continue
		}
		t.Run(c.name+"/json", func(t *testing.T) {
			jargs := append([]string{args[0], "--json"}, args[1:]...)
			if args[0] == "validate" {
				jargs = append(jargs[:1:1], append([]string{"--format", "json"}, args[1:]...)...)
			}
			code, out, errOut := runIn(jargs...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr is not empty:\n%s", errOut)
			}
			if args[0] == "validate" && c.code == exitFailure {
				// validate --json prints its result, errors included.
				var v diagjson.Validate
				if err := json.Unmarshal([]byte(out), &v); err != nil || v.Valid || len(v.Diagnostics) == 0 || v.Diagnostics[0].Summary != c.summary {
					t.Errorf("stdout is not a validate result with %q (%v):\n%s", c.summary, err, out)
				}
				return
			}
			d := onlyDiagnostics(t, out)
			if d.Diagnostics[0].Summary != c.summary || d.Diagnostics[0].Severity != "error" {
				t.Errorf("first diagnostic %+v, want an error %q", d.Diagnostics[0], c.summary)
			}
			if c.code == exitUsage {
				if want := strings.TrimPrefix(strings.Split(c.human, "\n")[0], "Error: "); !strings.Contains(strings.ToLower(d.Diagnostics[0].Detail), strings.ToLower(want)) {
					t.Errorf("detail %q does not say %q", d.Diagnostics[0].Detail, want)
				}
			}
		})
	}
}

// onlyDiagnostics checks that out is exactly one diagnostics object on one
// line and returns it.
func onlyDiagnostics(t *testing.T, out string) views.JSONDiagnostics {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("stdout has %d lines, want one diagnostics object:\n%s", len(lines), out)
	}
	var d views.JSONDiagnostics
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("stdout is not a diagnostics object: %v\n%s", err, out)
	}
	if d.Type != "diagnostics" || len(d.Diagnostics) == 0 {
		t.Fatalf("stdout is %+v, want type diagnostics with diagnostics", d)
	}
	if _, err := time.Parse(time.RFC3339Nano, d.Time); err != nil {
		t.Errorf("time %q: %v", d.Time, err)
	}
	return d
}

// runIn runs flowctl in process and returns its exit code and output.
func runIn(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Run(args, streams{in: &bytes.Buffer{}, out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// TestWatchReportsInCycles: watch does not stop for what a save can fix
// (a flow that does not compile, a bad input value for the input's type,
// a missing secret): it reports it in a cycle and keeps watching.
func TestWatchReportsInCycles(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := matrixDirs(t)
	for _, c := range []struct {
		name, flow, summary string
		args                []string
	}{
		{"compile error", "broken", "Unknown block", nil},
		{"bad input value", "plain", "Invalid input value", []string{"--input", "n=abc"}},
		{"missing secret", "secret", "Missing secret", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := flowctl(t, dir, append([]string{"watch", "--json", filepath.Join(dir, c.flow)}, c.args...)...)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			sc := bufio.NewScanner(stdout)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var e views.JSONCycleFinished
				if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "cycle_finished" {
					continue
				}
				if e.Status == "ok" || len(e.Diagnostics) == 0 || e.Diagnostics[0].Summary != c.summary {
					t.Fatalf("first cycle: %s", sc.Text())
				}
				if cmd.ProcessState != nil {
					t.Fatal("watch exited")
				}
				return
			}
			t.Fatalf("watch ended without a cycle: %v", sc.Err())
		})
	}
}

// TestLockedState: a state that another process keeps locked is a
// diagnostic, on stderr or as JSON, after the busy timeout.
func TestLockedState(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the state's busy timeout")
	}
	t.Parallel()
	dir := matrixDirs(t)
	flow := filepath.Join(dir, "plain")
	if code, out, errOut := runIn("apply", "--auto-approve", flow); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	db, err := sql.Open("sqlite", filepath.Join(flow, ".flowctl", state.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	code, out, errOut := runIn("apply", "--auto-approve", "--json", flow)
	if code != exitFailure || errOut != "" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	d := onlyDiagnostics(t, out)
	if d.Diagnostics[0].Summary != "State locked" || !strings.Contains(d.Diagnostics[0].Detail, "Another flowctl") {
		t.Errorf("diagnostic %+v", d.Diagnostics[0])
	}
}

// TestHTTPSettings: the HTTP timeout and allow list come from the
// environment or --http-allow; bad values are usage errors, and a step
// that reaches for a cloud metadata address is refused.
func TestHTTPSettings(t *testing.T) {
	dir := t.TempDir()
	flow := `flow "meta" {}

step "creds" {
  use      = "http"
  url      = "http://169.254.169.254/latest/meta-data/iam/"
  on_error = "continue"
}
`
	if err := os.WriteFile(filepath.Join(dir, "meta.flow.hcl"), []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runIn("apply", "--auto-approve", "--json", dir)
	if code != 0 || !strings.Contains(out, `169.254.169.254 is a link-local address, where cloud metadata services answer`) {
		t.Errorf("metadata address: exit %d\n%s", code, out)
	}
	code, _, errOut := runIn("apply", "--auto-approve", "--http-allow", "http://example.com", dir)
	if code != exitUsage || !strings.Contains(errOut, "the HTTP allow list (--http-allow or FLOWCTL_HTTP_ALLOW)") {
		t.Errorf("bad --http-allow: exit %d\n%s", code, errOut)
	}
	t.Setenv(engine.EnvHTTPAllow, "example.com/x")
	if code, _, errOut := runIn("apply", "--auto-approve", dir); code != exitUsage || !strings.Contains(errOut, `"example.com/x" is not a host name`) {
		t.Errorf("bad %s: exit %d\n%s", engine.EnvHTTPAllow, code, errOut)
	}
	t.Setenv(engine.EnvHTTPAllow, "")
	t.Setenv(engine.EnvHTTPTimeout, "soon")
	if code, _, errOut := runIn("apply", "--auto-approve", dir); code != exitUsage || !strings.Contains(errOut, "FLOWCTL_HTTP_TIMEOUT must be a duration") {
		t.Errorf("bad %s: exit %d\n%s", engine.EnvHTTPTimeout, code, errOut)
	}
	t.Setenv(engine.EnvHTTPTimeout, "")
	if code, _, errOut := runIn("apply", "--auto-approve", "--http-conns-per-host", "-2", dir); code != exitUsage || !strings.Contains(errOut, "--http-conns-per-host must be at least 1") {
		t.Errorf("bad --http-conns-per-host: exit %d\n%s", code, errOut)
	}
	t.Setenv(engine.EnvHTTPConns, "many")
	if code, _, errOut := runIn("apply", "--auto-approve", dir); code != exitUsage || !strings.Contains(errOut, `FLOWCTL_HTTP_CONNS_PER_HOST must be a whole number of at least 1, not "many"`) {
		t.Errorf("bad %s: exit %d\n%s", engine.EnvHTTPConns, code, errOut)
	}
}
