package n8n

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The email nodes: Send Email (emailSend) is an smtp step for each item,
// Email Trigger (IMAP) (emailReadImap) a schedule that runs the flow every
// minute and an imap step that receives the unseen emails and marks them
// seen. Their credentials are secrets, one for each field of it.

// mailAttributionText is what Send Email v2.1 and later adds to an email
// unless Append n8n Attribution is off (send.operation.js).
const (
	mailAttributionText = "This email was sent automatically with "
	mailAttributionLink = "https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.emailSend"
)

// mailSecrets are the secrets of an SMTP or IMAP credential: host, port,
// security, user, password, made once for each credential.
func (n *n8n) mailSecrets(node *n8nNode, credType string) []string {
	cred := node.j.Get("credentials", credType)
	credName := cred.Text("name")
	if cred != nil && cred.Kind == 's' { // v1's credentials name it alone
		credName = cred.Str
	}
	if credName == "" {
		credName = credType
	}
	key := credType + "\x00" + cred.Text("id") + "\x00" + credName
	if s, ok := n.creds[key]; ok {
		return s
	}
	of := fmt.Sprintf("of n8n credential %q (%s)", credName, credType)
	security := fmt.Sprintf("tls when SSL/TLS is on in n8n credential %q (%s), else none", credName, credType)
	port := "993"
	if credType == "smtp" {
		security = fmt.Sprintf("tls when SSL/TLS is on in n8n credential %q (smtp); else starttls, or none when Disable STARTTLS is on", credName)
		port = "465"
	}
	s := []string{
		n.AddSecret(credName+" host", "the host "+of, ""),
		n.AddSecret(credName+" port", "the port "+of+" ("+port+" unless it says otherwise)", ""),
		n.AddSecret(credName+" security", security, ""),
		n.AddSecret(credName+" user", "the user "+of, ""),
		n.AddSecret(credName+" password", "the password "+of, ""),
	}
	n.creds[key] = s
	return s
}

// setMailServer writes a mail step's server inputs from the secrets.
func setMailServer(body *hclwrite.Body, secrets []string) {
	for i, in := range []string{"host", "port", "security", "user", "password"} {
		v := importer.Ref("secret", secrets[i])
		if in == "port" {
			v = importer.Call("tonumber", v)
		}
		body.SetAttributeRaw(in, importer.Clone(v))
	}
}

// emailSendNode is Send Email v1 and v2's Send: an smtp step for each
// item, its parameters read as n8n reads them (v2: the Email Format's
// text and/or HTML, the attribution v2.1 appends unless told not to).
// Each item is nodemailer's answer as the smtp step gives it: accepted,
// rejected, envelope, messageId, response.
func (n *n8n) emailSendNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if op := p.Text("operation"); op != "" && op != "send" {
		n.Problem(node.where, p.Get("operation"), "Unsupported operation",
			fmt.Sprintf("the Send Email node's %s operation (send and wait for a response) is not converted; Send is.", op))
		return nil
	}
	v2 := node.version >= 2
	allowed := []string{"allowUnauthorizedCerts", "replyTo"}
	if v2 {
		allowed = append(allowed, "appendAttribution", "ccEmail", "bccEmail")
	}
	ok := n.onlyOptions(node, append(allowed, "attachments")...)
	attachments := p.Get("attachments")
	if v2 {
		attachments = p.Get("options", "attachments")
	}
	if attachments != nil && strings.TrimPrefix(attachments.Text(), "=") != "" {
		n.Problem(node.where, attachments, "Unsupported option",
			"Attachments (files of the items, sent with the name n8n keeps beside them) are not converted.")
		ok = false
	}
	appendAttr := v2 && node.version >= 2.1
	if a := p.Get("options", "appendAttribution"); a != nil {
		if a.Kind != 'b' {
			n.Problem(node.where, a, "Unsupported option", "Append n8n Attribution is converted when it is true or false, not an expression.")
			ok = false
		}
		appendAttr = a.Bool
	}
	if a := p.Get("options", "allowUnauthorizedCerts"); a != nil && a.Kind != 'b' {
		n.Problem(node.where, a, "Unsupported option", "Ignore SSL Issues is converted when it is true or false, not an expression.")
		ok = false
	}
	format := "both" // v1 sends the text and the HTML it is given
	if v2 {
		format = p.Text("emailFormat")
		if format == "" {
			format = "html"
			if node.version < 2.1 {
				format = "text"
			}
		}
		if !slices.Contains([]string{"text", "html", "both"}, format) {
			n.Problem(node.where, p.Get("emailFormat"), "Unsupported option", fmt.Sprintf("the Email Format %q is none of n8n's (text, html, both).", format))
			ok = false
		}
	}
	if !ok {
		return nil
	}
	secrets := n.mailSecrets(node, "smtp")
	s := n.scope(node, in, true)
	text := func(key string, at ...string) importer.Expr {
		v := p.Get(at...)
		if v == nil {
			return importer.Str("")
		}
		return s.textValue(v, key)
	}
	b, body := importer.NewStep(node.step, "smtp")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	setMailServer(body, secrets)
	if p.Boolean(false, "options", "allowUnauthorizedCerts") {
		body.SetAttributeValue("insecure_skip_verify", cty.True)
	}
	body.SetAttributeRaw("from", importer.Clone(text("from", "fromEmail")))
	body.SetAttributeRaw("to", importer.Clone(text("to", "toEmail")))
	cc, bcc := []string{"ccEmail"}, []string{"bccEmail"}
	if v2 {
		cc, bcc = []string{"options", "ccEmail"}, []string{"options", "bccEmail"}
	}
	for _, f := range []struct {
		input string
		at    []string
	}{{"cc", cc}, {"bcc", bcc}, {"reply_to", []string{"options", "replyTo"}}} {
		if p.Get(f.at...) != nil {
			body.SetAttributeRaw(f.input, importer.Clone(text(f.input, f.at...)))
		}
	}
	body.SetAttributeRaw("subject", importer.Clone(text("subject", "subject")))
	var plain, html importer.Expr
	if format == "text" || format == "both" {
		plain = text("text", "text")
	}
	if format == "html" || format == "both" {
		html = text("html", "html")
	}
	if appendAttr {
		plain, html = mailAttribution(format, plain, html)
	}
	if plain != nil {
		body.SetAttributeRaw("text", importer.Clone(plain))
	}
	if html != nil {
		body.SetAttributeRaw("html", importer.Clone(html))
	}
	body.SetAttributeValue("cache", cty.False)
	n.retry(node, body)
	n.dependsOn(body, in)
	s.flush()
	if appendAttr && format != "text" {
		n.Warn(node.where, orParams(p.Get("options", "appendAttribution"), node),
			"Attribution link", "n8n ends the email's HTML with its attribution, whose link names the n8n instance (utm_campaign=n8n-nodes-base.emailSend_INSTANCE-ID); the flow's link ends at n8n-nodes-base.emailSend.")
	}
	n.Step(n.nodeComment(node)+": one email for each item", b)
	items := importer.Join("[for r in ", importer.Ref("step", node.step),
		" : { accepted = r.accepted, rejected = r.rejected, envelope = r.envelope, messageId = r.message_id, response = r.response }]")
	return []n8nItems{pairedWith(items, in, nil)}
}

// mailAttribution appends n8n's attribution as send.operation.js does: to
// the HTML when the format is html, or both and the HTML is not empty;
// else to the text.
func mailAttribution(format string, plain, html importer.Expr) (importer.Expr, importer.Expr) {
	htmlWith := func(h importer.Expr) importer.Expr {
		return importer.Template([]importer.TPart{
			{Lit: "\n\t\t\t\t\t"}, {Expr: h},
			{Lit: "\n\t\t\t\t\t<br>\n\t\t\t\t\t<br>\n\t\t\t\t\t---\n\t\t\t\t\t<br>\n\t\t\t\t\t<em>" + mailAttributionText + "<a href=\"" + mailAttributionLink + "\" target=\"_blank\">n8n</a></em>\n\t\t\t\t\t"},
		}, false)
	}
	textWith := func(t importer.Expr) importer.Expr {
		return importer.Template([]importer.TPart{{Expr: t}, {Lit: "\n\n---\n" + mailAttributionText + "n8n\nhttps://n8n.io"}}, false)
	}
	switch format {
	case "html":
		return nil, htmlWith(html)
	case "text":
		return textWith(plain), nil
	}
	// both: the HTML when it is not empty (JavaScript's truthiness of a
	// string), else the text.
	hasHTML := importer.Join("(", html, ") != \"\" && (", html, ") != null")
	return importer.Join(hasHTML, " ? (", plain, ") : ", textWith(plain)),
		importer.Join(hasHTML, " ? ", htmlWith(html), " : (", html, ")")
}

// emailReadImapNode is Email Trigger (IMAP), its Simple format: n8n waits
// for new mail on the connection (IDLE) and reads the emails its search
// finds (the unseen ones) then, above the greatest UID it gave, marking
// them read unless told not to; the flow runs every minute and reads them
// with an imap step, the greatest UID in a memory. Each email is an item as n8n gives it: textHtml,
// textPlain, the headers cc, date, from, subject and to (those it has),
// the others in metadata, and (v2) attributes.uid.
func (n *n8n) emailReadImapNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	ok := true
	if f := p.Text("format"); f != "" && f != "simple" {
		n.Problem(node.where, p.Get("format"), "Unsupported option",
			fmt.Sprintf("the Format %q is not converted; Simple is.", f))
		ok = false
	}
	markRead := true
	if a := p.Get("postProcessAction"); a != nil {
		switch a.Text() {
		case "read":
		case "nothing":
			markRead = false
		default:
			n.Problem(node.where, a, "Unsupported option", "the Action after reading is converted when it is Mark as Read or Nothing, not an expression.")
			ok = false
		}
	}
	if d := p.Get("downloadAttachments"); d != nil && (d.Kind != 'b' || d.Bool) {
		n.Problem(node.where, d, "Unsupported option", "Download Attachments (the emails' files as binary data) is not converted.")
		ok = false
	}
	if !n.onlyOptions(node, "customEmailConfig", "forceReconnect", "trackLastMessageId", "allowUnauthorizedCerts") {
		ok = false
	}
	if a := p.Get("options", "allowUnauthorizedCerts"); a != nil && a.Kind != 'b' {
		n.Problem(node.where, a, "Unsupported option", "Ignore SSL Issues is converted when it is true or false, not an expression.")
		ok = false
	}
	var search cty.Value
	if c := p.Get("options", "customEmailConfig"); c != nil {
		var err error
		if search, err = imapRules(c.Text()); c.Kind != 's' || strings.HasPrefix(c.Str, "=") || err != nil {
			why := "it is an expression"
			if err != nil {
				why = err.Error()
			}
			n.Problem(node.where, c, "Unsupported option", "Custom Email Rules are converted when they are a JSON array of search keys, as n8n parses them: "+why+".")
			ok = false
		}
	}
	if !ok {
		return nil
	}
	secrets := n.mailSecrets(node, "imap")
	sb := hclwrite.NewBlock("schedule", []string{n.Name("schedule", node.name, "schedule")})
	sb.Body().SetAttributeValue("cron", cty.StringVal("* * * * *"))
	n.File.Schedules = append(n.File.Schedules, importer.Decl{Comment: []string{n.nodeComment(node) + ": the flow reads the mailbox every minute"}, Block: sb})
	n.Warn(node.where, node.params, "Mail read every minute",
		"n8n is told of new email by the IMAP server and reads the emails its search finds then, each once (v2.1: those since it was activated, not older); the flow reads them every minute, each once. Their text is decoded by its charset; n8n reads a part's bytes as UTF-8 whatever its charset (quoted-printable ones as Latin-1), so the non-ASCII text of such parts differs.")
	// n8n gives each email once: it keeps the greatest UID it gave and
	// then searches above it; the flow keeps it in a memory.
	last := n.Name("memory", node.name+" last uid", "memory")
	mb := hclwrite.NewBlock("memory", []string{last})
	mb.Body().SetAttributeRaw("type", importer.Clone(importer.Code("number")))
	mb.Body().SetAttributeValue("default", cty.NumberIntVal(0))
	mb.Body().SetAttributeRaw("value", importer.Clone(importer.Join("max(", importer.Ref("memory", last), ", [for m in ", importer.Ref("step", node.step, "messages"), " : m.uid]...)")))
	mb.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The greatest UID of the emails n8n node %q gave", node.name)))
	n.File.Memories = append(n.File.Memories, importer.Decl{Comment: []string{n.nodeComment(node) + ": the emails it gave"}, Block: mb})
	b, body := importer.NewStep(node.step, "imap")
	setMailServer(body, secrets)
	if p.Boolean(false, "options", "allowUnauthorizedCerts") {
		body.SetAttributeValue("insecure_skip_verify", cty.True)
	}
	mailbox := p.Text("mailbox")
	if mailbox == "" {
		mailbox = "INBOX"
	}
	if mailbox != "INBOX" {
		body.SetAttributeValue("mailbox", cty.StringVal(mailbox))
	}
	if search != cty.NilVal {
		body.SetAttributeValue("search", search)
	}
	if !markRead {
		body.SetAttributeValue("mark_read", cty.False)
	}
	body.SetAttributeRaw("after_uid", importer.Clone(importer.Ref("memory", last)))
	body.SetAttributeValue("cache", cty.False)
	n.retry(node, body)
	what := "the new emails its search finds, marked read"
	if !markRead {
		what = "the new emails its search finds"
	}
	n.Step(n.nodeComment(node)+": "+what, b)
	top := `["cc", "date", "from", "subject", "to"]`
	attrs := ""
	if node.version >= 2 {
		attrs = ", attributes = { uid = m.uid }"
	}
	items := importer.Join("[for m in ", importer.Ref("step", node.step, "messages"),
		" : merge({ textHtml = m.text_html, textPlain = m.text_plain, metadata = { for k, v in m.headers : k => v if !contains("+top+", k) }"+attrs+" }, { for k, v in m.headers : k => v if contains("+top+", k) })]")
	return []n8nItems{{e: items}}
}

// imapRules reads Custom Email Rules as n8n does (JSON.parse): an array of
// search keys, each a string or an array of strings and numbers.
func imapRules(src string) (cty.Value, error) {
	var rules []any
	if err := json.Unmarshal([]byte(src), &rules); err != nil {
		return cty.NilVal, fmt.Errorf("%q is not a JSON array", src)
	}
	var conv func(v any, depth int) (cty.Value, error)
	conv = func(v any, depth int) (cty.Value, error) {
		switch x := v.(type) {
		case string:
			return cty.StringVal(x), nil
		case float64:
			if depth > 1 { // an argument of a key
				return cty.NumberFloatVal(x), nil
			}
		case []any:
			var l []cty.Value
			for _, e := range x {
				c, err := conv(e, depth+1)
				if err != nil {
					return cty.NilVal, err
				}
				l = append(l, c)
			}
			if len(l) > 0 {
				return cty.TupleVal(l), nil
			}
		}
		return cty.NilVal, fmt.Errorf("%s is not a search key", mustJSON(v))
	}
	if len(rules) == 0 {
		return cty.NilVal, fmt.Errorf("the array is empty")
	}
	return conv(rules, 0)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
