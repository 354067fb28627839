package n8n

import (
	"fmt"
	"slices"

	"github.com/flowctl/flowctl/importer"
)

// mattermostOps are the operations of the Mattermost node v1
// (MattermostV1.node.js) converted, by resource.
var mattermostOps = map[string][]string{
	"message": {"post"},
}

// mattermostAttachmentFields are an attachment's fields n8n's Post sends
// as they are (actions/message/post/execute.js); Fields and Actions,
// which it reshapes, are not converted.
var mattermostAttachmentFields = []string{"author_icon", "author_link", "author_name", "color", "fallback", "footer",
	"footer_icon", "image_url", "pretext", "text", "thumb_url", "title", "title_link"}

// mattermostNode is the Mattermost node v1: Message → Post, a flow of the
// registry called once for each item as n8n calls the API for each item,
// on the credential's server and token, the flow's two secrets.
func (n *n8n) mattermostNode(node *n8nNode, in n8nItems) []n8nItems {
	if _, _, ok := n.appOperation(node, "Mattermost", "message", "post", mattermostOps); !ok {
		return nil
	}
	p := node.params
	s := n.appScope(node, in)
	args := []importer.Member{
		{Name: "channel_id", Value: s.value(orText(p.Get("channelId"), ""), "channel_id")},
		{Name: "message", Value: s.value(orText(p.Get("message"), ""), "message")},
	}
	att := p.Get("attachments")
	if att == nil || att.Kind != 'a' {
		n.Problem(node.where, orParams(att, node), "Unsupported parameter", "Post's attachments are converted when they are a list, as n8n's editor writes them.")
		return nil
	}
	var list []importer.Expr
	for _, a := range att.Arr {
		var ms []importer.Member
		for _, k := range keysOf(a) {
			if !slices.Contains(mattermostAttachmentFields, k) {
				n.Problem(node.where, a.Get(k), "Unsupported option", fmt.Sprintf("the attachment's %s is not converted (n8n reshapes an attachment's fields and actions); %v are.", k, mattermostAttachmentFields))
				return nil
			}
			ms = append(ms, importer.Member{Name: k, Value: s.value(a.Get(k), k)})
		}
		list = append(list, importer.Object(ms))
	}
	args = append(args, importer.Member{Name: "attachments", Value: importer.Tuple(list)})
	opts := p.Get("otherOptions")
	for _, k := range keysOf(opts) {
		if k != "root_id" {
			n.Problem(node.where, opts.Get(k), "Unsupported option", fmt.Sprintf("the option %s of Post is not one n8n's node has.", k))
			return nil
		}
		args = append(args, importer.Member{Name: "root_id", Value: s.value(opts.Get(k), "root_id")})
	}
	return n.appStep(node, in, s, appCall{flow: "mattermost_message_post", cred: "mattermostApi", what: "posts the message", args: args})
}
