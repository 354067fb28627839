package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
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
			write := writeDOT
			if a.Format == "mermaid" {
				write = writeMermaid
			}
			prog, err := newFlowLoader(s, a.Registries).compile(a.Path)
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
			write(s.out, prog, newStepGraph(prog, a.Expand))
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// stepLabel is a step's block and what is not the default about it: the
// engine of a go block run compiled (or interpreted when --go-engine
// overrides the block's engine = "compiled"), for_each.
func stepLabel(s *compiler.Step, goEngine string) string {
	label := s.Use
	if e := engineOf(s, goEngine); e == lang.EngineCompiled || (e != "" && s.Block.Def.Engine == lang.EngineCompiled) {
		label += ", " + e
	}
	if s.ForEach != nil {
		label += ", for_each"
	}
	return label
}

// engineOf is the engine a step's go block runs with, given goEngine
// (--go-engine, "" for the block's own); "" for other blocks.
func engineOf(s *compiler.Step, goEngine string) string {
	if s.Block == nil || s.Block.Def == nil || s.Block.Def.Runtime != lang.RuntimeGo {
		return ""
	}
	if s.Block.Def.Compiled(goEngine) {
		return lang.EngineCompiled
	}
	return lang.EngineInterpreted
}

// stepGraph is the graph of a flow's steps as graph prints it: with
// expand, a step that uses a flow is a cluster of that flow's steps.
type stepGraph struct {
	root  graphCluster
	edges []graphEdge
}

type graphCluster struct {
	id, label string // "" for the flow's own
	nodes     []graphNode
	clusters  []*graphCluster
}

type graphNode struct {
	id, name, label string
	bold            bool
}

type graphEdge struct {
	from, to string
	bold     bool
}

func newStepGraph(p *compiler.Program, expand bool) *stepGraph {
	g := &stepGraph{}
	g.add(&g.root, p, "", expand, true)
	return g
}

// add adds p's steps to c, their ids prefixed, and the edges between
// them, bold on p's critical path when critical (p is on its parent's);
// it returns the ids where edges into each step end and those where
// edges out of it start (a cluster's first and last steps).
func (g *stepGraph) add(c *graphCluster, p *compiler.Program, prefix string, expand, critical bool) (ins, outs map[*compiler.Step][]string) {
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
			sub := &graphCluster{id: id, label: s.Name + "\n" + stepLabel(s, p.GoEngine)}
			c.clusters = append(c.clusters, sub)
			subIns, subOuts := g.add(sub, s.Flow, id+"/", expand, crit[s])
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
		c.nodes = append(c.nodes, graphNode{id: id, name: s.Name, label: stepLabel(s, p.GoEngine), bold: crit[s]})
		ins[s], outs[s] = []string{id}, []string{id}
	}
	for _, s := range p.Steps {
		for _, d := range s.Deps {
			bold := critical && criticalEdge(p, d, s)
			for _, from := range outs[d] {
				for _, to := range ins[s] {
					g.edges = append(g.edges, graphEdge{from: from, to: to, bold: bold})
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

func writeDOT(w io.Writer, p *compiler.Program, g *stepGraph) {
	fmt.Fprintf(w, "digraph %q {\n", p.Flow.Name)
	fmt.Fprintln(w, "  rankdir = LR;")
	fmt.Fprintln(w, "  node [shape = box, style = rounded];")
	var cluster func(c *graphCluster, indent string)
	cluster = func(c *graphCluster, indent string) {
		for _, n := range c.nodes {
			extra := ""
			if n.bold {
				extra = ", penwidth = 2"
			}
			fmt.Fprintf(w, "%s%q [label = %q%s];\n", indent, n.id, n.name+"\n"+n.label, extra)
		}
		for _, sub := range c.clusters {
			fmt.Fprintf(w, "%ssubgraph %q {\n", indent, "cluster_"+sub.id)
			fmt.Fprintf(w, "%s  label = %q;\n", indent, sub.label)
			cluster(sub, indent+"  ")
			fmt.Fprintf(w, "%s}\n", indent)
		}
	}
	cluster(&g.root, "  ")
	for _, e := range g.edges {
		extra := ""
		if e.bold {
			extra = " [penwidth = 2]"
		}
		fmt.Fprintf(w, "  %q -> %q%s;\n", e.from, e.to, extra)
	}
	fmt.Fprintln(w, "}")
}

func writeMermaid(w io.Writer, _ *compiler.Program, g *stepGraph) {
	// Node ids get a prefix, and lose the characters Mermaid does not
	// take: it reserves some words (end) and reads ids starting with o or
	// x after a link as edge shapes.
	id := func(s string) string { return "s_" + strings.ReplaceAll(s, "/", "__") }
	fmt.Fprintln(w, "flowchart LR")
	var bold []string
	var cluster func(c *graphCluster, indent string)
	cluster = func(c *graphCluster, indent string) {
		for _, n := range c.nodes {
			fmt.Fprintf(w, "%s%s[\"%s<br/><small>%s</small>\"]\n", indent, id(n.id), n.name, n.label)
			if n.bold {
				bold = append(bold, id(n.id))
			}
		}
		for _, sub := range c.clusters {
			fmt.Fprintf(w, "%ssubgraph %s[\"%s\"]\n", indent, id(sub.id), strings.ReplaceAll(sub.label, "\n", "<br/>"))
			cluster(sub, indent+"  ")
			fmt.Fprintf(w, "%send\n", indent)
		}
	}
	cluster(&g.root, "  ")
	var boldEdges []string
	for i, e := range g.edges {
		fmt.Fprintf(w, "  %s --> %s\n", id(e.from), id(e.to))
		if e.bold {
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
