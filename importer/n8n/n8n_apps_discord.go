package n8n

import (
	"fmt"
	"slices"

	"github.com/flowctl/flowctl/importer"
)

// discordWebhookOptions are the options of Send a Message through a
// webhook (sendLegacy.operation.js), which n8n sends as the body's
// fields (flags as prepareOptions reads them, wait in the query).
var discordWebhookOptions = []string{"avatar_url", "flags", "tts", "username", "wait"}

// discordNode is the Discord node v2 with the connection type Webhook:
// Send a Message, a flow of the registry called once for each item as
// n8n calls the webhook for each item, the credential's webhook URL its
// secret. The bot token and OAuth2 connections (channels, members,
// messages by the API) are not converted.
func (n *n8n) discordNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if node.version < 2 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version",
			"Discord v2 is converted; v1 posts to a webhook URL written in the node, with retries of its own.")
		return nil
	}
	if auth := p.Get("authentication"); auth == nil || auth.Kind != 's' || auth.Str != "webhook" {
		n.Problem(node.where, orParams(auth, node), "Unsupported parameter",
			"Discord is converted with the connection type Webhook (Send a Message); a bot token's or OAuth2's (channels, members, messages through the API) is not.")
		return nil
	}
	// n8n's router makes the resource webhook whatever the node holds.
	op := p.Text("operation")
	if op != "" && op != "sendLegacy" {
		n.Problem(node.where, p.Get("operation"), "Unsupported operation", fmt.Sprintf("the Discord node's webhook %s operation is not converted; webhook sendLegacy (Send a Message) is.", op))
		return nil
	}
	for _, k := range []string{"embeds", "files"} {
		if v := p.Get(k); v != nil && len(v.Items("values")) > 0 {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("Send a Message's %s are not converted (n8n's prepareEmbeds, binary files); its content and options are.", k))
			return nil
		}
	}
	s := n.appScope(node, in)
	var opts []importer.Member
	o := p.Get("options")
	for _, k := range keysOf(o) {
		if !slices.Contains(discordWebhookOptions, k) {
			n.Problem(node.where, o.Get(k), "Unsupported option", fmt.Sprintf("the option %s of Send a Message is not one n8n's node has.", k))
			return nil
		}
		if v := o.Get(k); k == "flags" && v.Kind != 'a' {
			n.Problem(node.where, v, "Unsupported expression", "Send a Message's flags are converted when they are a list written out (n8n reads a text's length and characters otherwise).")
			return nil
		}
		opts = append(opts, importer.Member{Name: k, Value: s.value(o.Get(k), k)})
	}
	args := []importer.Member{{Name: "content", Value: s.value(orText(p.Get("content"), ""), "content")}}
	if len(opts) > 0 {
		args = append(args, importer.Member{Name: "options", Value: importer.Object(opts)})
	}
	return n.appStep(node, in, s, appCall{flow: "discord_webhook_message_send", cred: "discordWebhookApi", what: "sends the message through the webhook", args: args})
}
