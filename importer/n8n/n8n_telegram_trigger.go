package n8n

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// telegramTriggerNode is the Telegram Trigger: Telegram posts each update
// to the webhook n8n sets with setWebhook, at /webhook/ID/webhook, and the
// node's item is the update as Telegram posts it. It becomes a webhook
// trigger at that path whose request body is the input update; without
// it, as when another trigger starts the flow, no item. From v1.2 the
// node drops updates whose message's chat (or sender) is not one of
// Restrict to Chat IDs (User IDs): no item either.
//
// n8n registers the webhook itself, with a secret token it checks in the
// X-Telegram-Bot-Api-Secret-Token header (from v1.1). A flowctl webhook
// checks signatures, not a shared token, so the trigger verifies nothing,
// with the warning every unverified webhook has, and the user registers
// it (Next says how).
func (n *n8n) telegramTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	if p.Boolean(false, "additionalFields", "download") {
		n.Problem(node.where, p.Get("additionalFields", "download"), "Unsupported option",
			"Download Images/Files (the update's file as binary data) is not converted; the trigger gives the update's JSON.")
		return nil
	}
	id := node.j.Text("webhookId")
	if id == "" || strings.ContainsAny(id, "{}? #%/") {
		id = importer.Snake(node.name)
	}
	w := &n8nWebhook{node: node, mode: "onReceived", methods: []string{"POST"}, path: "/webhook/" + id + "/webhook"}
	w.input = n.Name("input", node.name+" update", "update")
	w.inputs = importer.Code(fmt.Sprintf("{ %s = request.body }", w.input))
	b := hclwrite.NewBlock("input", []string{w.input})
	b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
	b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The Telegram update n8n node %q starts the flow with, as Telegram posts it to the webhook; none when another trigger starts the flow", node.name)))
	n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
	n.webhooks = append(n.webhooks, w)

	var updates []string
	for _, u := range p.Get("updates").Items() {
		if u.Kind == 's' && u.Str != "*" {
			updates = append(updates, u.Str)
		}
	}
	allowed, _ := json.Marshal(append([]string{}, updates...))
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: an update Telegram posts to %s, given as the input %s (without it, as when another trigger starts the flow, it gives no item).", n.nodeComment(node), w.path, w.input))
	n.File.Next = append(n.File.Next, fmt.Sprintf(
		"register the webhook of n8n node %q with Telegram, as n8n does when it activates the workflow: POST https://api.telegram.org/botTOKEN/setWebhook with {\"url\": \"https://YOUR-SERVER%s\", \"allowed_updates\": %s}.",
		node.name, w.path, allowed))

	r := "input." + w.input
	var keep []string
	if node.version >= 1.2 {
		for _, f := range []struct{ key, path string }{{"chatIds", "chat"}, {"userIds", "from"}} {
			ids := p.Text("additionalFields", f.key)
			if v := p.Get("additionalFields", f.key); v != nil && v.Kind == 's' && strings.HasPrefix(v.Str, "=") {
				n.Problem(node.where, v, "Unsupported expression", "Restrict to Chat IDs and User IDs are converted when they are literals.")
				return nil
			}
			if ids == "" {
				continue
			}
			var list []importer.Expr
			for _, id := range strings.Split(ids, ",") {
				list = append(list, importer.Str(strings.TrimSpace(id)))
			}
			// n8n compares String(update.message?.chat?.id): "undefined"
			// when the update has no message.
			keep = append(keep, fmt.Sprintf("contains(%s, try(tostring(%s.message.%s.id), \"undefined\"))",
				strings.TrimSpace(string(importer.Tuple(list).Bytes())), r, f.path))
		}
	}
	cond := r + " != null"
	for _, k := range keep {
		cond += " && " + k
	}
	if len(keep) > 0 {
		// && does not stop at a null in HCL: each test must hold for null.
		cond = fmt.Sprintf("(%s == null ? false : %s)", r, strings.Join(keep, " && "))
	}
	return []n8nItems{{e: importer.Code(fmt.Sprintf("(%s ? [%s] : [])", cond, r))}}
}
