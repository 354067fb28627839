package flowdoc

import (
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

// StepLabel is a step's block and what is not the default about it: the
// engine of a go block run compiled (or interpreted when --go-engine
// overrides the block's engine = "compiled"), for_each.
func StepLabel(s *compiler.Step, goEngine string) string {
	label := s.Use
	if e := EngineOf(s, goEngine); e == lang.EngineCompiled || (e != "" && s.Block.Def.Engine == lang.EngineCompiled) {
		label += ", " + e
	}
	if s.ForEach != nil {
		label += ", for_each"
	}
	return label
}

// EngineOf is the engine a step's go block runs with, given goEngine
// (--go-engine, "" for the block's own); "" for other blocks.
func EngineOf(s *compiler.Step, goEngine string) string {
	if s.Block == nil || s.Block.Def == nil || s.Block.Def.Runtime != lang.RuntimeGo {
		return ""
	}
	if s.Block.Def.Compiled(goEngine) {
		return lang.EngineCompiled
	}
	return lang.EngineInterpreted
}

// A StepGraph is the graph of a flow's steps as graph prints it: with
// expand, a step that uses a flow is a cluster of that flow's steps.
// Nodes and edges on the critical path are Bold.
type StepGraph struct {
	Root  Cluster
	Edges []Edge
}

// A Cluster is the steps of a flow: the flow's own (Root), or those of a
// flow a step uses, drawn in its place.
type Cluster struct {
	ID, Label string // "" for the flow's own
	Nodes     []Node
	Clusters  []*Cluster
}

// A Node is a step: ID is its name, prefixed with those of the clusters
// it is in ("call/step"); Label its block (StepLabel).
type Node struct {
	ID, Name, Label string
	Bold            bool
}

// An Edge goes from a step to one that depends on it, by their IDs.
type Edge struct {
	From, To string
	Bold     bool
}

// NewStepGraph is the graph of p's steps; with expand, the steps of the
// flows its steps use are clusters in their place.
func NewStepGraph(p *compiler.Program, expand bool) *StepGraph {
	g := &StepGraph{}
	g.add(&g.Root, p, "", expand, true)
	return g
}

// add adds p's steps to c, their ids prefixed, and the edges between
// them, bold on p's critical path when critical (p is on its parent's);
// it returns the ids where edges into each step end and those where
// edges out of it start (a cluster's first and last steps).
func (g *StepGraph) add(c *Cluster, p *compiler.Program, prefix string, expand, critical bool) (ins, outs map[*compiler.Step][]string) {
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
			sub := &Cluster{ID: id, Label: s.Name + "\n" + StepLabel(s, p.GoEngine)}
			c.Clusters = append(c.Clusters, sub)
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
		c.Nodes = append(c.Nodes, Node{ID: id, Name: s.Name, Label: StepLabel(s, p.GoEngine), Bold: crit[s]})
		ins[s], outs[s] = []string{id}, []string{id}
	}
	for _, s := range p.Steps {
		for _, d := range s.Deps {
			bold := critical && criticalEdge(p, d, s)
			for _, from := range outs[d] {
				for _, to := range ins[s] {
					g.Edges = append(g.Edges, Edge{From: from, To: to, Bold: bold})
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
