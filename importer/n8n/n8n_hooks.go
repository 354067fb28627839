package n8n

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The app triggers a service calls as a webhook (n8n-nodes-base's
// *Trigger.node.js): n8n serves each at /webhook/WEBHOOKID/webhook (their
// description's path "webhook", POST, answered at once) and registers it
// at the service when it activates the workflow (webhookMethods). Each
// becomes a webhook trigger at that path, answering "accepted", whose
// request is an input and, as the node's webhook() method makes it, the
// node's one item; the signature n8n checks is the trigger's verify, and
// the events n8n drops its when. flowctl registers nothing: a warning and
// import's next steps say what to register (the URL, the events).

// appHook is what an app trigger's webhook() does.
type appHook struct {
	app string
	// verify is the signature n8n checks (flowctl's verify), secret what
	// the secret is, for its description.
	verify, secret string
	// item is the node's item, an HCL expression of request.
	item string
	// eventOf is where n8n reads the event it filters on (an expression of
	// request), "" when it filters none: the service sends only the
	// events registered.
	eventOf string
	// many: the body is a list of items (n8n's returnJsonArray of it), or
	// one.
	many bool
	// events is the parameter of the events registered ("events" when
	// empty): a list, or one event.
	events string
}

// appHooks are the app triggers converted, by node type.
var appHooks = map[string]appHook{
	// GithubTrigger: verifySignature (X-Hub-Signature-256 with the
	// secret n8n gave the hook), a ping (hook_id without action) starts
	// nothing, the item {body, headers, query}. GitHub sends the events
	// the hook has.
	"githubTrigger": {app: "GitHub", verify: "github", secret: "the secret of the GitHub webhook, which signs its deliveries (X-Hub-Signature-256)",
		item: "{ body = request.body, headers = request.headers, query = request.query }"},
	// StripeTrigger: verifySignature (Stripe-Signature, 5 minutes), then
	// only the body's type among the events; the item is the event.
	"stripeTrigger": {app: "Stripe", verify: "stripe", secret: "the signing secret of the Stripe webhook endpoint (whsec_…)",
		item: "request.body", eventOf: "request.body.type", many: true},
	// ChargebeeTrigger: no check; only the body's event_type among the
	// events. The items of a body are n8n's returnJsonArray of it: each
	// element of a list, or the body (many).
	"chargebeeTrigger": {app: "Chargebee", verify: "none", item: "request.body", eventOf: "request.body.event_type", many: true},
	// PostmarkTrigger: no check, the body.
	"postmarkTrigger": {app: "Postmark", verify: "none", item: "request.body", many: true},
	// JiraTrigger v1 without incoming authentication: no check, the body
	// with the query's fields merged into it (Object.assign).
	"jiraTrigger": {app: "Jira", verify: "none", item: "merge(request.body, request.query)"},
	// TwilioTrigger: no check; an Event Streams webhook sink posts a list
	// of events, each an item (returnJsonArray of the body). Twilio sends
	// the event types subscribed.
	"twilioTrigger": {app: "Twilio", verify: "none", item: "request.body", many: true, events: "updates"},
	// GitlabTrigger: no check, the item {body, headers, query}.
	"gitlabTrigger": {app: "GitLab", verify: "none", item: "{ body = request.body, headers = request.headers, query = request.query }"},
	// NetlifyTrigger: no check, the body, or its data for a form's
	// submission simplified (netlifyItem).
	"netlifyTrigger": {app: "Netlify", verify: "none", item: "request.body", many: true, events: "event"},
}

// appHookNode converts an app trigger of appHooks.
func (n *n8n) appHookNode(node *n8nNode, _ n8nItems) []n8nItems {
	h := appHooks[node.typ]
	p := node.params
	if node.version != 1 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version",
			fmt.Sprintf("the %s Trigger converts as version 1, what n8n 2.8.4 has; this is %v.", h.app, node.version))
		return nil
	}
	if node.typ == "jiraTrigger" {
		if a := p.Text("incomingAuthentication"); a != "" && a != "none" {
			n.Problem(node.where, p.Get("incomingAuthentication"), "Unsupported webhook authentication",
				"n8n's Jira Trigger compares a query parameter with a fixed credential; a flowctl webhook verifies a signature of the body.")
			return nil
		}
	}
	var events []string
	param := "events"
	if h.events != "" {
		param = h.events
	}
	if e := p.Get(param); e != nil && e.Kind == 's' && param == "event" && !strings.HasPrefix(e.Str, "=") {
		events = []string{e.Str}
	} else if e != nil {
		if e.Kind != 'a' {
			n.Problem(node.where, e, "Unsupported expression", fmt.Sprintf("the %s Trigger's events are converted when they are a list of literals.", h.app))
			return nil
		}
		for _, v := range e.Arr {
			if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
				n.Problem(node.where, v, "Unsupported expression", fmt.Sprintf("the %s Trigger's events are converted when they are literals.", h.app))
				return nil
			}
			events = append(events, v.Str)
		}
	}
	id := node.j.Text("webhookId")
	if id == "" || strings.ContainsAny(id, "{}? #%/") {
		id = importer.Snake(node.name)
	}
	w := &n8nWebhook{node: node, mode: "onReceived", methods: []string{"POST"}, path: "/webhook/" + id + "/webhook", verify: h.verify}
	if h.verify != "none" {
		w.secret = n.AddSecret(node.name+" secret", fmt.Sprintf("%s (n8n node %q)", h.secret, node.name), "")
	}
	w.when = hookWhen(node.typ, h, events)
	item := h.item
	if node.typ == "netlifyTrigger" && p.Text("event") == "submissionCreated" && p.Boolean(true, "simple") {
		item = "request.body.data"
	}
	w.input = n.Name("input", node.name+" event", "event")
	w.inputs = importer.Code(fmt.Sprintf("{ %s = %s }", w.input, item))
	b := hclwrite.NewBlock("input", []string{w.input})
	b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
	b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The item of n8n node %q, from the request %s posts to its webhook; none when another trigger starts the flow", node.name, h.app)))
	n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
	n.webhooks = append(n.webhooks, w)

	what := "every event"
	if len(events) > 0 && !slices.Contains(events, "*") {
		what = "the events " + strings.Join(events, ", ")
	}
	where := ""
	if node.typ == "githubTrigger" || node.typ == "gitlabTrigger" {
		if o, r := rlText(p.Get("owner")), rlText(p.Get("repository")); o != "" && r != "" {
			where = " for the repository " + o + "/" + r
		}
	}
	register := fmt.Sprintf("register https://YOUR-SERVER%s at %s%s for %s", w.path, h.app, where, what)
	if w.secret != "" {
		register += fmt.Sprintf(", with the secret you set as secret.%s", w.secret)
	}
	if node.typ == "githubTrigger" {
		register += " (content type application/json)"
	}
	n.Warn(node.where, node.j, "Webhook registered by hand",
		fmt.Sprintf("n8n registers this webhook at %s when it activates the workflow; flowctl does not: %s.", h.app, register))
	n.File.Next = append(n.File.Next, fmt.Sprintf("for n8n node %q, %s.", node.name, register))
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: a request %s posts to %s, given as the input %s (without it, as when another trigger starts the flow, it gives no item).", n.nodeComment(node), h.app, w.path, w.input))
	r := "input." + w.input
	if h.many {
		return []n8nItems{{e: importer.Code(fmt.Sprintf("(%s == null ? [] : flatten([%s]))", r, r))}}
	}
	return []n8nItems{{e: importer.Code(fmt.Sprintf("(%s == null ? [] : [%s])", r, r))}}
}

// hookWhen is the when of an app trigger: the requests n8n starts a run
// for (nil: all).
func hookWhen(typ string, h appHook, events []string) importer.Expr {
	all := len(events) == 0 || slices.Contains(events, "*")
	var list []importer.Expr
	for _, e := range events {
		list = append(list, importer.Str(e))
	}
	in := func(of string) string {
		return fmt.Sprintf("contains(%s, %s)", strings.TrimSpace(string(importer.Tuple(list).Bytes())), of)
	}
	switch {
	case typ == "githubTrigger":
		// GitHub's ping has hook_id and no action: n8n answers it and
		// starts nothing. GitHub sends only the hook's events, and n8n
		// reads none; the event header says which.
		ping := "!(can(request.body.hook_id) && !can(request.body.action))"
		if all {
			return importer.Code(ping)
		}
		return importer.Code(in(`lookup(request.headers, "x-github-event", "")`) + " && " + ping)
	case h.eventOf == "":
		return nil
	case all:
		// An event without its type starts nothing.
		return importer.Code(fmt.Sprintf("can(%s)", h.eventOf))
	}
	return importer.Code(in(fmt.Sprintf(`try(%s, "")`, h.eventOf)))
}

// rlText is a parameter's text, or a resource locator's value.
func rlText(v *importer.JV) string {
	if v == nil {
		return ""
	}
	if v.Kind == 'o' {
		return v.Text("value")
	}
	return v.Text()
}
