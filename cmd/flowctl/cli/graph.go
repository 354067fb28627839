package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newGraphCommand(s streams) *cobra.Command {
	var format string
	var registries []string
	cmd := &cobra.Command{
		Use:   "graph FLOW",
		Short: "Print a flow's step graph as Graphviz DOT or Mermaid",
		Long: `Graph prints the DAG of a flow's steps: an edge from each step to the steps
that depend on it. Steps on the critical path are drawn bold: the chain that
takes the most time by the last successful run's durations (and sleep steps'
declared ones), else the longest chain. FLOW is a flow
file or a directory holding one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var write func(io.Writer, *compiler.Program)
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
			if dir := filepath.Join(prog.Dir, ".flowctl"); dirExists(dir) {
				if st, err = state.Open(dir); err == nil {
					defer st.Close()
				}
			}
			timeCriticalPath(prog, st, "")
			write(s.out, prog)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "dot", "dot or mermaid")
	cmd.Flags().StringArrayVar(&registries, "registry", nil, "a directory of *.block.hcl files to add to the registry (repeatable)")
	return cmd
}

func stepLabel(s *compiler.Step) string {
	label := s.Use
	if e := engineOf(s); e == lang.EngineCompiled {
		label += ", compiled"
	}
	if s.ForEach != nil {
		label += ", for_each"
	}
	return label
}

// engineOf is the engine of a step's go block; "" for other blocks.
func engineOf(s *compiler.Step) string {
	if s.Block == nil || s.Block.Def == nil || s.Block.Def.Runtime != lang.RuntimeGo {
		return ""
	}
	if s.Block.Def.Compiled("") {
		return lang.EngineCompiled
	}
	return lang.EngineInterpreted
}

func onCriticalPath(p *compiler.Program) map[*compiler.Step]bool {
	m := map[*compiler.Step]bool{}
	for _, s := range p.CriticalPath {
		m[s] = true
	}
	return m
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

func writeDOT(w io.Writer, p *compiler.Program) {
	crit := onCriticalPath(p)
	fmt.Fprintf(w, "digraph %q {\n", p.Flow.Name)
	fmt.Fprintln(w, "  rankdir = LR;")
	fmt.Fprintln(w, "  node [shape = box, style = rounded];")
	for _, s := range p.Steps {
		extra := ""
		if crit[s] {
			extra = ", penwidth = 2"
		}
		fmt.Fprintf(w, "  %q [label = %q%s];\n", s.Name, s.Name+"\n"+stepLabel(s), extra)
	}
	for _, s := range p.Steps {
		for _, d := range s.Deps {
			extra := ""
			if criticalEdge(p, d, s) {
				extra = " [penwidth = 2]"
			}
			fmt.Fprintf(w, "  %q -> %q%s;\n", d.Name, s.Name, extra)
		}
	}
	fmt.Fprintln(w, "}")
}

func writeMermaid(w io.Writer, p *compiler.Program) {
	// Node ids get a prefix: Mermaid reserves some words (end) and reads
	// ids starting with o or x after a link as edge shapes.
	id := func(s *compiler.Step) string { return "s_" + s.Name }
	fmt.Fprintln(w, "flowchart LR")
	for _, s := range p.Steps {
		fmt.Fprintf(w, "  %s[\"%s<br/><small>%s</small>\"]\n", id(s), s.Name, stepLabel(s))
	}
	edge, boldEdges := 0, []string{}
	for _, s := range p.Steps {
		for _, d := range s.Deps {
			fmt.Fprintf(w, "  %s --> %s\n", id(d), id(s))
			if criticalEdge(p, d, s) {
				boldEdges = append(boldEdges, fmt.Sprint(edge))
			}
			edge++
		}
	}
	var bold []string
	for _, s := range p.CriticalPath {
		bold = append(bold, id(s))
	}
	if len(bold) > 0 {
		fmt.Fprintln(w, "  classDef critical stroke-width:3px")
		fmt.Fprintf(w, "  class %s critical\n", strings.Join(bold, ","))
	}
	if len(boldEdges) > 0 {
		fmt.Fprintf(w, "  linkStyle %s stroke-width:3px\n", strings.Join(boldEdges, ","))
	}
}
