package cli

import (
	"errors"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newPatternsCommand(s streams) *cobra.Command {
	var a arguments.Patterns
	cmd := &cobra.Command{
		Use:   "patterns [list | show ID | forget ID] [--json]",
		Short: "List, show or forget the flows that worked, which think reuses",
		Long: `Patterns are the flows that worked: recorded when think writes a flow that
validates and when a proposal (of think --edit or explain) is accepted, with
the intent, the flow's source and its blocks, and how its runs and tests
have done since. think searches them before decomposing: a close one whose
blocks are all in the registry is the plan and the worked example of the
new flow ("based on pattern NAME"); a pattern whose flow fails its runs or
tests is ranked down. An ID may be a name or a unique prefix.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			sub, id, jsonOut := a.Sub, a.ID, a.JSON
			st, _, err := openStateOf(s, &a.State)
			if err != nil {
				return err
			}
			defer st.Close()
			if sub == "list" {
				ps, err := st.Patterns()
				if err != nil {
					return err
				}
				return views.NewPatterns(s.out, jsonOut).List(ps)
			}
			p, err := st.Pattern(id)
			if err != nil {
				if errors.Is(err, state.ErrPatternNotFound) {
					return failf("Unknown pattern", "%s", sentence(err.Error()))
				}
				return err
			}
			if sub == "forget" {
				if err := st.ForgetPattern(p.ID); err != nil {
					return err
				}
				return views.NewPatterns(s.out, jsonOut).Forgot(p)
			}
			return views.NewPatterns(s.out, jsonOut).Show(p)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}
