package n8n

import (
	"fmt"

	"github.com/flowctl/flowctl/importer"
)

// gmailOps are the operations of the Gmail node v2 (GmailV2.node.js)
// converted, by resource.
var gmailOps = map[string][]string{
	"message": {"addLabels", "getAll", "markAsRead", "send"},
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
	// Each resource's default operation (v2/*Description.js).
	defOp := map[string]string{"message": "send", "draft": "create", "label": "getAll", "thread": "getAll"}[node.params.Text("resource")]
	if defOp == "" {
		defOp = "send"
	}
	resource, op, ok := n.appOperation(node, "Gmail", "message", defOp, gmailOps)
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
			{Name: "label_ids", Value: s.deepValue(p.Get("labelIds"), "label_ids")},
		}
	case "message markAsRead":
		call.flow, call.what = "gmail_message_mark_as_read", "marks the message as read"
		call.args = []importer.Member{{Name: "message_id", Value: s.textValue(p.Get("messageId"), "message_id")}}
	case "message send":
		if !n.gmailSend(node, s, &call) {
			return nil
		}
	case "message getAll":
		if !n.gmailGetMany(node, s, &call) {
			return nil
		}
	}
	return n.appStep(node, in, s, call)
}

// gmailSend reads Send's parameters: the recipients, subject and message
// for each item, the email type (HTML by default), and the options
// converted — CC, BCC, Reply To, Sender Name and Append n8n Attribution
// (on by default from v2.1; on an HTML message n8n's link names its
// instance, which the flow's lacks: a warning).
func (n *n8n) gmailSend(node *n8nNode, s *n8nScope, call *appCall) bool {
	p := node.params
	call.flow, call.what = "gmail_message_send", "sends the message"
	call.args = []importer.Member{
		{Name: "send_to", Value: s.textValue(jvOrDefault(p.Get("sendTo"), ""), "send_to")},
		{Name: "subject", Value: s.textValue(jvOrDefault(p.Get("subject"), ""), "subject")},
		{Name: "message", Value: s.textValue(jvOrDefault(p.Get("message"), ""), "message")},
	}
	typ := p.Text("emailType")
	if typ == "" {
		typ = "html"
	}
	if typ != "html" {
		call.args = append(call.args, importer.Member{Name: "email_type", Value: importer.Str(typ)})
	}
	attribution := node.version >= 2.1
	opts := p.Get("options")
	if opts != nil {
		for _, k := range opts.Keys {
			v := opts.Get(k)
			switch k {
			case "ccList", "bccList", "replyTo", "senderName":
				name := map[string]string{"ccList": "cc", "bccList": "bcc", "replyTo": "reply_to", "senderName": "sender_name"}[k]
				call.args = append(call.args, importer.Member{Name: name, Value: s.textValue(v, name)})
			case "replyToSenderOnly", "replyToRecipientsOnly":
				// Reply's options, left on the node: n8n's Send does not
				// read them.
			case "appendAttribution":
				if v.Kind != 'b' {
					n.Problem(node.where, v, "Unsupported option", "Append n8n Attribution is converted when it is true or false.")
					return false
				}
				attribution = v.Bool
			default:
				n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("Send's option %s is not converted; CC, BCC, Reply To, Sender Name and Append n8n Attribution are.", k))
				return false
			}
		}
	}
	if attribution {
		call.args = append(call.args, importer.Member{Name: "attribution", Value: importer.Code("true")})
		if typ == "html" {
			n.Warn(node.where, orParams(opts, node), "n8n attribution appended",
				"the message ends with n8n's \"This email was sent automatically with n8n\" and its link, as n8n's node sends it (Append n8n Attribution is on unless turned off); the link lacks n8n's instance ID. Set attribution = false to leave it out.")
		}
	}
	return true
}
