package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Sub-workflows. n8n's Execute Workflow node (and the Workflow tool) runs
// another workflow — named by its id in n8n's database, or given inline
// as JSON — starting at its Execute Workflow Trigger with the node's
// items, and returns the items of the node that ran last. A workflow
// others run becomes a flow with the input "items" and the output
// "items" (the items of the one node its trigger's part ends in); the
// node becomes a step `use = "flow.NAME"`. A workflow that starts from
// other triggers as well (often a workflow that runs itself, by
// $workflow.id) has its trigger's part written as a flow of its own
// beside it, NAME_subworkflow.

// subworkflowSuffix names the flow of a workflow's Execute Workflow
// Trigger part when other triggers start the workflow too.
const subworkflowSuffix = "subworkflow"

// selfID is the expression of the running workflow's own id.
var selfID = regexp.MustCompile(`^=\s*\{\{\s*\$workflow\.id\s*\}\}\s*$`)

// isCallTrigger reports an Execute Workflow Trigger.
func isCallTrigger(typ string) bool { return typ == "executeWorkflowTrigger" }

// splitSubworkflow converts the part of the workflow its Execute
// Workflow Triggers start as a flow of its own, when other triggers
// start the workflow as well, and returns the triggers of the main flow.
func (n *n8n) splitSubworkflow(root *importer.JV, triggers []*n8nNode) []*n8nNode {
	var calls, others []*n8nNode
	for _, t := range triggers {
		if isCallTrigger(t.typ) {
			calls = append(calls, t)
		} else {
			others = append(others, t)
		}
	}
	if len(calls) == 0 {
		return triggers
	}
	if len(others) == 0 {
		n.callable = n.File.Name
		return triggers
	}
	name, end := n.SubFlow(subworkflowSuffix)
	n.subflow = name
	sub := &n8n{Conv: n.Conv, byName: map[string]*n8nNode{}, workflow: n.workflow, creds: map[string][]string{},
		providers: map[string]string{}, credSecrets: map[string]string{}, callable: name, subflow: name}
	// The nodes are read again, each conversion its own; what reading
	// says was said the first time.
	diags := len(n.Diags)
	sub.readNodes(root)
	sub.readConnections(root)
	sub.unrollLoops()
	n.Diags = n.Diags[:diags]
	// The main flow's conversion says which nodes never run.
	sub.elsewhere = map[string]bool{}
	for _, node := range sub.nodes {
		sub.elsewhere[node.name] = true
	}
	n.File.Header = []string{fmt.Sprintf("Imported by flowctl import from the n8n workflow %q (%s): the part its Execute Workflow Trigger starts, which other flows run as flow.%s.", n.workflow, n.Src.Name, name)}
	n.File.Description = fmt.Sprintf("The n8n workflow %s, run by another workflow", n.workflow)
	var subTriggers []*n8nNode
	for _, t := range calls {
		subTriggers = append(subTriggers, sub.byName[t.name])
	}
	sub.convertFrom(subTriggers)
	end(!n.Fatal)
	// The main flow leaves out the nodes only that part reaches.
	n.elsewhere = map[string]bool{}
	for _, node := range sub.nodes {
		if node.reached {
			n.elsewhere[node.name] = true
		}
	}
	return others
}

// callOutput declares the output "items" of a flow other flows run: the
// items of the node its trigger's part ends in, which n8n returns. When
// the part ends in several nodes (branches), n8n returns the items of the
// one that ran last: the flow gives those of the one end node that has
// items, and fails when several have (which ran last, only n8n's run
// tells).
func (n *n8n) callOutput(root *importer.JV) {
	if n.callable == "" {
		return
	}
	ends, why := subworkflowEnds(root)
	if why != "" {
		return // the nodes that run it say why (calledFlow)
	}
	var lists []importer.Expr
	for _, end := range ends {
		node := n.byName[end]
		if node == nil || len(node.items) == 0 || node.items[0].e == nil {
			return
		}
		lists = append(lists, node.items[0].e)
	}
	value := lists[0]
	desc := fmt.Sprintf("The items of n8n node %q, the last node of the workflow, which n8n returns to the workflow that runs it", ends[0])
	if len(lists) > 1 {
		n.code = true
		step := n.Name("step", "last node", "last_node")
		b, body := importer.NewStep(step, "n8n_code")
		body.SetAttributeRaw("when", importer.Clone(importer.Join("length([for l in ", importer.Tuple(lists), " : l if length(l) > 0]) > 1")))
		body.SetAttributeValue("mode", cty.StringVal("stopAndError"))
		msg := fmt.Sprintf("Several of the nodes the workflow ends in (%s) gave items: n8n returns the items of the one that ran last, which the flow cannot tell.", quoteList(ends))
		body.SetAttributeRaw("params", importer.Clone(importer.Object([]importer.Member{{Name: "message", Value: importer.Str(msg)}})))
		body.SetAttributeValue("cache", cty.False)
		n.Step("The workflow ends in several nodes: at most one may give items", b)
		value = importer.Call("concat", lists...)
		desc = fmt.Sprintf("The items of the one of n8n nodes %s that gives items (the last node to run), which n8n returns to the workflow that runs it", quoteList(ends))
	}
	b := hclwrite.NewBlock("output", []string{"items"})
	b.Body().SetAttributeRaw("value", importer.Clone(value))
	b.Body().SetAttributeValue("description", cty.StringVal(desc))
	n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: b})
}

// subworkflowEnds are the nodes the part of a workflow that its Execute
// Workflow Triggers start ends in (nodes without connections out of
// them, other than a Stop and Error, which fails the run), or why it has
// none.
func subworkflowEnds(root *importer.JV) ([]string, string) {
	types := map[string]string{}
	var starts []string
	for _, j := range root.Items("nodes") {
		t := strings.TrimPrefix(j.Text("type"), n8nPrefix)
		types[j.Text("name")] = t
		if isCallTrigger(t) && !j.Boolean(false, "disabled") {
			starts = append(starts, j.Text("name"))
		}
	}
	if len(starts) == 0 {
		return nil, "it has no Execute Workflow Trigger, which is where n8n starts a workflow another runs"
	}
	conns := root.Get("connections")
	next := func(name string) []string {
		var out []string
		if conns == nil || conns.Get(name) == nil {
			return nil
		}
		for _, list := range conns.Get(name).Items("main") {
			for _, c := range list.Arr {
				if to := c.Text("node"); types[to] != "" && types[to] != "stickyNote" {
					out = append(out, to)
				}
			}
		}
		return out
	}
	seen := map[string]bool{}
	var ends []string
	for len(starts) > 0 {
		name := starts[0]
		starts = starts[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		outs := next(name)
		if len(outs) == 0 && types[name] != "stopAndError" {
			ends = append(ends, name)
		}
		starts = append(starts, outs...)
	}
	if len(ends) == 0 {
		return nil, "no node of it ends the run (a loop, or only Stop and Error)"
	}
	return ends, ""
}

func quoteList(names []string) string {
	var q []string
	for _, s := range names {
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ", ")
}

// calledFlow is the flow a node that runs a workflow runs: the workflow
// it names, by its id or as JSON in its parameters.
func (n *n8n) calledFlow(node *n8nNode) (string, bool) {
	p := node.params
	switch src := p.Text("source"); src {
	case "", "database":
	case "parameter":
		return n.inlineFlow(node, p.Get("workflowJson"))
	default:
		what := map[string]string{"localFile": "a file on n8n's machine", "url": "a URL, read when the node runs"}[src]
		if what == "" {
			what = fmt.Sprintf("source %q", src)
		}
		n.Problem(node.where, p.Get("source"), "Unsupported sub-workflow",
			fmt.Sprintf("the node runs the workflow in %s; import that workflow with this one and name it by its id (source Database), so that the node runs its flow.", what))
		return "", false
	}
	at := p.Get("workflowId")
	if at != nil && at.Kind == 'o' {
		at = at.Get("value")
	}
	id := importer.IDText(at)
	if at == nil {
		at = node.j
	}
	own := importer.IDText(n.Src.Root.Get("id"))
	switch {
	case selfID.MatchString(id) || id != "" && id == own:
		if n.callable != "" {
			n.Problem(node.where, at, "Sub-workflow runs itself",
				fmt.Sprintf("the node is part of what the workflow's Execute Workflow Trigger starts, and runs that again: a flow cannot run itself (flow.%s).", n.callable))
			return "", false
		}
		if n.subflow == "" {
			_, why := subworkflowEnds(n.Src.Root)
			n.Problem(node.where, at, "Sub-workflow cannot be run", fmt.Sprintf("the node runs its own workflow, and %s.", why))
			return "", false
		}
		if _, why := subworkflowEnds(n.Src.Root); why != "" {
			n.Problem(node.where, at, "Sub-workflow cannot be run", fmt.Sprintf("the node runs its own workflow, and %s.", why))
			return "", false
		}
		return n.subflow, true
	case id == "":
		n.Problem(node.where, at, "No sub-workflow", "the node names no workflow to run; n8n fails it too.")
		return "", false
	case strings.HasPrefix(id, "="):
		n.Problem(node.where, at, "Unsupported expression", "the workflow to run is converted when its id is written out (or is $workflow.id), not computed.")
		return "", false
	}
	called := n.Batch[id]
	if called == nil {
		name := p.Text("workflowId", "cachedResultName")
		if name != "" {
			name = fmt.Sprintf(" (%q)", name)
		}
		n.Problem(node.where, at, "Sub-workflow not imported",
			fmt.Sprintf("the node runs the n8n workflow with id %q%s, which none of the files imported holds: import that workflow's file together with this one (flowctl import THIS.json CALLED.json), and the node runs its flow.", id, name))
		return "", false
	}
	if _, why := subworkflowEnds(called.Root); why != "" {
		n.Problem(node.where, at, "Sub-workflow cannot be run", fmt.Sprintf("the node runs the workflow %s (%s), and %s.", id, called.File, why))
		return "", false
	}
	if otherTriggers(called.Root) {
		return called.Flow + "_" + subworkflowSuffix, true
	}
	return called.Flow, true
}

// otherTriggers reports a workflow that triggers other than its Execute
// Workflow Triggers start as well.
func otherTriggers(root *importer.JV) bool {
	for _, j := range root.Items("nodes") {
		node := &n8nNode{typ: strings.TrimPrefix(j.Text("type"), n8nPrefix)}
		if isTrigger(node) && !isCallTrigger(node.typ) && !j.Boolean(false, "disabled") {
			return true
		}
	}
	return false
}

// inlineFlow converts a workflow given as JSON in a node's parameters
// into a flow of its own beside the caller's.
func (n *n8n) inlineFlow(node *n8nNode, at *importer.JV) (string, bool) {
	if at == nil || at.Kind != 's' || strings.HasPrefix(at.Str, "=") {
		n.Problem(node.where, node.params, "Unsupported sub-workflow", "the workflow to run is converted when its JSON is written out in the node, not computed.")
		return "", false
	}
	src, d := importer.ParseSource(fmt.Sprintf("%s#%s", n.Src.Name, at.Ptr), []byte(at.Str))
	if src == nil || d.HasErrors() || src.Root.Kind != 'o' {
		n.Problem(node.where, at, "Invalid sub-workflow", "the workflow JSON of the node does not read as JSON; n8n fails the node on it too.")
		return "", false
	}
	if _, why := subworkflowEnds(src.Root); why != "" {
		n.Problem(node.where, at, "Sub-workflow cannot be run", fmt.Sprintf("the workflow the node gives as JSON cannot be run as a flow: %s.", why))
		return "", false
	}
	name, end := n.SubFlow(node.name)
	outer, errs := n.Src, n.errorCount()
	n.Src = src
	sub := &n8n{Conv: n.Conv, byName: map[string]*n8nNode{}, workflow: src.Root.Text("name"), creds: map[string][]string{},
		providers: map[string]string{}, credSecrets: map[string]string{}, callable: name}
	n.File.Header = []string{fmt.Sprintf("Imported by flowctl import from the workflow n8n node %q runs, given as JSON in %s.", node.name, outer.Name)}
	n.File.Description = fmt.Sprintf("The workflow n8n node %s runs", node.name)
	fatal := n.Fatal
	if sub.readNodes(src.Root) {
		sub.readConnections(src.Root)
		if !n.Fatal {
			sub.unrollLoops()
			sub.convertFrom(sub.findTriggers())
		}
	}
	ok := !n.Fatal && n.errorCount() == errs
	n.Src, n.Fatal = outer, fatal
	end(ok)
	if !ok {
		n.Problem(node.where, at, "Sub-workflow not converted", "the workflow the node gives as JSON is not converted in full (the errors before this one say why).")
		return "", false
	}
	return name, true
}

// executeWorkflowNode is the Execute Workflow node: a step that runs the
// called flow with the node's items (Run Once with All Items), or one
// instance for each item (Run Once for Each Item); its items are the
// called flow's. Without Wait For Sub-Workflow Completion, n8n goes on
// with the node's own items at once.
func (n *n8n) executeWorkflowNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if v := p.Get("workflowInputs", "value"); v != nil && v.Kind == 'o' && len(v.Keys) > 0 {
		n.Problem(node.where, v, "Unsupported parameter",
			"the values the node maps to the sub-workflow's inputs (Workflow Inputs) are not converted; set them on the items before the node (Edit Fields).")
		return nil
	}
	mode := p.Text("mode")
	if mode != "" && mode != "once" && mode != "each" {
		n.Problem(node.where, p.Get("mode"), "Unsupported parameter", fmt.Sprintf("mode %q is not converted.", mode))
		return nil
	}
	flow, ok := n.calledFlow(node)
	if !ok {
		return nil
	}
	b, body := importer.NewStep(node.step, "flow."+flow)
	if mode == "each" {
		body.SetAttributeRaw("for_each", importer.Clone(in.e))
		body.SetAttributeRaw("items", importer.Clone(importer.Code("[each.value]")))
	} else {
		body.SetAttributeRaw("items", importer.Clone(in.e))
	}
	n.retry(node, body)
	n.dependsOn(body, in)
	wait := p.Boolean(true, "options", "waitForSubWorkflow")
	how := "runs the flow with its items"
	if mode == "each" {
		how = "runs the flow once for each item"
	}
	n.Step(fmt.Sprintf("%s: %s", n.nodeComment(node), how), b)
	if !wait {
		n.Warn(node.where, p.Get("options", "waitForSubWorkflow"), "Sub-workflow waited for",
			fmt.Sprintf("n8n goes on with the node's own items without waiting for the sub-workflow; so do the steps after it, but the run ends when flow.%s has, and fails when it fails.", flow))
		items := pairedWith(in.e, in, nil)
		items.deps, items.from = in.deps, in.from
		return []n8nItems{items}
	}
	if mode == "each" {
		// Each call's items pair with the item it was run for.
		all := importer.Join("flatten(", importer.Ref("step", node.step), "[*].items)")
		paired := importer.Code(fmt.Sprintf("flatten([for i, r in step.%s : [for it in r.items : i]])", node.step))
		return []n8nItems{pairedWith(all, in, paired)}
	}
	return []n8nItems{{e: importer.Ref("step", node.step, "items")}}
}
