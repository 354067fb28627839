package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// initFlow and initTest are the example flow and test flowctl init
// writes: no network, no model, no secret, so that validate and test pass
// at once.
const initFlow = `# An example flow: an input, a fan-out over it, and outputs. Change it,
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

const initTest = `# The tests of hello.flow.hcl: flowctl test runs them, each with a state
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

func newInitCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Make a project: its state, and an example flow with a test",
		Long: `Init makes DIR (default: the current directory) a flowctl project: its state,
a .flowctl/ (with a .gitignore of *, so that git never commits it), and an
example flow, hello.flow.hcl, with its test, hello.test.hcl, which
flowctl validate and flowctl test pass at once, without the network. Then it
says what to run next. It writes nothing when one of those files exists.

The state is where every command finds it (docs/runtime.md, "Where the state
lives"): DIR/.flowctl outside a git repository; inside one, the nearest
.flowctl from DIR up to the repository's top, else a new one at that top, so
that serve at the top and the editor see DIR's runs too. A state that
exists is kept as it is.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return initProject(s, dir)
		},
	}
}

// initProject makes dir a project (newInitCommand).
func initProject(s streams, dir string) error {
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return failf("Not a directory", "%s is a file: name a directory to make the project in.", dir)
	}
	files := []struct{ name, text string }{{"hello.flow.hcl", initFlow}, {"hello.test.hcl", initTest}}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if _, err := os.Lstat(path); err == nil {
			return failf("File exists", "%s exists: init writes nothing over a file. Make the project in an empty directory (flowctl init DIR), or move the file away.", path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("init: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	stateDir := project.Dir(dir)
	made := !dirExists(stateDir)
	st, err := openStateWith(stateDir, state.Options{})
	if err != nil {
		return err
	}
	st.Close()
	for _, f := range files {
		// O_EXCL: a file made since the check above is not overwritten.
		out, err := os.OpenFile(filepath.Join(dir, f.name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		_, err = out.WriteString(f.text)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	how := "git ignores it"
	if !made {
		how = "there already, kept as it was"
	}
	if abs, err := filepath.Abs(stateDir); err == nil {
		if top := project.RepositoryTop(dir); top != "" && filepath.Dir(abs) == top {
			how = "at the top of the git repository " + top + ", where every command finds it; " + how
		}
	}
	fmt.Fprintf(s.out, "Made a flowctl project in %s: its state %s (%s), the flow hello.flow.hcl and its test hello.test.hcl.\n", dir, stateDir, how)
	next := "flowctl test && flowctl apply"
	if dir != "." {
		next = "cd " + views.ShellQuote(dir) + " && " + next
	}
	fmt.Fprintf(s.out, "Next: %s\n", next)
	return nil
}
