package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler/flowdoc"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newGraphCommand(s streams) *cobra.Command {
	var a arguments.Graph
	cmd := &cobra.Command{
		Use:   "graph [FLOW]",
		Short: "Print a flow's step graph as Graphviz DOT or Mermaid",
		Long: `Graph prints the DAG of a flow's steps: an edge from each step to the steps
that depend on it. Steps on the critical path are drawn bold: the chain that
takes the most time by the last successful run's durations (and sleep steps'
declared ones), else the longest chain. A step that uses a flow is one
step; --expand draws the flow's steps in its place, as a cluster. FLOW is a
flow file or a directory holding one (default: the current directory).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			write := views.WriteDOT
			if a.Format == "mermaid" {
				write = views.WriteMermaid
			}
			prog, err := newFlowLoader(s, a.Registries).compile(a.Path)
			if err != nil {
				return err
			}
			// The critical path by time when the flow's state has the
			// durations of a run (or its sleep steps declare some).
			var st *state.Store
			if dir := project.State("", project.Base(prog.Filename, ".")); state.IsURL(dir) || dirExists(dir) {
				if st, err = openStateDir(dir); err == nil {
					defer st.Close()
				}
			}
			timeCriticalPath(prog, st, "")
			write(s.out, prog, flowdoc.NewStepGraph(prog, a.Expand))
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}
