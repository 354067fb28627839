package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// A Webhook whose Respond is "Using 'Respond to Webhook' Node" when no
// Respond to Webhook node of the flow is converted. n8n 2.8.4 decides by
// the node's version (Webhook.node.js, webhook(); packages/cli's
// webhook-helpers.js, executeWebhook):
//
//   - from v2, checkResponseModeConfiguration looks for a Respond to
//     Webhook node among the Webhook's child nodes; without one it throws
//     a WorkflowConfigurationError, which executeWebhook answers 500
//     {"code": 0, "message": "No Respond to Webhook node found in the
//     workflow"}: every call is answered with that error, and import
//     says so rather than writing a flow that answers;
//   - before, the workflow runs, and when it ends the workflow runner
//     resolves the response promise with {} (resolveExecutionResponsePromise),
//     which is sent as res.json(undefined): 200, Content-Type
//     application/json, no body. The trigger answers that, an output of
//     the flow that is the empty text.

// emptyAnswerType is the Content-Type of n8n's answer without a body
// (Express's res.json).
const emptyAnswerType = "application/json; charset=utf-8"

// noResponder is what the trigger of w answers when the flow converts no
// Respond to Webhook node, or nil after an error.
func (n *n8n) noResponder(w *n8nWebhook) importer.Expr {
	at := w.node.params.Get("responseMode")
	if r := respondAfter(w.node); r != nil || w.node.typ != "webhook" {
		n.Problem(w.node.where, at, "No Respond to Webhook node",
			"the webhook answers with a Respond to Webhook node, and none of the flow's is converted.")
		return nil
	}
	if w.node.version >= 2 {
		n.Problem(w.node.where, at, "Webhook answers every call with an error",
			"no Respond to Webhook node comes after this Webhook (v2), which answers with one: n8n refuses every call to it with 500 \"No Respond to Webhook node found in the workflow\" and the workflow never answers its callers. Connect the Respond to Webhook node, or set Respond to Immediately or When Last Node Finishes.")
		return nil
	}
	n.Warn(w.node.where, at, "Webhook answers with no body",
		"no Respond to Webhook node comes after this Webhook (v1): n8n runs the workflow and, when the run ends, answers 200 with no body (also when a node fails); the trigger answers so, but 500 when the run fails.")
	name := n.Name("output", w.node.name+" answer", "answer")
	b := hclwrite.NewBlock("output", []string{name})
	b.Body().SetAttributeValue("value", cty.StringVal(""))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("What n8n node %q answers when the run ends: no body, as no Respond to Webhook node answers", w.node.name)))
	n.File.Outputs = append(n.File.Outputs, importer.Decl{Comment: []string{n.nodeComment(w.node)}, Block: b})
	return importer.Ref("output", name)
}

// respondAfter is a Respond to Webhook node among the nodes connected
// after node, at any depth (n8n's getChildNodes), or nil.
func respondAfter(node *n8nNode) *n8nNode {
	seen := map[*n8nNode]bool{node: true}
	next := []*n8nNode{node}
	for len(next) > 0 {
		at := next[0]
		next = next[1:]
		for _, out := range at.outs {
			for _, e := range out {
				if seen[e.node] {
					continue
				}
				if e.node.typ == "respondToWebhook" {
					return e.node
				}
				seen[e.node] = true
				next = append(next, e.node)
			}
		}
	}
	return nil
}

// bodyFileUnread says whether the Webhook's option k, which makes the
// request's body a file in the item's binary data, can be left out with
// a warning: Raw Body (v1, v2: the file beside the parsed json) and, from
// v2, Field Name for Binary Data (the name of the file of a body that is
// not parsed, which v2 makes with or without the option) change no json,
// so when no other node of the workflow reads binary data (no parameter
// names it) the flow gives what n8n gives. Raw Body off is no option.
func (n *n8n) bodyFileUnread(node *n8nNode, k string, v *importer.JV) bool {
	switch {
	case k == "rawBody" && v.Kind == 'b' && !v.Bool:
		return true
	case k == "binaryData" || k == "binaryPropertyName" && node.version < 2:
		return false
	}
	for _, other := range n.nodes {
		if other != node && mentionsBinary(other.params) {
			return false
		}
	}
	n.Warn(node.where, v, "Webhook option left out",
		fmt.Sprintf("the option %s (the request's body as a file in the item's binary data) is not converted: no node of the workflow reads binary data, and the item's json is n8n's.", k))
	return true
}

// mentionsBinary says whether a parameter, or a key or text in it, names
// binary data.
func mentionsBinary(v *importer.JV) bool {
	if v == nil {
		return false
	}
	if strings.Contains(strings.ToLower(v.Str), "binary") {
		return true
	}
	for _, k := range v.Keys {
		if strings.Contains(strings.ToLower(k), "binary") || mentionsBinary(v.Obj[k]) {
			return true
		}
	}
	for _, e := range v.Arr {
		if mentionsBinary(e) {
			return true
		}
	}
	return false
}
