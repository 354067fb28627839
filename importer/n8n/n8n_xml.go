package n8n

import "fmt"

// The XML node (Xml.node.js) is refused: n8n computes it with xml2js
// 0.6.2, whose parser needs Node's built-in modules events and timers
// (and its sax, stream), which a js block's packages cannot have (flowctl
// lock refuses xml2js, naming the chain of imports): the block would run
// on goja without them. No other library gives xml2js's values, so the
// node is not converted rather than converted to other values.

// xmlNode refuses the XML node, naming why.
func (n *n8n) xmlNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	mode := p.Text("mode")
	if mode == "" {
		mode = "xmlToJson"
	}
	at := p.Get("mode")
	if at == nil {
		at = node.j.Get("type")
	}
	n.Problem(node.where, at, "Library needs Node", fmt.Sprintf("the XML node (mode %q): n8n computes it with xml2js 0.6.2, which needs Node's built-in modules events and timers (xml2js's parser) and stream (its sax), which a js block does not have (its packages run on goja, without Node): flowctl lock refuses the package, so the node is not converted.", mode))
	return nil
}
