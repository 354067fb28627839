package flowtest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
)

// TestLoadAndRunAll: Load reads the tests of the test files among the
// files it is given, compiles their flow once, and leaves out (reporting
// it, with FlowDiags) a flow that does not compile; RunAll runs the tests
// the filter selects, in order, repeated and aggregated.
func TestLoadAndRunAll(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("greet.flow.hcl", `flow "greet" {}

step "hello" {
  use   = "value"
  value = "hello"
}

output "text" {
  value = step.hello.value
}
`)
	good := write("greet.test.hcl", `test "says hello" {
  flow = "greet.flow.hcl"
  assert {
    condition     = output.text == "hello"
    error_message = "hello"
  }
}

test "says bye" {
  flow = "greet.flow.hcl"
  assert {
    condition     = output.text == "bye"
    error_message = "it says hello"
  }
}
`)
	write("broken.flow.hcl", `flow "broken" {}

step "x" {
  use = "nope"
}
`)
	broken := write("broken.test.hcl", `test "never runs" {
  flow = "broken.flow.hcl"
}
`)
	other := write("notes.txt", "not a test file")

	tests, diags := Load(lang.NewParser(), []string{good, broken, other}, LoadOptions{FlowDiags: true})
	if len(tests) != 2 || tests[0].Def.Name != "says hello" || tests[1].Program != tests[0].Program {
		t.Fatalf("%d tests loaded, want the 2 of greet sharing its program", len(tests))
	}
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "nope") {
		t.Errorf("the broken flow is not reported: %v", diags)
	}
	if _, diags := Load(lang.NewParser(), []string{broken}, LoadOptions{}); diags.HasErrors() {
		t.Errorf("without FlowDiags the broken flow is reported: %v", diags)
	}

	ex := &blocks.Executors{Builtins: blocks.BuiltinExecutors()}
	results := RunAll(context.Background(), tests, RunOptions{Options: Options{Executors: ex}, Parallelism: 2})
	if len(results) != 2 || results[0].Status != StatusPassed || results[1].Status != StatusFailed {
		t.Fatalf("results: %+v", results)
	}
	results = RunAll(context.Background(), tests, RunOptions{Options: Options{Executors: ex}, Filter: regexp.MustCompile("bye"), Repeat: 3})
	if len(results) != 1 || results[0].Test != "says bye" || results[0].Status != StatusFailed || results[0].Runs != 3 {
		t.Errorf("the filtered, repeated test: %+v", results)
	}
}
