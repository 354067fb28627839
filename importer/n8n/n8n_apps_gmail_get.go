package n8n

import (
	"fmt"

	"github.com/flowctl/flowctl/importer"
)

// gmailGetMany reads Get Many's parameters (GmailV2.node.js, getAll):
// Return All or the limit (50 by default), and the filters Search,
// Sender, Read Status, Label Names or IDs and Include Spam and Trash,
// which prepareQuery makes the list's query of. Simplify off (the raw
// message parsed, its attachments as binary data), the filters Received
// After and Before (dates n8n reads in its own way) and the options are
// refused.
func (n *n8n) gmailGetMany(node *n8nNode, s *n8nScope, call *appCall) bool {
	p := node.params
	call.flow, call.what = "gmail_message_get_many", "lists the messages"
	if v := p.Get("simple"); v != nil && !(v.Kind == 'b' && v.Bool) {
		n.Problem(node.where, v, "Unsupported option", "Get Many with Simplify off is not converted: n8n parses each raw message, its attachments as binary data, which a flow's items (JSON) do not carry.")
		return false
	}
	if opts := p.Get("options"); opts != nil && len(opts.Keys) > 0 {
		n.Problem(node.where, opts.Get(opts.Keys[0]), "Unsupported option", fmt.Sprintf("Get Many's option %s is not converted: it applies to the raw messages of Simplify off.", opts.Keys[0]))
		return false
	}
	all := p.Get("returnAll")
	if all != nil && !(all.Kind == 'b' && !all.Bool) {
		call.args = append(call.args, importer.Member{Name: "return_all", Value: s.value(all, "return_all")})
	}
	if all == nil || all.Kind != 'b' || !all.Bool {
		var limit importer.Expr = importer.Code("50")
		if l := p.Get("limit"); l != nil {
			limit = s.value(l, "limit")
		}
		call.args = append(call.args, importer.Member{Name: "limit", Value: limit})
	}
	f := p.Get("filters")
	if f == nil {
		return true
	}
	for _, k := range f.Keys {
		v := f.Get(k)
		if known, ok := n.gmailFilter(node, s, call, k, v); !ok {
			return false
		} else if !known {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("Get Many's filter %s is not converted; Search, Sender, Read Status, Label Names or IDs and Include Spam and Trash are.", k))
			return false
		}
	}
	return true
}

// gmailFilter adds to call the argument of filter k (value v) of those
// Get Many and the Gmail Trigger share: Search, Sender, Read Status,
// Include Spam and Trash, Label Names or IDs. known is false for another
// filter; ok is false after a diagnostic.
func (n *n8n) gmailFilter(node *n8nNode, s *n8nScope, call *appCall, k string, v *importer.JV) (known, ok bool) {
	switch k {
	case "q", "sender", "readStatus":
		name := map[string]string{"q": "q", "sender": "sender", "readStatus": "read_status"}[k]
		call.args = append(call.args, importer.Member{Name: name, Value: s.textValue(v, name)})
	case "includeSpamTrash":
		call.args = append(call.args, importer.Member{Name: "include_spam_trash", Value: s.value(v, "include_spam_trash")})
	case "labelIds":
		switch {
		case v.Kind == 'a':
			call.args = append(call.args, importer.Member{Name: "label_ids", Value: s.deepValue(v, "label_ids")})
		case v.Kind == 's' && v.Str == "":
		default:
			n.Problem(node.where, v, "Unsupported option", "the filter Label Names or IDs is converted when it is a list of labels, as n8n's form gives it.")
			return true, false
		}
	default:
		return false, true
	}
	return true, true
}
