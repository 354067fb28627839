package cli

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/cobra"
)

func newOutputCommand(s streams) *cobra.Command {
	var f stateFlags
	var jsonOut bool
	var namespace string
	cmd := &cobra.Command{
		Use:   "output [NAME]",
		Short: "Print the outputs of the last successful run",
		Long: `Output prints the outputs of the newest successful run in the state (of the
flow given with --flow, else of any flow there). With NAME it prints that
output alone: a string as it is, anything else as JSON. Sensitive outputs show
as (sensitive).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, flow, err := f.open(s)
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := st.LatestRun(flow, namespace, "ok")
			if err != nil {
				return err
			}
			if run == nil {
				return failf("No successful run", "The state holds no successful run yet; outputs are recorded when a run succeeds.")
			}
			outputs := map[string]any{}
			if len(run.Outputs) > 0 {
				if err := json.Unmarshal(run.Outputs, &outputs); err != nil {
					return fmt.Errorf("reading the outputs of run %s: %w", run.ID, err)
				}
			}
			if len(args) == 1 {
				v, ok := outputs[args[0]]
				if !ok {
					names := make([]string, 0, len(outputs))
					for n := range outputs {
						names = append(names, n)
					}
					sort.Strings(names)
					return failf("Unknown output", "Run %s of flow %q has no output %q.%s", run.ID, run.Flow, args[0], lang.Suggest(args[0], names))
				}
				if str, ok := v.(string); ok && !jsonOut {
					fmt.Fprintln(s.out, str)
					return nil
				}
				return writeJSON(s.out, v)
			}
			if jsonOut {
				return writeJSON(s.out, outputs)
			}
			writeOutputs(s.out, outputs)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	cmd.Flags().StringVar(&namespace, "namespace", "default", "the namespace of the run")
	return cmd
}
