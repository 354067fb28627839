package n8n

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// Several connections into one input. n8n runs such a node once for each
// connection that brings items, each a run of its own, in the order it
// runs them (n8n-core's WorkflowExecute: each node that has run puts the
// nodes connected to it on its execution stack, addNodeToBeExecuted; a
// node with one input is not held back until the others arrive). The
// nodes after it run once for each of its runs too. Where the node and
// every node after it make their items from each item on its own, one
// step run on the items of every connection, one after the other in the
// order of n8n's runs, makes n8n's items: that is what fanIn converts.

// fanIn are the items several connections (conns) bring to input index of
// node, or false after a problem that says why they are not converted.
func (n *n8n) fanIn(node *n8nNode, index int, conns []n8nEdge) (n8nItems, bool) {
	why := n.fanInWhy(node, conns)
	var order []n8nEdge
	if why == "" {
		order, why = n.runOrder(node, conns)
	}
	if why != "" {
		var names []string
		for _, e := range conns {
			names = append(names, strconv.Quote(e.node.name))
		}
		n.Problem(node.where, node.j, "Several connections into one input",
			fmt.Sprintf("input %d takes items from %s: n8n runs the node once for each of them, which the flow does as one step only where the node and the nodes after it take items one by one; %s. Put a Merge node before it.", index+1, strings.Join(names, " and "), why))
		return n8nItems{}, false
	}
	m := &mergePairs{node: node, appended: true, edges: order}
	var lists []importer.Expr
	out := n8nItems{merged: m}
	for _, e := range order {
		items := n8nItems{e: importer.Code("[]")}
		if e.index < len(e.node.items) {
			items = e.node.items[e.index]
		}
		m.ins = append(m.ins, items)
		lists = append(lists, items.e)
		out.deps = append(out.deps, items.deps...)
		out.from = append(out.from, items.from...)
	}
	out.e = importer.Call("concat", lists...)
	return out, true
}

// fanInWhy says why the runs of node are not one step, or "".
func (n *n8n) fanInWhy(node *n8nNode, conns []n8nEdge) string {
	// The nodes after it: each runs once for each of its runs.
	seen := map[*n8nNode]bool{}
	var after func(*n8nNode) string
	after = func(x *n8nNode) string {
		if seen[x] {
			return ""
		}
		seen[x] = true
		if why := perItemWhy(x); why != "" {
			return why
		}
		if x != node && len(reachedIns(x)) > 1 {
			return fmt.Sprintf("%q after it takes items from several nodes too", x.name)
		}
		for _, out := range x.outs {
			for _, e := range out {
				if why := after(e.node); why != "" {
					return why
				}
			}
		}
		return ""
	}
	if why := after(node); why != "" {
		return why
	}
	// The nodes before it each run once: one trigger, and no node before
	// it that takes items from several nodes or runs in a loop.
	roots := 0
	for _, x := range ancestors(conns) {
		ins := reachedIns(x)
		switch {
		case x.loop != 0 || x.typ == "splitInBatches" || x.typ == loopDoneType:
			return fmt.Sprintf("%q before it runs in a loop", x.name)
		case len(ins) > 1 || len(x.ins) > 1:
			return fmt.Sprintf("%q before it takes items from several nodes", x.name)
		case len(ins) == 0:
			roots++
		}
	}
	if roots != 1 {
		return "several triggers lead to it"
	}
	return ""
}

// perItemNodes are the node types that make their items from each input
// item on its own (n8n's execute loops over the items), routing them
// (If, Switch, Filter) or passing them on (No Operation, Wait).
var perItemNodes = map[string]bool{
	"set": true, "noOp": true, "httpRequest": true, "filter": true, "if": true,
	"switch": true, "wait": true, "renameKeys": true, "functionItem": true,
}

// perItemNames name them in problems.
const perItemNames = "Edit Fields, No Operation, HTTP Request, Filter, If, Switch, Wait, Rename Keys, Function Item, Code run once for each item"

// perItemWords are what makes a node's items depend on the other items of
// its run, or on the run: n8n's items of the whole run ($input.all(),
// first(), last(), $items()), the index of the item or the run, the node
// before it ($prevNode) and the last run's items of another ($node[…]).
var perItemWords = []string{"$itemIndex", "$runIndex", "$items(", ".all(", ".first(", ".last(",
	"$position", "$prevNode", "$node[", "$node.", "itemMatching(", "StaticData"}

// perItemWhy says why a node's items are not those of each item on its
// own, or "".
func perItemWhy(x *n8nNode) string {
	if x.disabled {
		return "" // it passes its items on
	}
	if !perItemNodes[x.typ] && !(x.typ == "code" && x.params.Text("mode") == "runOnceForEachItem") {
		return fmt.Sprintf("%q (%s) is not one of those (%s)", x.name, x.fullType, perItemNames)
	}
	if x.j.Boolean(false, "executeOnce") {
		return fmt.Sprintf("%q runs once (Execute Once) for each run", x.name)
	}
	if x.j.Boolean(false, "alwaysOutputData") {
		return fmt.Sprintf("%q makes an empty item in each run without items (Always Output Data)", x.name)
	}
	if w := usesWord(x.params); w != "" {
		return fmt.Sprintf("%q reads %s, which differs between its runs", x.name, w)
	}
	return ""
}

// usesWord is the first of perItemWords in a string of v.
func usesWord(v *importer.JV) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case 's':
		for _, w := range perItemWords {
			if strings.Contains(v.Str, w) {
				return w
			}
		}
	case 'a':
		for _, e := range v.Arr {
			if w := usesWord(e); w != "" {
				return w
			}
		}
	case 'o':
		for _, k := range v.Keys {
			if w := usesWord(v.Obj[k]); w != "" {
				return w
			}
		}
	}
	return ""
}

// reachedIns are the connections into a node from nodes a trigger leads
// to, on all its inputs.
func reachedIns(x *n8nNode) []n8nEdge {
	var out []n8nEdge
	for _, in := range x.ins {
		for _, e := range in {
			if e.node.reached {
				out = append(out, e)
			}
		}
	}
	return out
}

// ancestors are the nodes the connections come from and every node
// before them.
func ancestors(conns []n8nEdge) []*n8nNode {
	seen := map[*n8nNode]bool{}
	var out []*n8nNode
	var up func(*n8nNode)
	up = func(x *n8nNode) {
		if seen[x] {
			return
		}
		seen[x] = true
		out = append(out, x)
		for _, e := range reachedIns(x) {
			up(e.node)
		}
	}
	for _, e := range conns {
		up(e.node)
	}
	return out
}

// runOrder orders the connections into node as n8n runs it for them: it
// runs the nodes on its execution stack from the front; a node that has
// run puts the nodes connected to it at the front (execution order v1:
// the highest in the editor, then the leftmost, runs first) or at the back
// (the legacy order). A connection without items leaves its run out,
// which changes the order of no other.
func (n *n8n) runOrder(node *n8nNode, conns []n8nEdge) ([]n8nEdge, string) {
	in := map[*n8nNode]bool{node: true}
	var root *n8nNode
	for _, x := range ancestors(conns) {
		in[x] = true
		if len(reachedIns(x)) == 0 {
			root = x
		}
	}
	v1 := n.Src.Root.Text("settings", "executionOrder") == "v1"
	type run struct {
		node *n8nNode
		via  n8nEdge // the node and output the items come from
	}
	stack := []run{{node: root}}
	var order []n8nEdge
	for len(stack) > 0 && len(order) < len(conns) {
		r := stack[0]
		stack = stack[1:]
		if r.node == node {
			order = append(order, r.via)
			continue
		}
		var next []run
		for out, edges := range r.node.outs {
			for _, e := range edges {
				if in[e.node] {
					next = append(next, run{e.node, n8nEdge{r.node, out}})
				}
			}
		}
		if !v1 {
			stack = append(stack, next...)
			continue
		}
		pos := func(r run) (float64, float64) { return position(r.node) }
		jsSort(next, func(a, b run) int {
			ax, ay := pos(a)
			bx, by := pos(b)
			switch {
			case ay < by:
				return 1
			case ay > by:
				return -1
			case ax > bx:
				return -1
			}
			return 0
		})
		for _, x := range next {
			stack = append([]run{x}, stack...)
		}
	}
	if len(order) != len(conns) {
		return nil, "the order of its runs is not known"
	}
	return order, ""
}

// position is where a node is in n8n's editor.
func position(x *n8nNode) (float64, float64) {
	p := x.j.Get("position")
	if p == nil || p.Kind != 'a' || len(p.Arr) < 2 {
		return 0, 0
	}
	at := func(v *importer.JV) float64 {
		f, _ := strconv.ParseFloat(v.Num, 64)
		return f
	}
	return at(p.Arr[0]), at(p.Arr[1])
}

// jsSort sorts a short list as V8's Array.prototype.sort does (a run
// found from the front, reversed when it descends, then binary insertion
// for the rest), which n8n's comparison of positions, inconsistent where
// the second is further left, depends on.
func jsSort[T any](a []T, cmp func(x, y T) int) {
	if len(a) < 2 {
		return
	}
	if len(a) >= 64 {
		sort.SliceStable(a, func(i, j int) bool { return cmp(a[i], a[j]) < 0 })
		return
	}
	run := 2
	desc := cmp(a[1], a[0]) < 0
	for i := 2; i < len(a); i++ {
		o := cmp(a[i], a[i-1])
		if desc && o >= 0 || !desc && o < 0 {
			break
		}
		run++
	}
	if desc {
		for i, j := 0, run-1; i < j; i, j = i+1, j-1 {
			a[i], a[j] = a[j], a[i]
		}
	}
	for start := run; start < len(a); start++ {
		pivot := a[start]
		left, right := 0, start
		for left < right {
			mid := left + (right-left)/2
			if cmp(pivot, a[mid]) < 0 {
				right = mid
			} else {
				left = mid + 1
			}
		}
		copy(a[left+1:start+1], a[left:start])
		a[left] = pivot
	}
}
