package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
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
			write(s.out, prog, newStepGraph(prog, a.Expand))
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func newStepGraph(p *compiler.Program, expand bool) *views.Graph {
	g := &views.Graph{}
	add(g, &g.Root, p, "", expand, true)
	return g
}

// add adds p's steps to c, their ids prefixed, and the edges between
// them, bold on p's critical path when critical (p is on its parent's);
// it returns the ids where edges into each step end and those where
// edges out of it start (a cluster's first and last steps).
func add(g *views.Graph, c *views.GraphCluster, p *compiler.Program, prefix string, expand, critical bool) (ins, outs map[*compiler.Step][]string) {
	crit := map[*compiler.Step]bool{}
	if critical {
		for _, s := range p.CriticalPath {
			crit[s] = true
		}
	}
	ins, outs = map[*compiler.Step][]string{}, map[*compiler.Step][]string{}
	for _, s := range p.Steps {
		id := prefix + s.Name
		if expand && s.Flow != nil && len(s.Flow.Steps) > 0 {
			sub := &views.GraphCluster{ID: id, Label: s.Name + "\n" + views.StepLabel(s, p.GoEngine)}
			c.Clusters = append(c.Clusters, sub)
			subIns, subOuts := add(g, sub, s.Flow, id+"/", expand, crit[s])
			for _, t := range s.Flow.Steps {
				if len(t.Deps) == 0 {
					ins[s] = append(ins[s], subIns[t]...)
				}
				if len(t.Dependents) == 0 {
					outs[s] = append(outs[s], subOuts[t]...)
				}
			}
			continue
		}
		c.Nodes = append(c.Nodes, views.GraphNode{ID: id, Name: s.Name, Label: views.StepLabel(s, p.GoEngine), Bold: crit[s]})
		ins[s], outs[s] = []string{id}, []string{id}
	}
	for _, s := range p.Steps {
		for _, d := range s.Deps {
			bold := critical && criticalEdge(p, d, s)
			for _, from := range outs[d] {
				for _, to := range ins[s] {
					g.Edges = append(g.Edges, views.GraphEdge{From: from, To: to, Bold: bold})
				}
			}
		}
	}
	return ins, outs
}

// criticalEdge reports whether d → s is an edge of the critical path: s
// follows d on it.
func criticalEdge(p *compiler.Program, d, s *compiler.Step) bool {
	for i := 1; i < len(p.CriticalPath); i++ {
		if p.CriticalPath[i-1] == d && p.CriticalPath[i] == s {
			return true
		}
	}
	return false
}
