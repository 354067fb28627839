package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/compiler/flowdoc"
)

// The graph of a flow's steps is flowdoc's (flowdoc.NewStepGraph); a
// view draws it.

// StepLabel is a step's block and what is not the default about it
// (flowdoc.StepLabel).
func StepLabel(s *compiler.Step, goEngine string) string { return flowdoc.StepLabel(s, goEngine) }

// Graph is the graph of a flow's steps as graph prints it
// (flowdoc.StepGraph).
type Graph = flowdoc.StepGraph

// GraphCluster is a flow's steps: the flow's own, or those of a flow a
// step uses (flowdoc.Cluster).
type GraphCluster = flowdoc.Cluster

// GraphNode is a step (flowdoc.Node).
type GraphNode = flowdoc.Node

// GraphEdge is an edge from a step to one that depends on it
// (flowdoc.Edge).
type GraphEdge = flowdoc.Edge

// WriteDOT prints a flow's step graph as Graphviz DOT.
func WriteDOT(w io.Writer, p *compiler.Program, g *Graph) {
	fmt.Fprintf(w, "digraph %q {\n", p.Flow.Name)
	fmt.Fprintln(w, "  rankdir = LR;")
	fmt.Fprintln(w, "  node [shape = box, style = rounded];")
	var cluster func(c *GraphCluster, indent string)
	cluster = func(c *GraphCluster, indent string) {
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

// WriteMermaid prints a flow's step graph as a Mermaid flowchart.
func WriteMermaid(w io.Writer, _ *compiler.Program, g *Graph) {
	// Node ids get a prefix, and lose the characters Mermaid does not
	// take: it reserves some words (end) and reads ids starting with o or
	// x after a link as edge shapes.
	id := func(s string) string { return "s_" + strings.ReplaceAll(s, "/", "__") }
	fmt.Fprintln(w, "flowchart LR")
	var bold []string
	var cluster func(c *GraphCluster, indent string)
	cluster = func(c *GraphCluster, indent string) {
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
