package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlowTestOverrideAnyStep: an override replaces the outputs of any
// step — a value step's as a sub-flow's — and an override of a value step
// whose value cannot take the step's type is an error at its outputs.
func TestFlowTestOverrideAnyStep(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.flow.hcl", `flow "main" {}

input "text" {
  type    = string
  default = "a b c"
}

step "read" {
  use   = "value"
  value = input.text
}

step "pair" {
  use   = "value"
  value = { n = 1, s = "one" }
}

step "sub" {
  use  = "flow.echo"
  text = input.text
}

output "words" {
  value = length(split(" ", step.read.value))
}

output "pair" {
  value = "${step.pair.value.n}/${step.pair.value.s}"
}

output "sub" {
  value = step.sub.text
}
`)
	write("echo.flow.hcl", `flow "echo" {}

input "text" {
  type = string
}

step "same" {
  use   = "value"
  value = input.text
}

output "text" {
  value = step.same.value
}
`)
	run := func(test string) (int, string) {
		t.Helper()
		write("main.test.hcl", test)
		code, out, errOut := runCLI(t, "test", filepath.Join(dir, "main.test.hcl"))
		return code, out + errOut
	}

	code, out := run(`test "overrides" {
  flow = "main.flow.hcl"
  override "step.read" {
    outputs = { value = "x y" }
  }
  override "step.pair" {
    outputs = { value = { n = "2", s = "two" } }
  }
  override "step.sub" {
    outputs = { text = "from the test" }
  }
  assert {
    condition     = output.words == 2
    error_message = "words: ${output.words}"
  }
  assert {
    condition     = output.pair == "2/two"
    error_message = "pair: ${output.pair}"
  }
  assert {
    condition     = output.sub == "from the test"
    error_message = "sub: ${output.sub}"
  }
}
`)
	if code != 0 || !strings.Contains(out, "1 passed") {
		t.Fatalf("exit %d:\n%s", code, out)
	}

	code, out = run(`test "wrong" {
  flow = "main.flow.hcl"
  override "step.read" {
    outputs = { value = { a = 1 } }
  }
  assert {
    condition     = output.words == 2
    error_message = "words"
  }
}
`)
	if code != 1 || !strings.Contains(out, "Wrong output type") || !strings.Contains(out, "main.test.hcl line 4") ||
		!strings.Contains(out, `Output "value" of step "read" (block "value") must be a string`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
