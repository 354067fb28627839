package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/rogpeppe/go-internal/testscript"
)

// update rewrites the expected output of the txtar cases: testdata/script
// and testdata/hostile.
var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar and testdata/hostile/*.txtar")

func TestMain(m *testing.M) {
	// Sandbox workers are this test binary too.
	if len(os.Args) > 1 && os.Args[1] == isolate.WorkerArg {
		os.Exit(isolate.Main(os.Args[2:]))
	}
	// The end-to-end tests run flowctl as a child process by re-executing
	// this test binary with FLOWCTL_TEST_MAIN set.
	if os.Getenv("FLOWCTL_TEST_MAIN") == "1" {
		os.Exit(Main())
	}
	testscript.Main(m, map[string]func(){
		"flowctl": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each is a
// txtar archive of files and flowctl commands with their expected output and
// exit codes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			// The scripts' HOME is not the user's, which a launcher such as
			// pyenv's shim needs: they get the interpreter itself.
			if interp, err := pyrun.Find(); err == nil {
				env.Setenv(pyrun.EnvPython, interp.Path)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond != "python" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := pyrun.Find()
			if err != nil && os.Getenv("CI") != "" {
				return false, fmt.Errorf("CI needs python: %w", err)
			}
			return err == nil, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":  cmdExitCode,
			"cmpreport": cmdCmpReport,
			"lastrun":   cmdLastRun,
		},
	})
}

// cmdCmpReport compares standard output with a file, the durations of
// flowctl test's lines ("(FILE:LINE, 12ms)") read as "DURATION":
//
//	cmpreport want/report.txt
func cmdCmpReport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: cmpreport FILE")
	}
	got := durationRE.ReplaceAllString(ts.ReadFile("stdout"), "${1}DURATION)")
	if want := ts.ReadFile(args[0]); got != want {
		ts.Fatalf("stdout differs from %s:\n%s", args[0], diffLines(want, got))
	}
}

var durationRE = regexp.MustCompile(`(?m)(\(\S+:\d+, )(?:<1ms|[\d.]+(?:µs|ms|s))\)$`)

// diffLines shows the lines of got that differ from want's.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// cmdExitCode runs a program and checks its exit code:
//
//	exitcode 2 flowctl plan --detailed-exitcode flow.hcl
//
// Its output can be checked with stdout and stderr afterwards.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// cmdLastRun sets an environment variable to the ID of the newest run in
// a state directory:
//
//	lastrun flow/.flowctl RUN
func cmdLastRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lastrun STATE_DIR VAR")
	}
	st, err := state.Open(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("lastrun: %v", err)
	}
	defer st.Close()
	run, err := st.LatestRun("", "", "")
	if err != nil || run == nil {
		ts.Fatalf("lastrun: no run (%v)", err)
	}
	ts.Setenv(args[1], run.ID)
}
