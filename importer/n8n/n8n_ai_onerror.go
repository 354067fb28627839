package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// On Error of the AI roots that ask a model once for each item (Agent,
// Basic LLM Chain, Information Extractor). When the model call of an item
// fails and the node continues, n8n gives the item {error: the message}
// (each node's execute: continueOnFail), and with Continue (using error
// output) its WorkflowExecute moves that item to the error output, as
// {...the input item, error: the message} (handleNodeErrorOutput). The
// flow's llm step with on_error = "continue" has null for the failed
// instances: the success output leaves them out, and the error output is
// the input items of the failed ones, paired with them. The error's
// message is the model client's, which the flow does not have: the error
// output is converted only where nothing reads its items' fields (see
// errorBranchWhy).

// aiOnErrorTypes are the AI roots whose On Error is converted.
var aiOnErrorTypes = []string{"agent", "chainLlm", "informationExtractor"}

func init() {
	for _, t := range aiOnErrorTypes {
		n8nOnError[langchainPrefix+t] = true
	}
}

// aiContinuing wraps the converter of an AI root that reads its On Error.
func aiContinuing(conv func(n *n8n, node *n8nNode, in n8nItems) []n8nItems) func(n *n8n, node *n8nNode, in n8nItems) []n8nItems {
	return func(n *n8n, node *n8nNode, in n8nItems) []n8nItems {
		oe, at := onErrorSetting(node)
		switch oe {
		case "":
			return conv(n, node, in)
		case "continueErrorOutput":
		default:
			n.Problem(node.where, at, "Unsupported setting",
				"On Error: Continue (regular output) gives, for each item whose model call failed, an item {error: …} holding the message of n8n's model client, which a flow does not have; Continue (using error output) is converted where the nodes on the error output do not read its items.")
			return nil
		}
		if why := n.errorBranchWhy(node); why != "" {
			n.Problem(node.where, at, "Unsupported setting",
				"On Error: Continue (using error output) gives the items whose model call failed with n8n's error message ({…the item, error: …}), which a flow does not have; "+why+".")
			return nil
		}
		items := conv(n, node, in)
		if items == nil {
			return nil
		}
		step := importer.Ref("step", node.step)
		failed := pairedWith(importer.Join("[for k, item in ", in.e, " : item if ", step, "[k] == null]"), in,
			importer.Join("[for k, r in ", step, " : k if r == null]"))
		n.Warn(node.where, at, "Failed model calls continue",
			"the step continues on error (on_error = \"continue\"): an item whose model call fails leaves the success output and goes to the error output, without n8n's error message, which nothing there reads.")
		return append(items[:1:1], failed)
	}
}

// continues reports whether an AI root's step continues on error (its On
// Error converted by aiContinuing).
func continues(node *n8nNode) bool {
	oe, _ := onErrorSetting(node)
	return oe == "continueErrorOutput"
}

// llmItems are the items of root node's llm step, one made of each of its
// instances r (item: parts of importer.Join); a failed instance (the step
// continues on error) gives none. Those items pair with the node's input
// items one for one, as n8n pairs them when the node gives as many as it
// took (assignPairedItems). With an error output it gives two outputs,
// and n8n pairs none of the items that say nothing of their pair: the
// chain's, the Information Extractor's and Agent v1's (only Agent v2 on
// gives each its item); they are unpaired then.
func llmItems(node *n8nNode, in n8nItems, item ...any) n8nItems {
	results := importer.Ref("step", node.step)
	head := []any{"[for r in ", results, " : "}
	if continues(node) {
		items := pairedWith(importer.Join(append(append(head, item...), " if r != null]")...), in,
			importer.Join("[for k, r in ", results, " : k if r != null]"))
		if node.fullType != langchainPrefix+"agent" || node.version < 2 {
			items.paired, items.unpaired = nil, true
		}
		return items
	}
	return pairedWith(importer.Join(append(append(head, item...), "]")...), in, nil)
}

// errorBranchWhy says why the error output of node is not converted, or
// "": each node on it must make its items without reading them (Edit
// Fields v3 on, whose fields are written out and which keeps no other
// field), and no node after it may read node's items by its name.
func (n *n8n) errorBranchWhy(node *n8nNode) string {
	if len(node.outs) < 2 {
		return ""
	}
	var next []*n8nNode
	for _, e := range node.outs[1] {
		if !e.node.reached {
			continue
		}
		x := e.node
		switch {
		case x.typ != "set" || x.version < 3 || x.disabled:
			return fmt.Sprintf("%q on it is not an Edit Fields node (v3 on) whose fields are written out", x.name)
		case x.params.Boolean(false, "includeOtherFields"):
			return fmt.Sprintf("%q on it keeps the item's fields (Include Other Input Fields)", x.name)
		case hasExpression(x.params):
			return fmt.Sprintf("%q on it has an expression, which could read the item", x.name)
		}
		next = append(next, x)
	}
	seen := map[*n8nNode]bool{}
	for len(next) > 0 {
		x := next[0]
		next = next[1:]
		if seen[x] {
			continue
		}
		seen[x] = true
		if namesNode(x.params, node.name) {
			return fmt.Sprintf("%q after it reads the items of %q by its name", x.name, node.name)
		}
		for _, out := range x.outs {
			for _, e := range out {
				next = append(next, e.node)
			}
		}
	}
	return ""
}

// hasExpression reports whether a parameter holds an expression (a
// string starting with = that has {{ … }}; without, it is its text).
func hasExpression(v *importer.JV) bool {
	return anyString(v, func(s string) bool { return strings.HasPrefix(s, "=") && strings.Contains(s, "{{") })
}

// namesNode reports whether an expression of a parameter names a node.
func namesNode(v *importer.JV, name string) bool {
	return anyString(v, func(s string) bool { return strings.HasPrefix(s, "=") && strings.Contains(s, name) })
}

// anyString reports whether a string of v satisfies f.
func anyString(v *importer.JV, f func(string) bool) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case 's':
		return f(v.Str)
	case 'a':
		for _, e := range v.Arr {
			if anyString(e, f) {
				return true
			}
		}
	case 'o':
		for _, k := range v.Keys {
			if anyString(v.Obj[k], f) {
				return true
			}
		}
	}
	return false
}
