package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// slackOps are the operations of the Slack node v2 (SlackV2.node.js)
// converted, by resource.
var slackOps = map[string][]string{
	"message": {"post"},
}

// slackNode is the Slack node v2: each operation a flow of the registry,
// called once for each item as n8n calls the Web API for each item, on
// the credential's token (an access token, or an OAuth2 one).
func (n *n8n) slackNode(node *n8nNode, in n8nItems) []n8nItems {
	if node.version < 2 {
		return n.slackV1Node(node, in)
	}
	if n.tooOld(node, "Slack", 2) {
		return nil
	}
	resource, op, ok := n.appOperation(node, "Slack", "message", "post", slackOps)
	if !ok {
		return nil
	}
	p := node.params
	call := appCall{cred: "slackApi"}
	// n8n reads any other authentication as OAuth2 (slackApiRequest).
	if a := p.Text("authentication"); a != "" && a != "accessToken" {
		call = appCall{cred: "slackOAuth2Api", oauth2: true}
	}
	s := n.appScope(node, in)
	switch resource + " " + op {
	case "message post":
		args, ok := n.slackPost(node, s, call.cred == "slackApi")
		if !ok {
			return nil
		}
		call.flow, call.what, call.args = "slack_message_post", "posts the message", args
	}
	return n.appStep(node, in, s, call)
}

// slackPost reads Send Message's parameters as n8n's getMessageContent
// and the post operation do: the channel or user, the text or the Block
// Kit message (with its text when there is one), and the other options.
func (n *n8n) slackPost(node *n8nNode, s *n8nScope, accessToken bool) ([]importer.Member, bool) {
	p := node.params
	var target importer.Expr
	switch sel := p.Text("select"); sel {
	case "channel":
		target = n.locatorValue(node, s, p.Get("channelId"), "channel", slackChannelURL, "")
	case "user":
		target = n.locatorValue(node, s, p.Get("user"), "user", nil, "@")
	default:
		n.Problem(node.where, p.Get("select"), "Unsupported option", fmt.Sprintf("Send Message To %q is not one n8n has: channel or user.", sel))
		return nil, false
	}
	if target == nil {
		return nil, false
	}
	args := []importer.Member{{Name: "channel", Value: target}}
	text := p.Get("text")
	if text == nil {
		text = &importer.JV{Kind: 's', Str: ""}
	}
	args = append(args, importer.Member{Name: "text", Value: s.textValue(text, "text")})
	switch mt := p.Text("messageType"); mt {
	case "", "text":
	case "block":
		blocks := p.Get("blocksUi")
		if blocks == nil {
			n.Problem(node.where, p, "Unsupported option", "a Blocks message without blocks is not converted.")
			return nil, false
		}
		args = append(args, importer.Member{Name: "blocks", Value: s.value(blocks, "blocks")})
	default:
		n.Problem(node.where, p.Get("messageType"), "Unsupported option", fmt.Sprintf("the message type %q is not converted; Simple Text Message and Blocks are.", mt))
		return nil, false
	}
	opts := p.Get("otherOptions")
	link := node.version >= 2.1
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		switch k {
		case "includeLinkToWorkflow":
			if v.Kind != 'b' {
				n.Problem(node.where, v, "Unsupported expression", "Include Link to Workflow is converted when it is true or false.")
				return nil, false
			}
			link = v.Bool
		case "mrkdwn", "link_names", "unfurl_links", "unfurl_media":
			args = append(args, importer.Member{Name: k, Value: s.value(v, k)})
		case "sendAsUser":
			// n8n sends it as username with an access token only.
			if accessToken && !(v.Kind == 's' && v.Str == "") {
				args = append(args, importer.Member{Name: "username", Value: s.textValue(v, "username")})
			}
		case "thread_ts":
			r := v.Get("replyValues")
			if ts := r.Get("thread_ts"); ts != nil && !(ts.Kind == 's' && ts.Str == "") {
				args = append(args, importer.Member{Name: "thread_ts", Value: s.textValue(ts, "thread_ts")})
			}
			if b := r.Get("reply_broadcast"); b != nil {
				args = append(args, importer.Member{Name: "reply_broadcast", Value: s.value(b, "reply_broadcast")})
			}
		case "botProfile":
			iv := v.Get("imageValues")
			if iv.Text("profilePhotoType") == "image" {
				args = append(args, importer.Member{Name: "icon_url", Value: s.textValue(iv.Get("icon_url"), "icon_url")})
			} else {
				args = append(args, importer.Member{Name: "icon_emoji", Value: s.textValue(iv.Get("icon_emoji"), "icon_emoji")})
			}
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of Send Message is not converted.", k))
			return nil, false
		}
	}
	if link {
		n.Warn(node.where, opts, "Link to the n8n workflow left out",
			"n8n ends the message with \"Automated with this n8n workflow\" and a link to the workflow on its instance (Include Link to Workflow is on unless turned off); the flow runs outside n8n, so the message has no such line.")
	}
	return args, true
}

// slackChannelURL is how n8n reads a channel given By URL.
var slackChannelURL = regexp.MustCompile(`https://app.slack.com/client/.*/([a-zA-Z0-9]{2,})`)

// locatorValue is the value of a resource locator parameter ({__rl,
// mode, value}; a plain value before n8n had them) as n8n's extractValue
// gives it: a URL's part that url matches (mode url), a name with prefix
// before it unless it has it (mode username), the value for the others.
func (n *n8n) locatorValue(node *n8nNode, s *n8nScope, v *importer.JV, path string, url *regexp.Regexp, prefix string) importer.Expr {
	if v == nil {
		n.Problem(node.where, node.params, "Missing parameter", fmt.Sprintf("the node has no %s; n8n fails on it too.", path))
		return nil
	}
	if v.Kind != 'o' {
		return s.textValue(v, path)
	}
	val := v.Get("value")
	if val == nil || val.Kind == 's' && strings.TrimPrefix(val.Str, "=") == "" {
		n.Problem(node.where, v, "Missing parameter", fmt.Sprintf("the node's %s is empty; n8n fails on it too.", path))
		return nil
	}
	switch mode := v.Text("mode"); mode {
	case "url":
		if url == nil || val.Kind != 's' || strings.HasPrefix(val.Str, "=") {
			n.Problem(node.where, val, "Unsupported option", fmt.Sprintf("a %s given by URL is converted when the URL is a literal.", path))
			return nil
		}
		m := url.FindStringSubmatch(val.Str)
		if m == nil {
			n.Problem(node.where, val, "Invalid value", fmt.Sprintf("the URL of the %s is not one n8n reads; n8n fails on it too.", path))
			return nil
		}
		return importer.Str(m[1])
	case "username":
		if prefix != "" {
			e := s.textValue(val, path)
			return importer.Join("startswith(", e, ", ", importer.Str(prefix), ") ? ", e, " : ", importer.Template([]importer.TPart{{Lit: prefix}, {Expr: e}}, false))
		}
	}
	return s.textValue(val, path)
}
