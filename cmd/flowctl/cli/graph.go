package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/compiler/flowdoc"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newGraphCommand(s streams) *cobra.Command {
	var format string
	var registries registryFlags
	var expand bool
	cmd := &cobra.Command{
		Use:   "graph [FLOW]",
		Short: "Print a flow's step graph as Graphviz DOT or Mermaid",
		Long: `Graph prints the DAG of a flow's steps: an edge from each step to the steps
that depend on it. Steps on the critical path are drawn bold: the chain that
takes the most time by the last successful run's durations (and sleep steps'
declared ones), else the longest chain. A step that uses a flow is one
step; --expand draws the flow's steps in its place, as a cluster. FLOW is a
flow file or a directory holding one (default: the current directory).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			args = flowArg(args)
			var write func(io.Writer, *compiler.Program, *flowdoc.StepGraph)
			switch format {
			case "dot":
				write = writeDOT
			case "mermaid":
				write = writeMermaid
			default:
				return usagef("unknown --format %q: use dot or mermaid", format)
			}
			prog, err := newFlowLoader(s, registries).compile(args[0])
			if err != nil {
				return err
			}
			// The critical path by time when the flow's state has the
			// durations of a run (or its sleep steps declare some).
			var st *state.Store
			if dir := stateIn("", projectBase(prog.Filename)); state.IsURL(dir) || dirExists(dir) {
				if st, err = openStateDir(dir); err == nil {
					defer st.Close()
				}
			}
			timeCriticalPath(prog, st, "")
			write(s.out, prog, flowdoc.NewStepGraph(prog, expand))
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "dot", "dot or mermaid")
	cmd.Flags().BoolVar(&expand, "expand", false, "draw the steps of the flows that steps use, as clusters")
	registries.register(cmd)
	return cmd
}

func writeDOT(w io.Writer, p *compiler.Program, g *flowdoc.StepGraph) {
	fmt.Fprintf(w, "digraph %q {\n", p.Flow.Name)
	fmt.Fprintln(w, "  rankdir = LR;")
	fmt.Fprintln(w, "  node [shape = box, style = rounded];")
	var cluster func(c *flowdoc.Cluster, indent string)
	cluster = func(c *flowdoc.Cluster, indent string) {
		for _, n := range c.Nodes {
			extra := ""
			if n.Bold {
				extra = ", penwidth = 2"
			}
			fmt.Fprintf(w, "%s%q [label = %q%s];\n", indent, n.ID, n.Name+"\n"+n.Label, extra)
		}
		for _, sub := range c.Clusters {
			fmt.Fprintf(w, "%ssubgraph %q {\n", indent, "cluster_"+sub.ID)
			fmt.Fprintf(w, "%s  label = %q;\n", indent, sub.Label)
			cluster(sub, indent+"  ")
			fmt.Fprintf(w, "%s}\n", indent)
		}
	}
	cluster(&g.Root, "  ")
	for _, e := range g.Edges {
		extra := ""
		if e.Bold {
			extra = " [penwidth = 2]"
		}
		fmt.Fprintf(w, "  %q -> %q%s;\n", e.From, e.To, extra)
	}
	fmt.Fprintln(w, "}")
}

func writeMermaid(w io.Writer, _ *compiler.Program, g *flowdoc.StepGraph) {
	// Node ids get a prefix, and lose the characters Mermaid does not
	// take: it reserves some words (end) and reads ids starting with o or
	// x after a link as edge shapes.
	id := func(s string) string { return "s_" + strings.ReplaceAll(s, "/", "__") }
	fmt.Fprintln(w, "flowchart LR")
	var bold []string
	var cluster func(c *flowdoc.Cluster, indent string)
	cluster = func(c *flowdoc.Cluster, indent string) {
		for _, n := range c.Nodes {
			fmt.Fprintf(w, "%s%s[\"%s<br/><small>%s</small>\"]\n", indent, id(n.ID), n.Name, n.Label)
			if n.Bold {
				bold = append(bold, id(n.ID))
			}
		}
		for _, sub := range c.Clusters {
			fmt.Fprintf(w, "%ssubgraph %s[\"%s\"]\n", indent, id(sub.ID), strings.ReplaceAll(sub.Label, "\n", "<br/>"))
			cluster(sub, indent+"  ")
			fmt.Fprintf(w, "%send\n", indent)
		}
	}
	cluster(&g.Root, "  ")
	var boldEdges []string
	for i, e := range g.Edges {
		fmt.Fprintf(w, "  %s --> %s\n", id(e.From), id(e.To))
		if e.Bold {
			boldEdges = append(boldEdges, fmt.Sprint(i))
		}
	}
	if len(bold) > 0 {
		fmt.Fprintln(w, "  classDef critical stroke-width:3px")
		fmt.Fprintf(w, "  class %s critical\n", strings.Join(bold, ","))
	}
	if len(boldEdges) > 0 {
		fmt.Fprintf(w, "  linkStyle %s stroke-width:3px\n", strings.Join(boldEdges, ","))
	}
}
