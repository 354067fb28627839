package cli

import (
	"errors"
	"fmt"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/project"
	"github.com/spf13/cobra"
)

func newInitCommand(s streams) *cobra.Command {
	var a arguments.Init
	cmd := &cobra.Command{
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return initProject(s, a.Dir)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// initProject makes dir a project (project.Init) and says what it made
// and what to run next.
func initProject(s streams, dir string) error {
	m, err := project.Init(dir)
	var oe *project.OpenError
	switch {
	case errors.As(err, &oe):
		return openError(oe.Dir, oe.Err)
	case err != nil:
		return fromBelow(err)
	}
	how := "git ignores it"
	if m.Existed {
		how = "there already, kept as it was"
	}
	if m.Top != "" {
		how = "at the top of the git repository " + m.Top + ", where every command finds it; " + how
	}
	fmt.Fprintf(s.out, "Made a flowctl project in %s: its state %s (%s), the flow hello.flow.hcl and its test hello.test.hcl.\n", dir, m.State, how)
	next := "flowctl test && flowctl apply"
	if dir != "." {
		next = "cd " + views.ShellQuote(dir) + " && " + next
	}
	fmt.Fprintf(s.out, "Next: %s\n", next)
	return nil
}
