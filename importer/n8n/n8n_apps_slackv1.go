package n8n

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// slackV1Options are the other options of the Slack node v1's Post
// (SlackV1.node.js), which n8n adds to the body as they are.
var slackV1Options = []string{"icon_emoji", "icon_url", "link_names", "thread_ts", "mrkdwn", "reply_broadcast",
	"unfurl_links", "unfurl_media", "sendAsUser"}

// slackV1AttachmentFields are an attachment's fields n8n's v1 Post sends
// as they are; Fields, which it reshapes, is not converted.
var slackV1AttachmentFields = []string{"fallback", "text", "title", "title_link", "color", "pretext", "author_name",
	"author_link", "author_icon", "image_url", "thumb_url", "footer", "footer_icon", "ts"}

// slackV1Node is the Slack node v1: Message → Post, a flow of the
// registry called once for each item, with the channel, the text, the
// attachments and the other options as n8n sends them.
func (n *n8n) slackV1Node(node *n8nNode, in n8nItems) []n8nItems {
	if _, _, ok := n.appOperation(node, "Slack", "message", "post", slackOps); !ok {
		return nil
	}
	p := node.params
	call := appCall{cred: "slackApi", flow: "slack_message_post_v1", what: "posts the message"}
	switch a := p.Get("authentication"); {
	case a == nil || a.Kind == 's' && a.Str == "accessToken":
	case a.Kind == 's' && a.Str == "oAuth2":
		call.cred, call.oauth2 = "slackOAuth2Api", true
	default:
		n.Problem(node.where, a, "Unsupported credential", "the Slack node's authentication is converted when it is accessToken or oAuth2, written out.")
		return nil
	}
	if j := p.Get("jsonParameters"); j != nil && !(j.Kind == 'b' && !j.Bool) {
		n.Problem(node.where, j, "Unsupported option", "Post's JSON parameters (attachments and blocks as JSON) are not converted; the attachments written out are.")
		return nil
	}
	if b := p.Get("blocksUi"); b != nil && b.Get("blocksValues") != nil {
		n.Problem(node.where, b, "Unsupported option", "Post's blocks are not converted (n8n builds them from its own form); the text and attachments are.")
		return nil
	}
	s := n.appScope(node, in)
	args := []importer.Member{
		{Name: "channel", Value: s.value(orText(p.Get("channel"), ""), "channel")},
		{Name: "text", Value: s.value(orText(p.Get("text"), ""), "text")},
	}
	var list []importer.Expr
	att := p.Get("attachments")
	if att != nil && att.Kind != 'a' {
		n.Problem(node.where, att, "Unsupported parameter", "Post's attachments are converted when they are a list, as n8n's editor writes them.")
		return nil
	}
	for _, a := range orList(att) {
		var ms []importer.Member
		for _, k := range keysOf(a) {
			if !slices.Contains(slackV1AttachmentFields, k) {
				n.Problem(node.where, a.Get(k), "Unsupported option", fmt.Sprintf("the attachment's %s is not converted (n8n reshapes an attachment's fields); %v are.", k, slackV1AttachmentFields))
				return nil
			}
			ms = append(ms, importer.Member{Name: k, Value: s.value(a.Get(k), k)})
		}
		list = append(list, importer.Object(ms))
	}
	args = append(args, importer.Member{Name: "attachments", Value: importer.Tuple(list)})
	var opts []importer.Member
	o := p.Get("otherOptions")
	for _, k := range keysOf(o) {
		if !slices.Contains(slackV1Options, k) {
			n.Problem(node.where, o.Get(k), "Unsupported option", fmt.Sprintf("the option %s of Post is not one n8n's node v1 has.", k))
			return nil
		}
		opts = append(opts, importer.Member{Name: k, Value: s.value(o.Get(k), k)})
		// With an access token, n8n sends Send As User as the sender's
		// name too, when it is not "".
		if k == "sendAsUser" && call.cred == "slackApi" {
			v := o.Get(k)
			if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
				n.Problem(node.where, v, "Unsupported expression", "Send As User is converted when it is written out: n8n sends an expression's null as the sender's name, and leaves out its empty text.")
				return nil
			}
			if v.Str != "" {
				args = append(args, importer.Member{Name: "username", Value: s.value(v, "username")})
			}
		}
	}
	if opts != nil {
		args = append(args, importer.Member{Name: "other_options", Value: importer.Object(opts)})
	}
	call.args = args
	return n.appStep(node, in, s, call)
}

// orList is the elements of v, a list, or none when the node leaves it
// out.
func orList(v *importer.JV) []*importer.JV {
	if v == nil {
		return nil
	}
	return v.Arr
}
