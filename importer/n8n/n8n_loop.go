package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// Loop Over Items (Split in Batches v3): output 1 ("loop") gives the
// items batch by batch to the nodes of the loop, whose last node connects
// back to it; output 0 ("done") gives, once all batches are done, the
// items that came back. When every node of the loop runs once for each
// item, running the loop once over all the items gives the same items:
// the loop becomes that one pass — the items go straight to the loop's
// nodes, and a node standing for "done" (loopDone) takes what comes back.
// Other loops stay a diagnostic with the reason.

// loopDoneType is the type of the node that stands for a loop's done
// output.
const loopDoneType = "loopDone"

// unrollLoops rewires each Loop Over Items that can be one pass: the
// connections back into it go to a loopDone node, which takes its done
// output's connections.
func (n *n8n) unrollLoops() {
	for _, node := range append([]*n8nNode{}, n.nodes...) {
		if node.typ != "splitInBatches" || node.version < 3 || node.disabled || len(node.ins) == 0 || len(node.outs) < 2 {
			continue
		}
		body := n.loopBody(node)
		var back, from []n8nEdge // edges into the loop node from its body, and from elsewhere
		for _, e := range node.ins[0] {
			if body[e.node] {
				back = append(back, e)
			} else {
				from = append(from, e)
			}
		}
		if len(back) == 0 {
			continue
		}
		if why := n.loopNotOnePass(node, body); why != "" {
			n.Problem(node.where, node.j, "Unsupported loop",
				fmt.Sprintf("the loop runs its nodes batch by batch, and %s, so one pass over all the items would not give what n8n gives.", why))
			continue
		}
		if node.params.Boolean(false, "options", "reset") {
			n.Problem(node.where, node.params.Get("options", "reset"), "Unsupported loop", "a loop that resets is not converted.")
			continue
		}
		n.Warn(node.where, node.j, "Loop as one pass",
			"the nodes of the loop run once over all the items instead of batch by batch; they run once for each item, so they give the same items (a Wait in the loop waits once).")
		done := &n8nNode{j: node.j, name: node.name + " (done)", typ: loopDoneType, fullType: loopDoneType, version: 1,
			params: node.params, where: node.where}
		// The connections back go to done; done takes the done output's.
		done.ins = [][]n8nEdge{nil}
		for _, e := range back {
			done.ins[0] = append(done.ins[0], e)
			outs := e.node.outs[e.index]
			for i := range outs {
				if outs[i].node == node {
					outs[i].node = done
				}
			}
		}
		node.ins[0] = from
		done.outs = [][]n8nEdge{node.outs[0]}
		for _, e := range node.outs[0] {
			for i := range e.node.ins[e.index] {
				if e.node.ins[e.index][i].node == node {
					e.node.ins[e.index][i] = n8nEdge{done, 0}
				}
			}
		}
		node.outs[0] = nil
		n.nodes = append(n.nodes, done)
	}
}

// loopBody are the nodes the loop output leads to before they come back
// to the loop node.
func (n *n8n) loopBody(loop *n8nNode) map[*n8nNode]bool {
	body := map[*n8nNode]bool{}
	var walk func(*n8nNode)
	walk = func(node *n8nNode) {
		if node == loop || body[node] {
			return
		}
		body[node] = true
		for _, out := range node.outs {
			for _, e := range out {
				walk(e.node)
			}
		}
	}
	for _, e := range loop.outs[1] {
		walk(e.node)
	}
	return body
}

// loopNotOnePass says why the nodes of a loop would give other items in
// one pass than batch by batch ("" when they would not): a node that
// takes all its items at once.
func (n *n8n) loopNotOnePass(loop *n8nNode, body map[*n8nNode]bool) string {
	for _, node := range n.nodes {
		if !body[node] {
			continue
		}
		if node.j.Boolean(false, "executeOnce") {
			return fmt.Sprintf("node %q runs once for each batch (Execute Once)", node.name)
		}
		switch node.typ {
		case "set", "httpRequest", "if", "filter", "switch", "noOp", "wait", "stopAndError", "postgres", "splitOut":
			continue
		case "code":
			if node.params.Text("mode") == "runOnceForEachItem" {
				continue
			}
		case "splitInBatches":
			return fmt.Sprintf("node %q is another loop inside it", node.name)
		}
		if !strings.HasPrefix(node.fullType, n8nPrefix) || n8nNodeTypes[node.typ] == nil {
			continue // not converted anyway: its own diagnostic says so
		}
		if app, perItem := appPerItem(node); app {
			if !perItem {
				n.batched[node] = loop.name // the node is refused, not the loop
			}
			continue
		}
		return fmt.Sprintf("node %q (%s) takes all the items of a batch at once", node.name, node.typ)
	}
	return ""
}

// splitInBatches is Loop Over Items made one pass: its loop output gives
// all its items, each its own pair.
func (n *n8n) splitInBatches(node *n8nNode, in n8nItems) []n8nItems {
	if n.tooOld(node, "Loop Over Items (Split in Batches)", 3) {
		return nil
	}
	if len(node.ins) > 0 && len(node.outs) > 0 && node.outs[0] == nil && len(node.outs) > 1 {
		return []n8nItems{{e: importer.Code("[]")}, pairedWith(in.e, in, nil)}
	}
	n.Problem(node.where, node.j, "Unsupported loop", "a Loop Over Items whose loop output does not come back to it is not converted.")
	return nil
}

// loopDone is a loop's done output: the items that came back to it, in
// the order of the connections back.
func (n *n8n) loopDone(node *n8nNode, _ n8nItems) []n8nItems {
	var lists []importer.Expr
	for _, e := range node.ins[0] {
		if e.node.reached && e.index < len(e.node.items) {
			lists = append(lists, e.node.items[e.index].e)
		}
	}
	if len(lists) == 1 {
		return []n8nItems{{e: lists[0]}}
	}
	return []n8nItems{{e: importer.Call("concat", lists...)}}
}
