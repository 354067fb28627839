package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// ExampleFlow and ExampleTest are the example flow and test Init
// writes: no network, no model, no secret, so that validate and test pass
// at once.
const ExampleFlow = `# An example flow: an input, a fan-out over it, and outputs. Change it,
# then: flowctl validate, flowctl test, flowctl plan, flowctl apply.
flow "hello" {
  description = "Greet a list of people and count the greetings"
}

input "names" {
  type        = list(string)
  description = "Who to greet"
  default     = ["Ada", "Grace"]
}

step "greet" {
  use      = "value"
  for_each = input.names
  value    = "Hello, ${each.value}!"
}

step "count" {
  use   = "value"
  value = length(step.greet)
}

output "greetings" {
  value = step.greet[*].value
}

output "count" {
  value = step.count.value
}
`

const ExampleTest = `# The tests of hello.flow.hcl: flowctl test runs them, each with a state
# of its own (docs/testing.md).
test "everyone is greeted" {
  assert {
    condition     = output.greetings == ["Hello, Ada!", "Hello, Grace!"]
    error_message = "one greeting per name, in order"
  }
  assert {
    condition     = output.count == 2
    error_message = "two greetings"
  }
}

test "another name" {
  inputs = { names = ["Linus"] }
  assert {
    condition     = output.greetings == ["Hello, Linus!"]
    error_message = "the input's names are greeted"
  }
}
`

// Initialized is what Init made of a directory.
type Initialized struct {
	// State is the project's state (Dir); Existed says it was there
	// before, and is kept as it was.
	State   string
	Existed bool
	// Top is the top of the git repository when the state is there
	// ("" else).
	Top string
}

// Init makes dir a project (flowctl init): its state, where every
// command finds it (Dir), and the example flow hello.flow.hcl with its
// test hello.test.hcl. It writes nothing when dir is a file or one of
// those files exists (an error of hcl.Diagnostics); a state that cannot
// be opened is an *OpenError.
func Init(dir string) (*Initialized, error) {
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return nil, initError("Not a directory", "%s is a file: name a directory to make the project in.", dir)
	}
	files := []struct{ name, text string }{{"hello.flow.hcl", ExampleFlow}, {"hello.test.hcl", ExampleTest}}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if _, err := os.Lstat(path); err == nil {
			return nil, initError("File exists", "%s exists: init writes nothing over a file. Make the project in an empty directory (flowctl init DIR), or move the file away.", path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	stateDir := Dir(dir)
	st, made, err := Open(stateDir, state.Options{})
	if err != nil {
		return nil, &OpenError{Dir: stateDir, Err: err}
	}
	st.Close()
	for _, f := range files {
		// O_EXCL: a file made since the check above is not overwritten.
		out, err := os.OpenFile(filepath.Join(dir, f.name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		_, err = out.WriteString(f.text)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	m := &Initialized{State: stateDir, Existed: !made}
	if abs, err := filepath.Abs(stateDir); err == nil {
		if top := RepositoryTop(dir); top != "" && filepath.Dir(abs) == top {
			m.Top = top
		}
	}
	return m, nil
}

func initError(summary, format string, args ...any) error {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)}}
}

// OpenError is a state that cannot be opened, in Dir.
type OpenError struct {
	Dir string
	Err error
}

func (e *OpenError) Error() string { return "opening the state in " + e.Dir + ": " + e.Err.Error() }

func (e *OpenError) Unwrap() error { return e.Err }
