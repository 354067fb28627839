package n8n

import (
	"fmt"
	"strings"
)

// Loops of connections that are not a Loop Over Items made one pass: a
// flow is a DAG, so each node on such a loop is an error naming the loop
// and what kind of loop it is; with --partial each becomes a step that
// fails with that error, keeping the inputs that come from outside the
// loop, and the rest of the workflow converts around it.

// markLoops finds the loops among the nodes sort could not place (the
// strongly connected components of their connections), numbers each
// loop's nodes and reports them; it returns whether it found a loop not
// found before.
func (n *n8n) markLoops(placed map[*n8nNode]bool) bool {
	left := func(node *n8nNode) bool { return node.reached && !placed[node] }
	// Tarjan's algorithm over the nodes left, in the workflow's order.
	index := map[*n8nNode]int{}
	low := map[*n8nNode]int{}
	on := map[*n8nNode]bool{}
	var stack []*n8nNode
	var comps [][]*n8nNode
	next := 1
	var visit func(v *n8nNode)
	visit = func(v *n8nNode) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, out := range v.outs {
			for _, e := range out {
				w := e.node
				if !left(w) {
					continue
				}
				if index[w] == 0 {
					visit(w)
					low[v] = min(low[v], low[w])
				} else if on[w] {
					low[v] = min(low[v], index[w])
				}
			}
		}
		if low[v] == index[v] {
			var comp []*n8nNode
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			comps = append(comps, comp)
		}
	}
	for _, node := range n.nodes {
		if left(node) && index[node] == 0 {
			visit(node)
		}
	}
	found := false
	for _, comp := range comps {
		if comp[0].loop != 0 || len(comp) == 1 && !selfLoop(comp[0]) {
			continue
		}
		found = true
		n.loops++
		in := map[*n8nNode]bool{}
		for _, node := range comp {
			in[node] = true
		}
		var names []string
		for _, node := range n.nodes {
			if in[node] {
				names = append(names, fmt.Sprintf("%q", node.name))
			}
		}
		why := fmt.Sprintf("the node is on %s (%s); a flow is a DAG, and flowctl import converts a loop when it is a Loop Over Items whose nodes each run once for each item (one pass).",
			loopKind(comp), strings.Join(names, ", "))
		for _, node := range n.nodes {
			if in[node] {
				node.loop = n.loops
				node.loopMsg = n.Problem(node.where, node.j, "Loop in the workflow", why)
			}
		}
	}
	return found
}

// selfLoop reports a node connected to itself.
func selfLoop(node *n8nNode) bool {
	for _, out := range node.outs {
		for _, e := range out {
			if e.node == node {
				return true
			}
		}
	}
	return false
}

// loopKind says what a loop does, from its nodes: a Loop Over Items
// that is not one pass, a loop that waits and goes back (retrying or
// polling until a condition holds), one that goes back on a condition
// (pagination, retries), or another.
func loopKind(comp []*n8nNode) string {
	has := map[string]bool{}
	for _, node := range comp {
		has[node.typ] = true
	}
	switch {
	case has["splitInBatches"]:
		return "the loop of a Loop Over Items that is not one pass (the error on it says why)"
	case has["wait"] && (has["if"] || has["switch"] || has["filter"]):
		return "a loop that waits and goes back until a condition holds (polling, or retrying)"
	case has["if"] || has["switch"] || has["filter"]:
		return "a loop that goes back while a condition holds (pagination, or retrying)"
	}
	return "a loop of connections"
}
