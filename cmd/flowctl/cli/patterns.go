package cli

import (
	"errors"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newPatternsCommand(s streams) *cobra.Command {
	var f stateFlags
	var jsonOut bool
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
		Args: cobra.RangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			sub, id, err := recordSubcommand("patterns", "pattern", args, "show", "forget")
			if err != nil {
				return err
			}
			st, _, err := f.open(s)
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
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	return cmd
}
