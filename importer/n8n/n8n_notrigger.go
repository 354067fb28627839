package n8n

import (
	"fmt"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// A workflow without a trigger node runs only from n8n's editor, for the
// node the user runs: n8n (Workflow.getStartNode with that destination)
// starts at the highest node above it, the node without an input on its
// way, gives it one empty item, as a Manual Trigger does
// (WorkflowExecute.run's [{json: {}}]), and runs the nodes from there to
// the node run. When the workflow has one node without an input, every
// run starts there: the flow is the workflow with a Manual Trigger before
// that node, run by hand, which runs every node from it (n8n's run of the
// last node of each branch gives each node the same items). With several,
// which one starts depends on the node run, which a flow does not say.

// noTriggerStart is the Manual Trigger the workflow's one start takes its
// item from, added to the nodes; nil (with the reason as an error) when
// the workflow has no one start and one end.
func (n *n8n) noTriggerStart(root *importer.JV) *n8nNode {
	where := importer.Where{What: "workflow", Name: n.workflow}
	var starts []string
	for _, node := range n.nodes {
		if node.disabled || node.sub {
			continue
		}
		if len(mainEdges(node.ins)) == 0 {
			starts = append(starts, node.name)
		}
	}
	const why = "n8n runs a workflow without a trigger only from its editor, for the node run: from the node without an input above it, given one empty item, to the node run"
	switch {
	case len(starts) == 1:
	case len(starts) == 0:
		n.Stop(where, root.Get("nodes"), "No trigger",
			"the workflow has no trigger node and no node without an input to start at; flowctl import converts workflows that start with a Manual Trigger, a Schedule Trigger or Cron node, a Webhook, a Chat or Form Trigger or an Execute Workflow Trigger.")
		return nil
	default:
		n.Stop(where, root.Get("nodes"), "No trigger",
			fmt.Sprintf("%s; this one has %d nodes without an input (%s), so where a run starts depends on the node run: add a Manual Trigger before the one it starts at, and leave out the nodes it does not run.", why, len(starts), quoteNames(starts)))
		return nil
	}
	first := n.byName[starts[0]]
	name := "When clicking ‘Execute workflow’" // the name n8n's editor gives a Manual Trigger
	for i := 2; n.byName[name] != nil; i++ {
		name = fmt.Sprintf("When clicking ‘Execute workflow’ %d", i)
	}
	j := &importer.JV{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: root.Get("nodes").Ptr, Rng: first.j.Rng}
	trigger := &n8nNode{j: j, name: name, typ: "manualTrigger", fullType: n8nPrefix + "manualTrigger", version: 1,
		params: &importer.JV{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: j.Ptr, Rng: j.Rng}}
	trigger.where = importer.Where{At: first.j, What: "node", Name: name, Typ: trigger.fullType}
	trigger.outs = [][]n8nEdge{{{first, 0}}}
	for len(first.ins) < 1 {
		first.ins = append(first.ins, nil)
	}
	first.ins[0] = append(first.ins[0], n8nEdge{trigger, 0})
	n.byName[name] = trigger
	n.nodes = append(n.nodes, trigger)
	n.Warn(where, root.Get("nodes"), "Workflow without a trigger",
		fmt.Sprintf("%s; the flow is run by hand, as though a Manual Trigger were before %q, its one node without an input, and runs every node from there.", why, first.name))
	return trigger
}

// mainEdges are the main connections of a node's inputs or outputs.
func mainEdges(ends [][]n8nEdge) []n8nEdge {
	var out []n8nEdge
	for _, e := range ends {
		out = append(out, e...)
	}
	return out
}

// quoteNames are the names quoted, in order, for a message.
func quoteNames(names []string) string {
	sort.Strings(names)
	q := make([]string, len(names))
	for i, s := range names {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// intervalNode is n8n's Interval trigger: every interval (seconds,
// minutes or hours; from its activation, JavaScript's setInterval) one
// empty item. A schedule runs the flow as often; run by hand, the flow
// gives the item at once, as n8n's manual run does.
func (n *n8n) intervalNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	v := p.Get("interval")
	if v != nil && v.Kind != 'n' {
		n.Problem(node.where, v, "Unsupported interval", "the interval is not a number (an expression, which n8n reads when the workflow is activated).")
		return nil
	}
	every := p.Number(1, "interval")
	unit := map[string]float64{"seconds": 1, "minutes": 60, "hours": 3600}[p.Text("unit")]
	if p.Get("unit") == nil {
		unit = 1 // n8n's default
	}
	secs := every * unit
	switch {
	case unit == 0 || every <= 0 || secs*1000 > 2147483647:
		n.Problem(node.where, p, "Unsupported interval",
			fmt.Sprintf("n8n refuses an interval that is not a positive number of seconds, minutes or hours up to 24.8 days; not %v %s.", every, p.Text("unit")))
		return nil
	case secs != float64(int64(secs)):
		n.Problem(node.where, p, "Unsupported interval",
			fmt.Sprintf("a schedule runs every whole number of seconds; not %v s.", secs))
		return nil
	}
	b := hclwrite.NewBlock("schedule", []string{n.Name("schedule", node.name, "schedule")})
	b.Body().SetAttributeValue("cron", cty.StringVal(fmt.Sprintf("@every %ds", int64(secs))))
	n.File.Schedules = append(n.File.Schedules, importer.Decl{Comment: []string{n.nodeComment(node) + ": every " + fmt.Sprint(int64(secs)) + "s from when flowctl serve starts, as n8n's from activation"}, Block: b})
	return []n8nItems{{e: importer.Code("[{}]")}}
}
