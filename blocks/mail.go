package blocks

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// The mail blocks: smtp sends one email, imap reads (and marks read) the
// messages of a mailbox that a search finds. Both reach only the host
// their input names, dialled as the http block dials: where the egress
// list allows.

// Mail security modes: the connection's TLS, as n8n's SMTP and IMAP
// credentials have it (SSL/TLS on; off with STARTTLS; off without).
const (
	MailTLS      = "tls"      // TLS from the first byte (ports 465, 993)
	MailStartTLS = "starttls" // plain, then STARTTLS, which the server must offer
	MailNone     = "none"     // never TLS
)

// MailAttachmentType is the type of one of smtp's attachments.
var MailAttachmentType = cty.ObjectWithOptionalAttrs(map[string]cty.Type{
	"filename":       cty.String,
	"content_base64": cty.String,
	"content_type":   cty.String,
}, []string{"content_type"})

// MailMessageType is the type of one message the imap block gives.
var MailMessageType = cty.Object(map[string]cty.Type{
	"uid":        cty.Number,
	"headers":    cty.Map(cty.String),
	"text_plain": cty.String,
	"text_html":  cty.String,
})

// mailBuiltins are the smtp and imap blocks, in catalog order.
func mailBuiltins() []*Block {
	conn := func(port int64) []*lang.Field {
		return []*lang.Field{
			required("host", cty.String, "The server's host name"),
			field("port", cty.Number, cty.NumberIntVal(port), "The server's port"),
			field("security", cty.String, cty.StringVal(MailTLS), "tls (TLS from the start), starttls (upgraded with STARTTLS, which the server must offer) or none"),
			field("insecure_skip_verify", cty.Bool, cty.False, "Accept any certificate of the server"),
			optional("user", cty.String, "The user name (a secret)"),
			optional("password", cty.String, "The password (a secret)"),
		}
	}
	checks := map[string]func(cty.Value) error{
		"port":     checkPort,
		"security": checkOneOf(MailTLS, MailStartTLS, MailNone),
	}
	return []*Block{
		{
			Name:        "smtp",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteNetwork,
			Description: "Send one email over SMTP: text and/or HTML, attachments, to, cc and bcc",
			UseWhen:     "You need to send an email (a notification, a report, a reply) through an SMTP server",
			Tags:        []string{"email", "mail", "smtp", "send", "notification", "network"},
			Inputs: append(conn(465),
				optional("hostname", cty.String, "The name the client gives in EHLO; default localhost"),
				required("from", cty.String, "The sender, such as \"Ann <ann@example.com>\""),
				required("to", cty.String, "The recipients, comma-separated addresses"),
				optional("cc", cty.String, "Carbon-copy recipients, comma-separated"),
				optional("bcc", cty.String, "Blind carbon-copy recipients, comma-separated; not written in the message"),
				optional("reply_to", cty.String, "The Reply-To address"),
				field("subject", cty.String, cty.StringVal(""), "The subject"),
				optional("text", cty.String, "The plain-text body; none when null or empty"),
				optional("html", cty.String, "The HTML body; none when null or empty (with text: both, as alternatives)"),
				optional("attachments", cty.List(MailAttachmentType), "Files attached: { filename, content_base64, content_type (default: from the file name) }"),
			),
			Checks: checks,
			Outputs: []*lang.Field{
				out("message_id", cty.String, "The Message-ID header of the message sent"),
				out("accepted", cty.List(cty.String), "The recipients the server accepted"),
				out("rejected", cty.List(cty.String), "The recipients the server refused (when it accepted at least one)"),
				out("envelope", cty.Object(map[string]cty.Type{"from": cty.String, "to": cty.List(cty.String)}), "The envelope's sender and recipients"),
				out("response", cty.String, "The server's reply to the message, such as \"250 2.0.0 OK: queued as 1234\""),
			},
		},
		{
			Name:        "imap",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteNetwork,
			Description: "Receive the emails of an IMAP mailbox that a search finds (by default the unseen ones) and mark them seen",
			UseWhen:     "You need the new emails of a mailbox, to answer, sort or summarize them, such as on a schedule",
			Tags:        []string{"email", "mail", "imap", "inbox", "mailbox", "network"},
			Inputs: append(conn(993),
				field("mailbox", cty.String, cty.StringVal("INBOX"), "The mailbox to read"),
				field("search", cty.DynamicPseudoType, cty.TupleVal([]cty.Value{cty.StringVal("UNSEEN")}), "The search, all criteria met: flags such as \"UNSEEN\", \"ALL\", \"FLAGGED\", and pairs such as [\"FROM\", \"ann@example.com\"], [\"SINCE\", \"2024-05-20\"]"),
				field("mark_read", cty.Bool, cty.True, "Mark the messages read (\\Seen) once they are fetched"),
				optional("after_uid", cty.Number, "Only the messages whose UID is greater: the last one a run gave, kept in a memory"),
				optional("limit", cty.Number, "The most messages given, oldest first; all when null"),
			),
			Checks: map[string]func(cty.Value) error{
				"port":      checkPort,
				"security":  checkOneOf(MailTLS, MailStartTLS, MailNone),
				"limit":     checkPositive,
				"after_uid": checkCount,
			},
			Outputs: []*lang.Field{
				out("messages", cty.List(MailMessageType), "The messages, oldest first: uid, headers (lower-case names, the first of each, encoded words decoded), text_plain and text_html (the first part of each type, decoded; empty when none)"),
				out("count", cty.Number, "How many messages"),
			},
			TypedOutputs: []string{"messages"},
		},
	}
}

func checkPort(v cty.Value) error {
	bf := v.AsBigFloat()
	if n, acc := bf.Int64(); !bf.IsInt() || acc != 0 || n < 1 || n > 65535 {
		return fmt.Errorf("must be a port, a whole number from 1 to 65535, not %s", bf.Text('g', -1))
	}
	return nil
}

// mailServer is where a mail block connects, read from its inputs.
type mailServer struct {
	host, addr, security string
	tls                  *tls.Config
	user, password       string
}

func mailServerOf(call *Call) mailServer {
	port, _ := call.Inputs["port"].AsBigFloat().Int64()
	host := call.Inputs["host"].AsString()
	s := mailServer{
		host:     host,
		addr:     net.JoinHostPort(host, strconv.FormatInt(port, 10)),
		security: call.Inputs["security"].AsString(),
		tls:      &tls.Config{ServerName: host, InsecureSkipVerify: call.Inputs["insecure_skip_verify"].True()},
	}
	if v := call.Inputs["user"]; !v.IsNull() {
		s.user = v.AsString()
	}
	if v := call.Inputs["password"]; !v.IsNull() {
		s.password = v.AsString()
	}
	return s
}

// dial connects to the server where egress allows, with TLS from the start
// in tls mode; the connection is closed when ctx ends.
func (s mailServer) dial(ctx context.Context, egress *Egress) (net.Conn, func(), error) {
	c, err := egress.dialContext(&net.Dialer{Timeout: 30 * time.Second})(ctx, "tcp", s.addr)
	if err != nil {
		return nil, nil, err
	}
	if s.security == MailTLS {
		tc := tls.Client(c, s.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, nil, err
		}
		c = tc
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	return c, func() { stop(); c.Close() }, nil
}
