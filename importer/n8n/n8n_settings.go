package n8n

import (
	"fmt"

	"github.com/flowctl/flowctl/importer"
)

// The node settings every node has (n8n's INode: alwaysOutputData,
// onError, continueOnFail), beside retries (retry in n8n.go).

// n8nOnError are the node types whose converter reads On Error itself
// (httpOnError); on the others it is refused (settings in n8n.go).
var n8nOnError = map[string]bool{
	"httpRequest": true,
	// A No Operation cannot fail: On Error changes nothing.
	"noOp": true,
}

// onErrorSetting is the node's On Error: its onError, or the older
// Continue On Fail (continueRegularOutput), or "" (stop the workflow).
func onErrorSetting(node *n8nNode) (string, *importer.JV) {
	j := node.j
	if oe := j.Text("onError"); oe != "" && oe != "stopWorkflow" {
		return oe, j.Get("onError")
	}
	if j.Get("onError") == nil && j.Boolean(false, "continueOnFail") {
		return "continueRegularOutput", j.Get("continueOnFail")
	}
	return "", nil
}

// httpOnError reads an HTTP Request's On Error. Continue (using error
// output) with nothing connected to the error output is the step's
// on_error = "continue" and the output's items leave the failed requests
// out, as n8n moves their items to the error output that goes nowhere.
// An error output that leads somewhere, and Continue (regular output),
// give items that hold n8n's error object ({error: …}: the request's
// failure as its HTTP client reports it), which a flow does not have:
// refused. It reports whether the failed requests are left out, and
// whether the setting is converted.
func (n *n8n) httpOnError(node *n8nNode) (skip, ok bool) {
	oe, at := onErrorSetting(node)
	switch oe {
	case "":
		return false, true
	case "continueErrorOutput":
		if len(node.outs) > 1 {
			for _, e := range node.outs[1] {
				if e.node.reached {
					n.Problem(node.where, at, "Unsupported setting",
						fmt.Sprintf("On Error: Continue (using error output) sends %q the failed requests' items with n8n's error ({error: …}, as its HTTP client reports the failure), which a flow does not have; a failed request whose error output goes nowhere is converted (on_error = \"continue\").", e.node.name))
					return false, false
				}
			}
		}
		return true, true
	}
	n.Problem(node.where, at, "Unsupported setting",
		"On Error: Continue (regular output) gives, for each failed request, an item {error: …} holding n8n's error as its HTTP client reports it, which a flow does not have; Continue (using error output) with nothing on the error output is converted (on_error = \"continue\").")
	return false, false
}

// alwaysOutputData is n8n's Always Output Data (WorkflowExecute): when
// the node runs — an item came to one of its inputs, as n8n runs a node
// only then — and its first output has no item, that output is one empty
// item, paired with the item that came. A trigger always gives items
// when it runs: nothing changes.
func (n *n8n) alwaysOutputData(node *n8nNode) {
	if !node.j.Boolean(false, "alwaysOutputData") || len(node.items) == 0 || isTrigger(node) {
		return
	}
	var came []importer.Expr
	for _, edges := range node.ins {
		for _, e := range edges {
			if e.node.reached && e.node.conv && e.index < len(e.node.items) && e.node.items[e.index].e != nil {
				came = append(came, importer.Join("length(", e.node.items[e.index].e, ") > 0"))
			}
		}
	}
	if len(came) == 0 {
		// Nothing comes to the node: n8n never runs it.
		return
	}
	out := &node.items[0]
	cond := importer.Join("length(", out.e, ") == 0 && ", joinOr(came))
	out.e = importer.Call("concat", out.e, importer.Join("[for e in [{}] : e if ", cond, "]"))
	out.binary = nil // the empty item has no file
	if out.paired != nil {
		out.paired = importer.Call("concat", out.paired, importer.Join("[for k in [0] : k if ", cond, "]"))
	}
}

// joinOr is (a || b || …).
func joinOr(es []importer.Expr) importer.Expr {
	if len(es) == 1 {
		return es[0]
	}
	parts := []any{"("}
	for i, e := range es {
		if i > 0 {
			parts = append(parts, " || ")
		}
		parts = append(parts, e)
	}
	return importer.Join(append(parts, ")")...)
}
