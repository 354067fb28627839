package n8n

import (
	"github.com/flowctl/flowctl/importer"
)

// gmailOps are the operations of the Gmail node v2 (GmailV2.node.js)
// converted, by resource.
var gmailOps = map[string][]string{
	"message": {"addLabels"},
}

// gmailNode is the Gmail node v2: each operation a flow of the registry,
// called once for each item as n8n runs the operation for each item, on
// the credential's OAuth2 access token.
func (n *n8n) gmailNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.tooOld(node, "Gmail", 2) {
		return nil
	}
	if a := node.params.Text("authentication"); a != "" && a != "oAuth2" {
		n.Problem(node.where, node.params.Get("authentication"), "Unsupported credential",
			"the Gmail node's "+a+" authentication is not converted; OAuth2 is.")
		return nil
	}
	resource, op, ok := n.appOperation(node, "Gmail", "message", "send", gmailOps)
	if !ok {
		return nil
	}
	s := n.appScope(node, in)
	p := node.params
	call := appCall{cred: "gmailOAuth2", oauth2: true}
	switch resource + " " + op {
	case "message addLabels":
		call.flow, call.what = "gmail_message_add_labels", "adds labels to the message"
		call.args = []importer.Member{
			{Name: "message_id", Value: s.textValue(p.Get("messageId"), "message_id")},
			{Name: "label_ids", Value: s.value(p.Get("labelIds"), "label_ids")},
		}
	}
	return n.appStep(node, in, s, call)
}
