package cli

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
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
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitCode,
		},
	})
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
