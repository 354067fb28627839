package n8n

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/n8n/apps"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// n8n workflows ({name, nodes: [...], connections: {...}}). n8n passes
// lists of items between nodes, and most nodes run once per item: each
// node becomes a step (or, for triggers, the flow's start) whose items —
// a list of the items' json objects — the nodes connected to it take. The
// outputs are the items of the nodes without outgoing connections.

// n8nNode is a node of the workflow.
type n8nNode struct {
	j        *importer.JV
	name     string
	typ      string // without the n8n-nodes-base. prefix
	fullType string
	version  float64
	params   *importer.JV
	disabled bool
	step     string      // the name of its step
	ins      [][]n8nEdge // the connections into each input
	outs     [][]n8nEdge // the connections out of each output
	items    []n8nItems  // the items of each output, once converted
	reached  bool        // a trigger leads to it
	conv     bool        // converted
	where    importer.Where
	// ai are the sub-nodes on each AI input (ai_languageModel, ai_tool…),
	// which run inside this node; sub says this node is one of them.
	ai   map[string][]*n8nNode
	sub  bool
	lost bool // a sub-node whose root is not converted (reported once)
	// loop numbers the loop of connections the node is on (0: none), and
	// loopMsg is why it stands for itself (markLoops).
	loop    int
	loopMsg string
	gap     bool // not converted: a step that fails stands for it
}

// n8nEdge is one end of a connection: the node at the other end and the
// index of its input or output.
type n8nEdge struct {
	node  *n8nNode
	index int
}

// n8nItems are the items of an output of a node: an HCL expression of
// the list of their json objects.
type n8nItems struct {
	e importer.Expr
	// deps are steps a node taking these items must wait for, though e
	// does not refer to them (a Wait node's sleep).
	deps []string
	// from are the steps that make the items (what a node that must run
	// after them waits for).
	from []string
	// owner is the node whose output these are, prev the items of its
	// input. They pair with prev's (n8n's pairedItem, which $('Node').item
	// follows): item i with item i, or with item paired[i] when paired is
	// set (an HCL list of indexes into prev); unpaired when the flow does
	// not know how.
	owner    *n8nNode
	prev     *n8nItems
	paired   importer.Expr
	unpaired bool
	// pairsAll: each item pairs with all of prev's (n8n's Aggregate),
	// which n8n follows when they all lead to one item.
	pairsAll bool
	// merged: the items come from several inputs (a Merge), each paired
	// with the items of one or more of them (n8n's pairedItem with input).
	merged *mergePairs
	// binary is the items' files (n8n's binary data), when the flow
	// carries them (n8n_binary.go).
	binary *n8nBinary
}

type n8n struct {
	*importer.Conv
	nodes    []*n8nNode
	byName   map[string]*n8nNode
	workflow string
	code     bool // the n8n_code block is used
	python   bool // the n8n_python block is used
	// creds are the secrets of each credential (by type and id), made
	// once for all the nodes that use it.
	creds map[string][]string
	// providers are the provider blocks by credential and URL, and
	// credSecrets the secrets of credentials' keys.
	providers   map[string]string
	credSecrets map[string]string
	chatTrigger *n8nNode       // the Chat Trigger that starts the flow, if any
	chatInputs  []string       // the Chat Trigger's inputs: the message and the session
	webhooks    []*n8nWebhook  // the Webhook nodes that start the flow
	responses   []*n8nResponse // the Respond to Webhook nodes' answers
	standIns    int            // the errors of tools that stand-in blocks stand for
	// callable is the name of the flow being converted when other flows
	// run it (its part of the workflow starts at an Execute Workflow
	// Trigger); subflow the flow the workflow's Execute Workflow Trigger
	// part is written as beside this one, and elsewhere the nodes only
	// that part reaches.
	callable, subflow string
	elsewhere         map[string]bool
	loops             int // the loops of connections found (markLoops)
	// batched are the app nodes that take a loop's batch at once, and
	// the loop's name.
	batched map[*n8nNode]string
	// splitterBlock is the block of langchain's character text
	// splitters, once declared (n8n_ai_splitters.go).
	splitterBlock string
}

// n8nPrefix is the package of n8n's core nodes.
const n8nPrefix = "n8n-nodes-base."

func convertN8N(c *importer.Conv) {
	root := c.Src.Root
	name := root.Text("name")
	c.Reserve("flow", apps.Names()...) // the registry's flows, written beside
	c.File.Name = c.FlowName(name, "imported_workflow")
	c.File.Header = []string{fmt.Sprintf("Imported by flowctl import from the n8n workflow %q (%s).", name, filepath.Base(c.Src.Name))}
	if d := root.Text("meta", "description"); d != "" {
		c.File.Description = d
	} else if name != "" {
		c.File.Description = "The n8n workflow " + name
	}
	n := &n8n{Conv: c, byName: map[string]*n8nNode{}, workflow: name, creds: map[string][]string{},
		providers: map[string]string{}, credSecrets: map[string]string{}, batched: map[*n8nNode]string{}}
	if !n.readNodes(root) {
		return
	}
	n.readConnections(root)
	if c.Fatal {
		return
	}
	n.unrollLoops()
	triggers := n.findTriggers()
	if len(triggers) == 0 {
		start := n.noTriggerStart(root)
		if start == nil {
			return
		}
		triggers = []*n8nNode{start}
	}
	n.convertFrom(n.splitSubworkflow(root, triggers))
}

// convertFrom converts the nodes the triggers lead to into n.File.
func (n *n8n) convertFrom(triggers []*n8nNode) {
	order, ok := n.sort(triggers)
	if !ok {
		return
	}
	for _, node := range order {
		n.convertNode(node)
	}
	n.writeTriggers(order)
	n.outputs(order)
	n.callOutput(n.Src.Root)
	if n.code {
		n.File.BlockFiles = append(n.File.BlockFiles, n8nCodeBlockFile())
	}
	if n.python {
		n.File.BlockFiles = append(n.File.BlockFiles, n8nPythonBlockFile())
	}
}

func (n *n8n) readNodes(root *importer.JV) bool {
	nodes := root.Get("nodes")
	if nodes == nil || nodes.Kind != 'a' {
		n.Stop(importer.Where{What: "workflow"}, root, "No nodes", "an n8n workflow holds a nodes array.")
		return false
	}
	for _, j := range nodes.Arr {
		node := &n8nNode{j: j, name: j.Text("name"), fullType: j.Text("type"), params: j.Get("parameters"),
			version: j.Number(1, "typeVersion"), disabled: j.Boolean(false, "disabled")}
		node.typ = strings.TrimPrefix(node.fullType, n8nPrefix)
		node.where = importer.Where{At: j, What: "node", Name: node.name, Typ: node.fullType}
		if node.params == nil {
			node.params = &importer.JV{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: j.Ptr + "/parameters", Rng: j.Rng}
		}
		if node.typ == "stickyNote" {
			continue
		}
		if n.duplicate(node) {
			continue
		}
		if node.name == "" || n.byName[node.name] != nil {
			n.Stop(node.where, j.Get("name"), "Invalid node name", "each node needs a name of its own: connections name the nodes.")
			continue
		}
		n.byName[node.name] = node
		n.nodes = append(n.nodes, node)
	}
	return !n.Fatal
}

func (n *n8n) readConnections(root *importer.JV) {
	conns := root.Get("connections")
	if conns == nil {
		return
	}
	for _, src := range conns.Keys {
		from := n.byName[src]
		if from == nil {
			n.Warn(importer.Where{What: "connection", Name: src}, conns.Get(src), "Connection from an unknown node", "no node has this name; the connection is left out.")
			continue
		}
		for _, kind := range conns.Obj[src].Keys {
			if kind != "main" {
				n.aiConnections(from, kind, conns.Obj[src].Get(kind))
				continue
			}
			for out, list := range conns.Obj[src].Obj[kind].Arr {
				for _, c := range list.Arr {
					to := n.byName[c.Text("node")]
					if to == nil {
						n.Warn(from.where, c, "Connection to an unknown node", fmt.Sprintf("no node is named %q; the connection is left out.", c.Text("node")))
						continue
					}
					in := int(c.Number(0, "index"))
					for len(from.outs) <= out {
						from.outs = append(from.outs, nil)
					}
					for len(to.ins) <= in {
						to.ins = append(to.ins, nil)
					}
					from.outs[out] = append(from.outs[out], n8nEdge{to, in})
					to.ins[in] = append(to.ins[in], n8nEdge{from, out})
				}
			}
		}
	}
}

// isTrigger reports whether a node starts a workflow.
func isTrigger(node *n8nNode) bool {
	t := strings.ToLower(node.typ)
	return strings.HasSuffix(t, "trigger") || t == "webhook" || t == "start" || t == "cron" || strings.HasSuffix(t, "trigger.node") ||
		t == "interval" || t == "emailreadimap" // n8n's trigger nodes not named so
}

func (n *n8n) findTriggers() []*n8nNode {
	var out []*n8nNode
	for _, node := range n.nodes {
		if isTrigger(node) && !node.disabled {
			out = append(out, node)
		}
	}
	return out
}

// sort orders the nodes a trigger leads to so that each comes after the
// nodes it takes items from (in the workflow's order where that is free),
// and reports nodes that never run.
func (n *n8n) sort(triggers []*n8nNode) ([]*n8nNode, bool) {
	var mark func(*n8nNode)
	mark = func(node *n8nNode) {
		if node.reached {
			return
		}
		node.reached = true
		for _, out := range node.outs {
			for _, e := range out {
				mark(e.node)
			}
		}
	}
	for _, t := range triggers {
		mark(t)
	}
	for _, node := range n.nodes {
		if node.reached {
			markSubNodes(node)
		}
	}
	for _, node := range n.nodes {
		if !node.reached && !node.sub && !n.elsewhere[node.name] {
			n.Warn(node.where, node.j, "Node never runs", "no trigger leads to this node, so n8n never runs it; it is left out.")
		}
	}
	placed := map[*n8nNode]bool{}
	var order []*n8nNode
	for {
		progress := false
		for _, node := range n.nodes {
			if !node.reached || placed[node] {
				continue
			}
			ready := true
			for _, in := range node.ins {
				for _, e := range in {
					if e.node.reached && !placed[e.node] && (node.loop == 0 || e.node.loop != node.loop) {
						ready = false
					}
				}
			}
			if ready {
				placed[node] = true
				order = append(order, node)
				progress = true
				break
			}
		}
		if !progress && !n.markLoops(placed) {
			break
		}
	}
	for _, node := range n.nodes {
		if node.reached && !placed[node] {
			n.Stop(node.where, node.j, "Loop in the workflow",
				"the node is on a loop of connections; flowctl import converts workflows without loops (a flow is a DAG).")
			return nil, false
		}
	}
	return order, true
}

// inputItems are the items that arrive at a node's input.
func (n *n8n) inputItems(node *n8nNode, index int) (n8nItems, bool) {
	if index >= len(node.ins) {
		return n8nItems{e: importer.Code("[]")}, true
	}
	var conns []n8nEdge
	for _, e := range node.ins[index] {
		if e.node.reached {
			conns = append(conns, e)
		}
	}
	switch len(conns) {
	case 0:
		return n8nItems{e: importer.Code("[]")}, true
	case 1:
		p := conns[0]
		if p.index < len(p.node.items) {
			return p.node.items[p.index], true
		}
		return n8nItems{e: importer.Code("[]")}, true
	}
	return n.fanIn(node, index, conns)
}

// convertNode writes the steps of a node and sets its items.
func (n *n8n) convertNode(node *n8nNode) {
	if node.typ == loopDoneType {
		// It takes every connection back into the loop (loopDone).
		node.items, node.conv = n.loopDone(node, n8nItems{}), true
		node.items[0].owner = node
		return
	}
	node.step = n.Name("step", node.name, "node")
	if node.loop != 0 {
		n.gapMessage(node, node.loopMsg)
		return
	}
	in, ok := n.inputItems(node, 0)
	if !ok {
		n.gap(node, "Several connections into one input")
		return
	}
	if node.disabled {
		n.Warn(node.where, node.j.Get("disabled"), "Disabled node", "n8n passes the items of a disabled node through unchanged; so does the flow (no step).")
		node.items = []n8nItems{pairedWith(in.e, in, nil)}
		node.items[0].deps, node.items[0].from = in.deps, in.from
		node.items[0].owner = node
		node.conv = true
		return
	}
	conv := n8nNodeTypes[node.typ]
	if ai := strings.TrimPrefix(node.fullType, langchainPrefix); ai != node.fullType {
		conv = n8nAINodeTypes[ai]
	} else if !strings.HasPrefix(node.fullType, n8nPrefix) {
		conv = nil
	}
	if conv == nil {
		msg := n.Problem(node.where, node.j.Get("type"), "Unsupported node",
			fmt.Sprintf("flowctl import converts n8n's core nodes %s and AI nodes (%s); not %s.%s", supportedN8N(), aiNodeNames(), node.fullType, unsupportedWhy(node)))
		n.gapMessage(node, msg)
		return
	}
	if msg := n.settings(node); msg != "" {
		n.gapMessage(node, msg)
		return
	}
	if !n.checkExpressions(node, node.params) || !n.checkSubExpressions(node) {
		n.gap(node, "Invalid expression")
		return
	}
	if node.j.Boolean(false, "executeOnce") {
		// The first item only: it keeps its index.
		in.e = importer.Call("slice", in.e, importer.Code("0"), importer.Call("min", importer.Code("1"), importer.Call("length", in.e)))
		if in.binary != nil {
			in.binary = in.binary.of(importer.Call("slice", in.binary.e, importer.Code("0"), importer.Call("min", importer.Code("1"), importer.Call("length", in.binary.e))))
		}
	}
	// A tool's error leaves a stand-in for the tool, not for its root.
	errs, steps, locals, inputs, schedules := n.errorCount()-n.standIns, len(n.File.Steps), len(n.File.Locals), len(n.File.Inputs), len(n.File.Schedules)
	beside := len(n.File.Beside)
	ai := n.aiMark()
	items := conv(n, node, in)
	if n.errorCount()-n.standIns > errs || items == nil {
		// What the node wrote goes: a step that fails with the problem
		// stands for it (--partial).
		n.File.Steps, n.File.Locals = n.File.Steps[:steps], n.File.Locals[:locals]
		n.File.Inputs, n.File.Schedules = n.File.Inputs[:inputs], n.File.Schedules[:schedules]
		n.File.Beside = n.File.Beside[:beside] // a registry flow no step uses
		n.aiRollback(ai, node)
		n.gap(node, "")
		return
	}
	if len(n.File.Steps) > steps {
		for i := range items {
			if items[i].from == nil {
				items[i].from = []string{node.step}
			}
		}
	}
	for i := range items {
		if items[i].owner == nil {
			items[i].owner = node
		}
		if items[i].prev == nil && !items[i].unpaired && len(node.ins) > 0 {
			// A node that says nothing of its items' pairs: not known.
			p := in
			items[i].prev, items[i].unpaired = &p, true
		}
	}
	passFiles(node, in, items)
	node.items = items
	node.conv = true
	n.alwaysOutputData(node)
}

func (n *n8n) errorCount() int {
	c := 0
	for _, d := range n.Diags {
		if d.Severity == hcl.DiagError {
			c++
		}
	}
	return c
}

// settings checks the node settings flowctl import converts: retries,
// Always Output Data (n8n_settings.go), On Error where the node's
// converter reads it (n8nOnError); it refuses the others, and returns the
// message.
func (n *n8n) settings(node *n8nNode) string {
	if oe, at := onErrorSetting(node); oe != "" && !n8nOnError[node.typ] {
		return n.Problem(node.where, at, "Unsupported setting",
			fmt.Sprintf("On Error %s (error items, or going on) is converted on HTTP Request; not on %s.", oe, node.typ))
	}
	return ""
}

// retry sets a step's retry from the node's Retry On Fail setting: n8n
// waits the same time between tries, so the backoff does not grow.
func (n *n8n) retry(node *n8nNode, body *hclwrite.Body) {
	if !node.j.Boolean(false, "retryOnFail") {
		return
	}
	tries := int(node.j.Number(3, "maxTries"))
	wait := int(node.j.Number(1000, "waitBetweenTries"))
	rb := body.AppendNewBlock("retry", nil).Body()
	rb.SetAttributeValue("attempts", cty.NumberIntVal(int64(max(tries, 1))))
	if wait > 0 {
		d := importer.Duration(int64(wait))
		rb.SetAttributeValue("backoff", cty.StringVal(d))
		rb.SetAttributeValue("max_backoff", cty.StringVal(d))
	}
}

// gap stands for a node that cannot be converted, after the diagnostic
// (the last error, or the last one with summary).
func (n *n8n) gap(node *n8nNode, summary string) {
	msg := "flowctl import could not convert this node"
	for i := len(n.Diags) - 1; i >= 0; i-- {
		d := n.Diags[i]
		if d.Severity == hcl.DiagError && (summary == "" || d.Summary == summary) {
			msg = d.Summary + ": " + d.Detail
			break
		}
	}
	n.gapMessage(node, msg)
}

func (n *n8n) gapMessage(node *n8nNode, msg string) {
	n.subNodesLost(node)
	n.GapStep(node.step, n.nodeComment(node), msg, n.gapInputs(node))
	node.conv, node.gap = true, true
	node.items = make([]n8nItems, max(len(node.outs), 1))
	for i := range node.items {
		// Not converted: how its items pair with its input's is not known.
		node.items[i] = n8nItems{e: importer.Ref("step", node.step, "value"), owner: node, unpaired: true}
	}
}

// gapInputs are the items that come to the inputs of a node that is not
// converted (a list for each input; the one list when it has one input),
// or nil when none come.
func (n *n8n) gapInputs(node *n8nNode) importer.Expr {
	var lists []importer.Expr
	some := false
	for _, edges := range node.ins {
		var items importer.Expr = importer.Code("[]")
		var from []importer.Expr
		for _, e := range edges {
			if e.node.reached && e.node.conv && e.index < len(e.node.items) && e.node.items[e.index].e != nil {
				from = append(from, e.node.items[e.index].e)
			}
		}
		switch len(from) {
		case 0:
		case 1:
			items, some = from[0], true
		default:
			items, some = importer.Call("concat", from...), true
		}
		lists = append(lists, items)
	}
	switch {
	case !some:
		return nil
	case len(lists) == 1:
		return lists[0]
	}
	return importer.Tuple(lists)
}

// tooOld reports a node older than version v of it, the one that is
// converted (name is what n8n calls the node), as a problem, and whether
// it is.
func (n *n8n) tooOld(node *n8nNode, name string, v int) bool {
	if node.version >= float64(v) {
		return false
	}
	n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version", fmt.Sprintf("%s v%d is converted; this node is an older version.", name, v))
	return true
}

// nodeComment is the comment above a node's step.
func (n *n8n) nodeComment(node *n8nNode) string {
	v := strconv.FormatFloat(node.version, 'f', -1, 64)
	return fmt.Sprintf("n8n node %q (%s v%s)", node.name, node.typ, v)
}

// outputs are the items of each node without outgoing connections.
func (n *n8n) outputs(order []*n8nNode) {
	for _, node := range order {
		if isTrigger(node) || node.items == nil || node.typ == "stopAndError" {
			continue
		}
		last := true
		for _, out := range node.outs {
			if len(out) > 0 {
				last = false
			}
		}
		if !last {
			continue
		}
		b := hclwrite.NewBlock("output", []string{n.Name("output", node.name, "node")})
		b.Body().SetAttributeRaw("value", importer.Clone(node.items[0].e))
		b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The items of n8n node %q, as a list of their json", node.name)))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: b})
	}
}
