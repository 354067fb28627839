package agentflow

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// AgentFlow pipelines ({id, name, user_prompt, nodes: [{id, block_id,
// inputs}], edges: [{from, to}], memory_keys}) with the registry's block
// definitions ({id, name, description, category, execution_type,
// input_schema, output_schema, prompt_template | source_code}), as
// AgentFlow's doer runs them: the nodes in the order of the edges,
// independent ones at once; {{n1.field}} in an input is node n1's output
// field (the value itself when it is the whole string, its str() inside
// text), {{memory.key}} a memory key and {{user.field}} the user's profile.

// afBlock is a block definition of the registry.
type afBlock struct {
	j       *importer.JV
	id      string
	name    string // its flowctl name
	kind    string // execution_type
	trigger bool
	context bool // a python block that reads context: it takes the user and memory
	inputs  []afField
	outputs []afField
	written bool
}

// afField is an input or output of a block, from its JSON Schema.
type afField struct {
	name, flowName string // in AgentFlow; in flowctl
	typ            string // HCL type expression
	required       bool
	def            *importer.JV // the schema's default
	desc           string
}

// afNode is a node of the pipeline.
type afNode struct {
	j     *importer.JV
	id    string
	block *afBlock
	step  string
	refs  map[string]bool // the nodes its inputs refer to
}

type agentflow struct {
	*importer.Conv
	blocks map[string]*afBlock
	nodes  map[string]*afNode
	order  []*afNode
	mem    []importer.Member // each memory key, and the memory it is

	user bool // an input holds the user's profile
}

func convertAgentFlow(c *importer.Conv, registry []*importer.Source) {
	root := c.Src.Root
	name := root.Text("name")
	if name == "" {
		name = root.Text("id")
	}
	c.File.Name = c.FlowName(name, "imported_pipeline")
	c.File.Description = root.Text("user_prompt")
	c.File.Header = []string{fmt.Sprintf("Imported by flowctl import from the AgentFlow pipeline %q (%s).", name, filepath.Base(c.Src.Name))}
	a := &agentflow{Conv: c, blocks: map[string]*afBlock{}, nodes: map[string]*afNode{}}
	a.readBlocks(registry)
	for _, k := range root.Items("memory_keys") {
		if k.Kind != 's' || k.Str == "" {
			continue
		}
		name := c.Name("memory", k.Str, "memory")
		a.mem = append(a.mem, importer.Member{Name: k.Str, Value: importer.Ref("memory", name)})
		b := hclwrite.NewBlock("memory", []string{name})
		b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
		b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
		b.Body().SetAttributeValue("description", cty.StringVal("AgentFlow memory key "+k.Str))
		c.File.Memories = append(c.File.Memories, importer.Decl{Block: b})
	}
	nodes := root.Items("nodes")
	if len(nodes) == 0 {
		c.Stop(importer.Where{What: "pipeline"}, root, "No nodes", "an AgentFlow pipeline holds a nodes array.")
		return
	}
	ids := map[string]int{}
	for _, n := range nodes {
		ids[importer.Snake(n.Text("block_id"))]++
	}
	for _, n := range nodes {
		id := n.Text("id")
		if id == "" || a.nodes[id] != nil {
			c.Stop(importer.Where{At: n, What: "node", Name: id, Typ: n.Text("block_id")}, n.Get("id"), "Invalid node id",
				"each node needs an id of its own: AgentFlow keys results by it.")
			continue
		}
		node := &afNode{j: n, id: id, block: a.blocks[n.Text("block_id")], refs: map[string]bool{}}
		stepName := id
		if genericID.MatchString(id) {
			stepName = n.Text("block_id")
			if ids[importer.Snake(n.Text("block_id"))] > 1 {
				stepName += "_" + id
			}
		}
		node.step = c.Name("step", stepName, "node")
		a.nodes[id] = node
		a.order = append(a.order, node)
	}
	if c.Fatal {
		return
	}
	deps := a.edges(root)
	if c.Fatal {
		return
	}
	a.sortNodes(deps)
	for _, n := range a.order {
		a.node(n, deps[n.id])
	}
	if a.user {
		b := hclwrite.NewBlock("input", []string{"user"})
		b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
		b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("{}")))
		b.Body().SetAttributeValue("description", cty.StringVal("The profile of the user the pipeline runs for ({{user.…}})"))
		c.File.Inputs = append(c.File.Inputs, importer.Decl{Block: b})
	}
	for _, n := range a.order {
		if n.block == nil {
			continue
		}
		var ms []importer.Member
		for _, o := range n.block.outputs {
			ms = append(ms, importer.Member{Name: o.flowName, Value: importer.Ref("step", n.step, o.flowName)})
		}
		val := importer.Object(ms)
		if len(ms) == 0 {
			val = importer.Ref("step", n.step)
		}
		if n.block.trigger {
			val = importer.Ref("step", n.step, "value")
		}
		out := hclwrite.NewBlock("output", []string{c.Name("output", n.step, "node")})
		out.Body().SetAttributeRaw("value", importer.Clone(val))
		out.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The result of node %s (block %s)", n.id, n.block.id)))
		c.File.Outputs = append(c.File.Outputs, importer.Decl{Block: out})
	}
}

// genericID is a node id that says nothing the block's name does not:
// n1, node_2.
var genericID = regexp.MustCompile(`^(?i)(n|node)[-_]?\d+$`)

// edges checks the edges and returns, for each node, the nodes it must
// wait for although its inputs do not refer to them.
func (a *agentflow) edges(root *importer.JV) map[string][]string {
	// The references first: an edge they already imply adds nothing.
	for _, n := range a.order {
		a.collectRefs(n.j.Get("inputs"), n.refs)
	}
	after := map[string][]string{}
	for _, e := range root.Items("edges") {
		from, to := e.Text("from"), e.Text("to")
		if from == "" {
			from = e.Text("from_node")
		}
		if to == "" {
			to = e.Text("to_node")
		}
		w := importer.Where{At: e, What: "edge", Name: from + " → " + to}
		if a.nodes[from] == nil || a.nodes[to] == nil {
			a.Stop(w, e, "Edge to an unknown node", "an edge joins two nodes of the pipeline; AgentFlow fails on this one.")
			continue
		}
		switch {
		case a.nodes[to].refs[from]:
		case a.nodes[from].refs[to]:
			a.Warn(w, e, "Edge against the references",
				fmt.Sprintf("node %s uses the results of node %s, so it runs after it; this edge says the opposite and is left out.", from, to))
		default:
			if !slices.Contains(after[to], from) {
				after[to] = append(after[to], from)
			}
		}
	}
	// A reference without an edge: AgentFlow may run the node first and
	// read null; the flow waits for the node it refers to.
	edge := map[[2]string]bool{}
	for _, e := range root.Items("edges") {
		edge[[2]string{e.Text("from"), e.Text("to")}] = true
	}
	for _, n := range a.order {
		for _, r := range importer.SortedKeys(n.refs) {
			if a.nodes[r] != nil && !edge[[2]string{r, n.id}] {
				a.Warn(importer.Where{At: n.j, What: "node", Name: n.id, Typ: n.j.Text("block_id")}, n.j.Get("inputs"), "Reference without an edge",
					fmt.Sprintf("the inputs refer to node %s, but no edge runs it first: AgentFlow may run this node before it and read null; the flow waits for %s.", r, r))
			}
		}
	}
	if cyc := a.cycle(after); cyc != nil {
		why := "AgentFlow orders the nodes by the edges alone, so one of them reads null from the other; a flow's steps cannot wait for each other."
		if a.edgeCycle(root) {
			why = "AgentFlow's topological sorter refuses it too."
		}
		a.Stop(importer.Where{What: "pipeline"}, root.Get("edges"), "Cycle in the pipeline",
			"the edges and references make a cycle ("+strings.Join(cyc, " → ")+"): "+why)
	}
	return after
}

// sortNodes orders the nodes so that each comes after those it waits
// for, keeping the pipeline's order where it is free (there is no cycle).
func (a *agentflow) sortNodes(after map[string][]string) {
	placed := map[string]bool{}
	var out []*afNode
	for len(out) < len(a.order) {
		for _, n := range a.order {
			if placed[n.id] {
				continue
			}
			ready := true
			for _, d := range append(importer.SortedKeys(n.refs), after[n.id]...) {
				if a.nodes[d] != nil && !placed[d] {
					ready = false
				}
			}
			if ready {
				placed[n.id] = true
				out = append(out, n)
				break
			}
		}
	}
	a.order = out
}

// edgeCycle reports whether the edges alone make a cycle.
func (a *agentflow) edgeCycle(root *importer.JV) bool {
	next := map[string][]string{}
	for _, e := range root.Items("edges") {
		next[e.Text("from")] = append(next[e.Text("from")], e.Text("to"))
	}
	state := map[string]int{}
	var visit func(id string) bool
	visit = func(id string) bool {
		state[id] = 1
		for _, d := range next[id] {
			if state[d] == 1 || (state[d] == 0 && visit(d)) {
				return true
			}
		}
		state[id] = 2
		return false
	}
	for _, n := range a.order {
		if state[n.id] == 0 && visit(n.id) {
			return true
		}
	}
	return false
}

// cycle finds a cycle of references and edges, if there is one.
func (a *agentflow) cycle(after map[string][]string) []string {
	state := map[string]int{}
	var stack []string
	var found []string
	var visit func(id string) bool
	visit = func(id string) bool {
		state[id] = 1
		stack = append(stack, id)
		n := a.nodes[id]
		next := append(importer.SortedKeys(n.refs), after[id]...)
		for _, d := range next {
			if a.nodes[d] == nil {
				continue
			}
			if state[d] == 1 {
				i := slices.Index(stack, d)
				found = append(slices.Clone(stack[i:]), d)
				return true
			}
			if state[d] == 0 && visit(d) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = 2
		return false
	}
	for _, n := range a.order {
		if state[n.id] == 0 && visit(n.id) {
			return found
		}
	}
	return nil
}

// node writes the step of a node.
func (a *agentflow) node(n *afNode, after []string) {
	w := importer.Where{At: n.j, What: "node", Name: n.id, Typ: n.j.Text("block_id")}
	line := fmt.Sprintf("AgentFlow node %s: block %s", n.id, n.j.Text("block_id"))
	b := n.block
	if b == nil {
		msg := a.Problem(w, n.j.Get("block_id"), "Unknown block",
			fmt.Sprintf("no block definition has id %q: give the registry's definitions with --blocks.", n.j.Text("block_id")))
		a.GapStep(n.step, line, msg, nil)
		return
	}
	if b.trigger {
		// AgentFlow's executor does not run trigger blocks: their result
		// says the pipeline was triggered.
		sb, body := importer.NewStep(n.step, "value")
		body.SetAttributeRaw("value", importer.Clone(importer.Object([]importer.Member{{Name: "status", Value: importer.Str("triggered")}, {Name: "trigger_type", Value: importer.Str(b.id)}})))
		a.Step(line+" (a trigger: scheduling metadata, not run)", sb)
		return
	}
	if msg := a.writeBlock(b, w); msg != "" {
		a.GapStep(n.step, line, msg, nil)
		return
	}
	sb, body := importer.NewStep(n.step, b.name)
	given := n.j.Get("inputs")
	for _, f := range b.inputs {
		v := given.Get(f.name)
		if v == nil {
			continue
		}
		body.SetAttributeRaw(f.flowName, importer.Clone(a.value(v, w)))
	}
	if given != nil {
		for _, k := range given.Keys {
			if !slices.ContainsFunc(b.inputs, func(f afField) bool { return f.name == k }) {
				a.Warn(w, given.Get(k), "Input not in the schema",
					fmt.Sprintf("block %s's input_schema has no property %q: the flow does not pass it.", b.id, k))
			}
		}
	}
	if b.context {
		a.user = true
		body.SetAttributeRaw("agentflow_user", importer.Clone(importer.Ref("input", "user")))
		body.SetAttributeRaw("agentflow_memory", importer.Clone(importer.Object(a.mem)))
	}
	var deps []importer.Expr
	for _, d := range after {
		deps = append(deps, importer.Ref("step", a.nodes[d].step))
	}
	if len(deps) > 0 {
		body.SetAttributeRaw("depends_on", importer.Clone(importer.Tuple(deps)))
	}
	a.Step(line, sb)
}

// afRef is AgentFlow's template reference (engine/resolver.py).
var afRef = regexp.MustCompile(`\{\{(\w+)\.(\w+(?:\.\w+)*)\}\}`)

func (a *agentflow) collectRefs(v *importer.JV, into map[string]bool) {
	if v == nil {
		return
	}
	switch v.Kind {
	case 's':
		for _, m := range afRef.FindAllStringSubmatch(v.Str, -1) {
			if m[1] != "memory" && m[1] != "user" {
				into[m[1]] = true
			}
		}
	case 'o':
		for _, k := range v.Keys {
			a.collectRefs(v.Obj[k], into)
		}
	case 'a':
		for _, e := range v.Arr {
			a.collectRefs(e, into)
		}
	}
}

// value is an input's value: literals as they are, templates resolved.
func (a *agentflow) value(v *importer.JV, w importer.Where) importer.Expr {
	switch v.Kind {
	case 's':
		if m := afRef.FindStringSubmatch(strings.TrimSpace(v.Str)); m != nil && m[0] == strings.TrimSpace(v.Str) {
			e, _ := a.lookup(m[1], m[2], w, v)
			return e
		}
		var parts []importer.TPart
		last := 0
		for _, m := range afRef.FindAllStringSubmatchIndex(v.Str, -1) {
			e, typ := a.lookup(v.Str[m[2]:m[3]], v.Str[m[4]:m[5]], w, v)
			parts = append(parts, importer.TPart{Lit: v.Str[last:m[0]]}, importer.TPart{Expr: pyStr(e, typ)})
			last = m[1]
		}
		return importer.Template(append(parts, importer.TPart{Lit: v.Str[last:]}), false)
	case 'o':
		var ms []importer.Member
		for _, k := range v.Keys {
			ms = append(ms, importer.Member{Name: k, Value: a.value(v.Obj[k], w)})
		}
		return importer.Object(ms)
	case 'a':
		var es []importer.Expr
		for _, e := range v.Arr {
			es = append(es, a.value(e, w))
		}
		return importer.Tuple(es)
	}
	return importer.JsonLiteral(v)
}

// pyStr is the text Python's str() gives a value of type typ that
// AgentFlow interpolates into text: strings and numbers as they are, True
// and False, None as "" (the resolver's), other values as JSON.
func pyStr(e importer.Expr, typ string) importer.Expr {
	switch typ {
	case "string", "number":
		return e
	case "bool":
		return importer.Join(e, " ? \"True\" : \"False\"")
	}
	return importer.Join(e, " == null ? \"\" : ", e, " == true ? \"True\" : ", e, " == false ? \"False\" : try(tostring(", e, "), jsonencode(", e, "))")
}

// lookup is the value {{ns.path}} stands for, and its HCL type when it is
// known.
func (a *agentflow) lookup(ns, path string, w importer.Where, at *importer.JV) (importer.Expr, string) {
	keys := strings.Split(path, ".")
	steps := make([]any, len(keys))
	for i, k := range keys {
		steps[i] = k
	}
	switch ns {
	case "memory":
		name := importer.Snake(keys[0])
		if !slices.ContainsFunc(a.File.Memories, func(d importer.Decl) bool { return d.Block.Labels()[0] == name }) {
			a.Warn(w, at, "Memory key not declared",
				fmt.Sprintf("{{memory.%s}} names a key the pipeline's memory_keys do not list: the flow declares it.", path))
			mname := a.Name("memory", keys[0], "memory")
			a.mem = append(a.mem, importer.Member{Name: keys[0], Value: importer.Ref("memory", mname)})
			b := hclwrite.NewBlock("memory", []string{mname})
			b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
			b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
			a.File.Memories = append(a.File.Memories, importer.Decl{Block: b})
		}
		if len(keys) == 1 {
			return importer.Ref("memory", name), "any"
		}
		return importer.Call("try", importer.Ref("memory", append([]any{name}, steps[1:]...)...), importer.Code("null")), "any"
	case "user":
		a.user = true
		return importer.Call("try", importer.Ref("input", append([]any{"user"}, steps...)...), importer.Code("null")), "any"
	}
	n := a.nodes[ns]
	if n == nil {
		a.Warn(w, at, "Unknown node", fmt.Sprintf("{{%s.%s}} names no node of the pipeline: AgentFlow reads null, and so does the flow.", ns, path))
		return importer.Code("null"), "any"
	}
	if n.block == nil {
		return importer.Ref("step", append([]any{n.step, "value"}, steps...)...), "any"
	}
	if n.block.trigger {
		return importer.Call("try", importer.Ref("step", append([]any{n.step, "value"}, steps...)...), importer.Code("null")), "any"
	}
	i := slices.IndexFunc(n.block.outputs, func(f afField) bool { return f.name == keys[0] })
	if i < 0 {
		a.Warn(w, at, "Unknown output field",
			fmt.Sprintf("block %s's output_schema has no property %q: AgentFlow reads null when the block does not return it, and so does the flow.", n.block.id, keys[0]))
		return importer.Code("null"), "any"
	}
	f := n.block.outputs[i]
	steps[0] = f.flowName
	if len(keys) == 1 {
		return importer.Ref("step", append([]any{n.step}, steps...)...), f.typ
	}
	return importer.Call("try", importer.Ref("step", append([]any{n.step}, steps...)...), importer.Code("null")), "any"
}
