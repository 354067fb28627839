package n8n

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The Webhook node and Respond to Webhook: a webhook trigger of the flow
// (served by flowctl serve) whose request is the input request, and
// whose answer is what n8n's Respond mode says: at once (respond =
// "accepted"), the run's outputs (the Last Node mode), or the Respond to
// Webhook node's body as an output of the flow (respond = output.NAME).

// n8nWebhook is a Webhook node that starts the flow, and the trigger it
// becomes once every node is converted.
type n8nWebhook struct {
	node    *n8nNode
	input   string   // the input that takes the request
	methods []string // one trigger for each
	path    string
	mode    string        // n8n's responseMode: onReceived, lastNode, responseNode
	inputs  importer.Expr // the trigger's inputs
	// Last Node's options: the property of the item it answers with
	// (a lodash path, split at its dots), and the answer's content type.
	property    []string
	contentType string
	// An app's trigger (n8n_hooks.go): the signature its trigger
	// verifies with its secret, and its when (nil: every request).
	verify, secret string
	when           importer.Expr
	// header is the secret of the header's name (verify = "header").
	header string
}

// n8nResponse is what a Respond to Webhook node answers: the output of
// the flow and its content type.
type n8nResponse struct {
	node        *n8nNode
	output      string
	contentType string
	body, in    importer.Expr // the body, and the items that come to the node
}

// propertyNamePath is a property path the Webhook's Property Name converts:
// names joined by dots (lodash's get reads brackets too, which do not).
var propertyNamePath = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)

// webhookMethods are the methods a flowctl webhook serves.
var webhookMethods = []string{"GET", "POST", "PUT", "PATCH"}

// webhookNode is the flow's start for a request: the input request is
// n8n's item {headers, params, query, body}, as the trigger gives it;
// without it, as when another trigger starts the flow, the node gives no
// item.
func (n *n8n) webhookNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	w := &n8nWebhook{node: node, mode: p.Text("responseMode")}
	if w.mode == "" {
		w.mode = "onReceived"
	}
	if !n.webhookAuth(node, w) {
		return nil
	}
	switch m := p.Get("httpMethod"); {
	case m == nil:
		w.methods = []string{"GET"} // n8n's default
	case m.Kind == 'a':
		for _, e := range m.Arr {
			w.methods = append(w.methods, strings.ToUpper(e.Str))
		}
	default:
		w.methods = []string{strings.ToUpper(m.Str)}
	}
	for _, m := range w.methods {
		if !slices.Contains(webhookMethods, m) {
			n.Problem(node.where, p.Get("httpMethod"), "Unsupported webhook method",
				fmt.Sprintf("a flowctl webhook serves %s; not %s.", strings.Join(webhookMethods, ", "), m))
			return nil
		}
	}
	path := strings.Trim(p.Text("path"), "/")
	if path == "" {
		path = node.j.Text("webhookId")
	}
	if path == "" || strings.ContainsAny(path, "{}? #%") || strings.HasPrefix(path, "=") {
		n.Problem(node.where, p.Get("path"), "Unsupported webhook path",
			"the path is served under /webhook/ as n8n serves it: it is a literal without spaces, braces, \"?\", \"#\" or \"%\".")
		return nil
	}
	w.path = "/webhook/" + path
	switch w.mode {
	case "onReceived", "lastNode", "responseNode":
	default:
		n.Problem(node.where, p.Get("responseMode"), "Unsupported webhook response",
			fmt.Sprintf("the Respond mode %q is not converted: Immediately, When Last Node Finishes and Using 'Respond to Webhook' Node are.", w.mode))
		return nil
	}
	if o := p.Get("options"); o != nil {
		for _, k := range o.Keys {
			switch k {
			case "rawBody", "binaryData", "binaryPropertyName":
				if n.bodyFileUnread(node, k, o.Get(k)) {
					continue
				}
				n.Problem(node.where, o.Get(k), "Unsupported webhook option",
					fmt.Sprintf("the option %s (the request's body as a binary file) is not converted.", k))
				return nil
			case "responsePropertyName", "responseContentType":
				if w.mode != "lastNode" {
					break // n8n reads them only when the last node answers
				}
				v := o.Get(k)
				if v.Kind != 's' || strings.HasPrefix(v.Str, "=") || k == "responsePropertyName" && !propertyNamePath.MatchString(v.Str) {
					n.Problem(node.where, v, "Unsupported webhook option",
						fmt.Sprintf("the option %s converts when it is a literal (a property name, or names joined by dots).", k))
					return nil
				}
				if k == "responseContentType" {
					w.contentType = v.Str
				} else {
					w.property = strings.Split(v.Str, ".")
				}
				continue
			}
			n.Warn(node.where, o.Get(k), "Webhook option left out",
				fmt.Sprintf("the option %s is not converted; the trigger answers as its respond says.", k))
		}
	}
	w.input = n.Name("input", node.name+" request", "request")
	w.inputs = importer.Code(fmt.Sprintf("{ %s = { headers = request.headers, params = {}, query = request.query, body = request.body } }", w.input))
	b := hclwrite.NewBlock("input", []string{w.input})
	b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
	b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The item of n8n node %q: the request's headers, query and body, as its trigger gives them; none when another trigger starts the flow", node.name)))
	n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
	n.webhooks = append(n.webhooks, w)
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: a request to %s, given as the input %s (without it, as when another trigger starts the flow, it gives no item).", n.nodeComment(node), w.path, w.input))
	r := "input." + w.input
	return []n8nItems{{e: importer.Code(fmt.Sprintf("(%s == null ? [] : [%s])", r, r))}}
}

// respondNode is Respond to Webhook: an output of the flow, the body n8n
// answers with, that the webhook's trigger responds with; its items pass
// on unchanged.
func (n *n8n) respondNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	errs := n.errorCount()
	s := n.scope(node, in, false)
	first := importer.Index(in.e, 0)
	r := &n8nResponse{node: node}
	var body importer.Expr
	switch with := p.Text("respondWith"); with {
	case "", "firstIncomingItem":
		body = first
	case "allIncomingItems":
		body = importer.Clone(in.e)
	case "json":
		if body = n.jsonParam(s, node, p.Get("responseBody"), "responseBody"); body == nil {
			if p.Get("responseBody") != nil {
				return nil
			}
			body = importer.Code("null")
		}
	case "text":
		body = s.textValue(p.Get("responseBody"), "responseBody")
		// n8n sends a string as Express does: HTML.
		r.contentType = "text/html; charset=utf-8"
	case "noData":
		body, r.contentType = importer.Str(""), "text/plain; charset=utf-8"
	case "binary":
		n.Problem(node.where, p.Get("respondWith"), "Unsupported response",
			"Respond With Binary File is not converted: n8n answers with the file's bytes, and a webhook's trigger answers with an output's value as text or JSON, not bytes.")
		return nil
	default:
		n.Problem(node.where, p.Get("respondWith"), "Unsupported response",
			fmt.Sprintf("Respond With %q is not converted: First Incoming Item, All Incoming Items, JSON, Text and No Data are.", with))
		return nil
	}
	opts := p.Get("options")
	if key := opts.Text("responseKey"); key != "" {
		parts := strings.Split(key, ".")
		for i := len(parts) - 1; i >= 0; i-- {
			body = importer.Object([]importer.Member{{Name: parts[i], Value: body}})
		}
	}
	if c := opts.Get("responseCode"); c != nil && c.Kind == 'n' && c.Number(200) != 200 {
		n.Warn(node.where, c, "Response code left out",
			fmt.Sprintf("n8n answers with %s; the webhook's trigger answers 200 with the body.", c.Num))
	}
	for _, h := range opts.Items("responseHeaders", "entries") {
		name, v := strings.ToLower(h.Text("name")), h.Get("value")
		if name == "content-type" && v != nil && v.Kind == 's' && !strings.HasPrefix(v.Str, "=") {
			r.contentType = v.Str
			continue
		}
		n.Warn(node.where, h, "Response header left out",
			fmt.Sprintf("the header %q is not sent: a webhook's trigger sends its body with its content type and the run's ID.", h.Text("name")))
	}
	s.flush()
	if n.errorCount() > errs {
		return nil
	}
	r.body, r.in = body, in.e
	n.responses = append(n.responses, r)
	return []n8nItems{pairedWith(in.e, in, nil)}
}

// writeTriggers writes a trigger for each method of each Webhook node
// and for the Chat Trigger, once every node is converted (order).
func (n *n8n) writeTriggers(order []*n8nNode) {
	// Each Respond node's body is an output, null when no item comes to
	// it (its branch is not taken); when several answer, the one whose
	// branch is taken.
	var answer importer.Expr = importer.Code("null")
	for _, r := range n.responses {
		body := importer.Join("length(", r.in, ") > 0 ? ", r.body, " : null")
		r.output = n.Name("output", r.node.name+" body", "response")
		b := hclwrite.NewBlock("output", []string{r.output})
		b.Body().SetAttributeRaw("value", importer.Clone(body))
		b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The body n8n node %q answers the webhook with (null when no item comes to it)", r.node.name)))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Comment: []string{n.nodeComment(r.node)}, Block: b})
	}
	for i := len(n.responses) - 1; i >= 0; i-- {
		r := n.responses[i]
		answer = importer.Join("length(", r.in, ") > 0 ? ", r.body, " : (", answer, ")")
	}
	var answerOutput string
	if len(n.responses) > 1 {
		answerOutput = n.Name("output", "webhook answer", "answer")
		b := hclwrite.NewBlock("output", []string{answerOutput})
		b.Body().SetAttributeRaw("value", importer.Clone(answer))
		b.Body().SetAttributeValue("description", cty.StringVal("The body of the Respond to Webhook node whose branch the run takes (the first that items come to)"))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: b})
	}
	for _, w := range n.webhooks {
		respond := importer.Str("accepted")
		var contentType string
		switch w.mode {
		case "lastNode":
			respond, contentType = n.lastReply(order, w.node, w.property...), w.contentType
		case "responseNode":
			if len(n.responses) == 0 {
				if respond = n.noResponder(w); respond == nil {
					return
				}
				contentType = emptyAnswerType
				break
			}
			respond, contentType = importer.Ref("output", n.responses[0].output), n.responses[0].contentType
			if answerOutput != "" {
				respond = importer.Ref("output", answerOutput)
			}
			for _, r := range n.responses[1:] {
				if r.contentType != contentType {
					n.Problem(w.node.where, w.node.params.Get("responseMode"), "Several Respond to Webhook nodes",
						fmt.Sprintf("the Respond to Webhook nodes %q and %q answer with different content types; a trigger answers with one.", n.responses[0].node.name, r.node.name))
					return
				}
			}
		}
		for _, m := range w.methods {
			name := w.node.name
			if len(w.methods) > 1 {
				name += " " + strings.ToLower(m)
			}
			n.webhookTrigger(w.node, name, w.path, m, w.inputs, respond, contentType, w)
		}
	}
	if c := n.chatTrigger; c != nil && c.typ != "manualChatTrigger" && len(n.chatInputs) == 2 {
		if m := c.params.Text("options", "responseMode"); m != "" && m != "lastNode" {
			n.Warn(c.where, c.params.Get("options", "responseMode"), "Chat answers with the last node",
				fmt.Sprintf("the response mode %q is not converted: the trigger answers with the last node's first item, as n8n's default.", m))
		}
		id := c.j.Text("webhookId")
		if id == "" || strings.ContainsAny(id, "{}? #%/") {
			id = importer.Snake(c.name)
		}
		inputs := importer.Code(fmt.Sprintf("{ %s = request.body.chatInput, %s = request.body.sessionId }", n.chatInputs[0], n.chatInputs[1]))
		n.webhookTrigger(c, c.name, "/webhook/"+id+"/chat", "POST", inputs, n.lastReply(order, c), "", nil)
	}
}

// webhookTrigger writes a webhook trigger that verifies nothing, as n8n's
// webhook does not, with a warning that says so; or, for an app's
// trigger (w), the signature n8n checks.
func (n *n8n) webhookTrigger(node *n8nNode, name, path, method string, inputs, respond importer.Expr, contentType string, w *n8nWebhook) {
	verify := "none"
	if w != nil && w.verify != "" {
		verify = w.verify
	}
	if verify == "none" {
		n.Warn(node.where, node.j, "Webhook without verification",
			fmt.Sprintf("the trigger of %s %s says verify = \"none\", as n8n checks nothing: any request to it starts a run.", method, path))
	}
	b := hclwrite.NewBlock("trigger", []string{n.Name("trigger", name, "webhook")})
	wb := b.Body().AppendNewBlock("webhook", nil).Body()
	wb.SetAttributeValue("path", cty.StringVal(path))
	wb.SetAttributeValue("method", cty.StringVal(method))
	wb.SetAttributeValue("verify", cty.StringVal(verify))
	if verify != "none" {
		wb.SetAttributeRaw("secret", importer.Clone(importer.Ref("secret", w.secret)))
		if verify == "header" {
			wb.SetAttributeRaw("header", importer.Clone(webhookHeader(w)))
		}
		if verify == "stripe" {
			wb.SetAttributeValue("tolerance", cty.StringVal("5m")) // n8n's TIMESTAMP_TOLERANCE_SECONDS
		}
	}
	b.Body().SetAttributeRaw("inputs", importer.Clone(inputs))
	if w != nil && w.when != nil {
		b.Body().SetAttributeRaw("when", importer.Clone(w.when))
	}
	b.Body().SetAttributeRaw("respond", importer.Clone(respond))
	if contentType != "" {
		b.Body().SetAttributeValue("content_type", cty.StringVal(contentType))
	}
	n.File.Triggers = append(n.File.Triggers, importer.Decl{Comment: []string{n.nodeComment(node)}, Block: b})
}

// lastReply is what n8n answers when the last node finishes: that node's
// first item (its property at path, the Webhook's Property Name), an
// output of the flow. When several nodes end the flow, the trigger
// answers with the run's outputs, with a warning.
func (n *n8n) lastReply(order []*n8nNode, trigger *n8nNode, path ...string) importer.Expr {
	var last []*n8nNode
	for _, node := range order {
		if isTrigger(node) || node.items == nil || node.typ == "stopAndError" || node.sub {
			continue
		}
		leaf := true
		for _, out := range node.outs {
			if len(out) > 0 {
				leaf = false
			}
		}
		if leaf {
			last = append(last, node)
		}
	}
	if len(last) != 1 {
		n.Warn(trigger.where, trigger.params, "Webhook answers with the outputs",
			fmt.Sprintf("n8n answers with the first item of the node that ends the run; %d nodes end this flow, so the trigger answers with the run's ID, status and outputs (their items).", len(last)))
		return importer.Str("outputs")
	}
	name := n.Name("output", last[0].name+" reply", "reply")
	b := hclwrite.NewBlock("output", []string{name})
	at := []any{0}
	for _, p := range path {
		at = append(at, p)
	}
	b.Body().SetAttributeRaw("value", importer.Clone(importer.Index(last[0].items[0].e, at...)))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The first item of n8n node %q, which %q answers with when the run ends", last[0].name, trigger.name)))
	n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: b})
	return importer.Ref("output", name)
}

// cronNode is the Cron node (the Schedule Trigger before it): a schedule
// block for each of its trigger times, as n8n's toCronExpression makes
// them, and one empty item, as the node emits.
func (n *n8n) cronNode(node *n8nNode, _ n8nItems) []n8nItems {
	times := node.params.Items("triggerTimes", "item")
	if len(times) == 0 {
		n.Problem(node.where, node.params, "Missing trigger times", "the Cron node has no trigger time, so n8n never runs it.")
		return nil
	}
	tz := n.scheduleTimezone(node, false)
	for i, t := range times {
		cron, ok := n.cronTime(node, t)
		if !ok {
			return nil
		}
		b := hclwrite.NewBlock("schedule", []string{n.Name("schedule", node.name+fmt.Sprintf(" %d", i+1), "schedule")})
		b.Body().SetAttributeValue("cron", cty.StringVal(cron))
		if tz != "" {
			b.Body().SetAttributeValue("timezone", cty.StringVal(tz))
		}
		n.File.Schedules = append(n.File.Schedules, importer.Decl{Comment: []string{fmt.Sprintf("%s, trigger time %d", n.nodeComment(node), i+1)}, Block: b})
	}
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow on its schedules: one empty item.", n.nodeComment(node)))
	return []n8nItems{{e: importer.Code("[{}]")}}
}

// cronTime is the cron expression of a Cron node's trigger time (n8n's
// defaults: every day at 14:00; Every X: 2 hours). n8n picks a random
// second, and for Every X hours a random minute: the flow runs at minute 0.
func (n *n8n) cronTime(node *n8nNode, t *importer.JV) (string, bool) {
	for _, k := range t.Keys {
		if v := t.Get(k); v.Kind == 's' && strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "a Cron trigger time is converted as a literal; write the value instead of an expression.")
			return "", false
		}
	}
	num := func(key string, def int) string {
		if v := t.Get(key); v != nil && v.Kind == 's' {
			return v.Str
		}
		return fmt.Sprint(int(t.Number(float64(def), key)))
	}
	minute, hour := num("minute", 0), num("hour", 14)
	switch mode := t.Text("mode"); mode {
	case "everyMinute":
		return "* * * * *", true
	case "everyHour":
		return minute + " * * * *", true
	case "", "everyDay":
		return minute + " " + hour + " * * *", true
	case "everyWeek":
		return minute + " " + hour + " * * " + num("weekday", 1), true
	case "everyMonth":
		return minute + " " + hour + " " + num("dayOfMonth", 1) + " * *", true
	case "everyX":
		if t.Text("unit") == "minutes" {
			return "*/" + num("value", 2) + " * * * *", true
		}
		return "0 */" + num("value", 2) + " * * *", true
	case "custom":
		expr := t.Text("cronExpression")
		if expr == "" && t.Get("cronExpression") == nil {
			expr = "* * * * * *"
		}
		f := strings.Fields(expr)
		switch {
		case len(f) == 5:
			return strings.Join(f, " "), true
		case len(f) == 6 && strings.Trim(f[0], "0123456789") == "" && f[0] != "":
			// One second of each minute: the minute is what counts.
			return strings.Join(f[1:], " "), true
		}
		n.Problem(node.where, t.Get("cronExpression"), "Unsupported cron expression",
			fmt.Sprintf("a schedule's cron has five fields (minute to day of week); %q has %d (a first field of seconds converts when it is one second).", expr, len(f)))
		return "", false
	default:
		n.Problem(node.where, t.Get("mode"), "Unsupported cron mode", fmt.Sprintf("the Cron mode %q is not one n8n has.", mode))
		return "", false
	}
}

// formTriggerNode is the Form Trigger: a webhook trigger at n8n's form
// URL whose request body (the form's fields by label, as a browser posts
// them) is the input form; the item is those fields and formMode, as
// n8n's; without it, as when another trigger starts the flow, no item.
func (n *n8n) formTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	if n.tooOld(node, "Form Trigger", 2) {
		return nil
	}
	w := &n8nWebhook{node: node, mode: p.Text("responseMode"), methods: []string{"POST"}}
	if w.mode == "" {
		w.mode = "onReceived"
	}
	switch w.mode {
	case "onReceived", "lastNode", "responseNode":
	default:
		n.Problem(node.where, p.Get("responseMode"), "Unsupported webhook response",
			fmt.Sprintf("the Respond When %q is not converted: Form Is Submitted, Workflow Finishes and Using 'Respond to Webhook' Node are.", w.mode))
		return nil
	}
	for _, f := range p.Items("formFields", "values") {
		switch t := f.Text("fieldType"); t {
		case "file":
			n.Problem(node.where, f, "Unsupported form field", fmt.Sprintf("the field %q is a file, which the flow's webhook does not take (it reads a form's fields as text).", f.Text("fieldLabel")))
			return nil
		case "number":
			n.Warn(node.where, f, "Form field as text", fmt.Sprintf("the field %q comes as the text the form posts; n8n gives a number.", f.Text("fieldLabel")))
		}
	}
	path := strings.Trim(p.Text("path"), "/")
	if path == "" {
		path = node.j.Text("webhookId")
	}
	if path == "" || strings.ContainsAny(path, "{}? #%") || strings.HasPrefix(path, "=") {
		n.Problem(node.where, p.Get("path"), "Unsupported webhook path",
			"the form's path is served under /form/ as n8n serves it: it is a literal without spaces, braces, \"?\", \"#\" or \"%\".")
		return nil
	}
	w.path = "/form/" + path
	n.Warn(node.where, node.j, "Form item without submission time",
		"the item has the form's fields and formMode, not n8n's submittedAt; the trigger takes the form's posted fields and serves no form page.")
	w.input = n.Name("input", node.name+" form", "form")
	w.inputs = importer.Code(fmt.Sprintf("{ %s = request.body }", w.input))
	b := hclwrite.NewBlock("input", []string{w.input})
	b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
	b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The fields of the form of n8n node %q by label, as its trigger gives them; none when another trigger starts the flow", node.name)))
	n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
	n.webhooks = append(n.webhooks, w)
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: a form posted to %s, given as the input %s (without it, as when another trigger starts the flow, it gives no item).", n.nodeComment(node), w.path, w.input))
	r := "input." + w.input
	return []n8nItems{{e: importer.Code(fmt.Sprintf(`(%s == null ? [] : [merge(%s, { formMode = "production" })])`, r, r))}}
}
