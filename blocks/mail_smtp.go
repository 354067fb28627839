package blocks

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	gomail "github.com/wneessen/go-mail"
	"github.com/zclconf/go-cty/cty"
)

// smtpExecutor runs the smtp block: the message is composed by go-mail
// and sent with go-smtp's client over a connection dialled where the
// egress list allows.
type smtpExecutor struct{ egress *Egress }

func (e smtpExecutor) Execute(ctx context.Context, call *Call) (*Result, error) {
	msg, from, rcpts, err := composeMail(call)
	if err != nil {
		return nil, fmt.Errorf("smtp: %w", err)
	}
	var body bytes.Buffer
	if _, err := msg.WriteTo(&body); err != nil {
		return nil, fmt.Errorf("smtp: writing the message: %v", err)
	}
	s := mailServerOf(call)
	conn, done, err := s.dial(ctx, e.egress)
	if err != nil {
		return nil, fmt.Errorf("smtp: %w", err)
	}
	defer done()
	var c *smtp.Client
	if s.security == MailStartTLS {
		// The first EHLO, before TLS, names localhost; the one after, the
		// hostname input.
		if c, err = smtp.NewClientStartTLS(conn, s.tls); err != nil {
			return nil, fmt.Errorf("smtp: STARTTLS with %s: %v", s.addr, err)
		}
	} else {
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	name := "localhost"
	if v := call.Inputs["hostname"]; !v.IsNull() && v.AsString() != "" {
		name = v.AsString()
	}
	if err := c.Hello(name); err != nil {
		return nil, fmt.Errorf("smtp: %v", err)
	}
	if s.user != "" || s.password != "" {
		var a sasl.Client
		switch {
		case c.SupportsAuth("PLAIN"):
			a = sasl.NewPlainClient("", s.user, s.password)
		case c.SupportsAuth("LOGIN"):
			a = sasl.NewLoginClient(s.user, s.password)
		default:
			return nil, fmt.Errorf("smtp: %s offers neither PLAIN nor LOGIN authentication", s.addr)
		}
		if err := c.Auth(a); err != nil {
			return nil, fmt.Errorf("smtp: authentication: %v", err)
		}
	}
	if err := c.Mail(from, nil); err != nil {
		return nil, fmt.Errorf("smtp: MAIL FROM %s: %v", from, err)
	}
	accepted, rejected := []cty.Value{}, []cty.Value{}
	var firstErr error
	for _, r := range rcpts {
		if err := c.Rcpt(r, nil); err != nil {
			var se *smtp.SMTPError
			if !errors.As(err, &se) {
				return nil, fmt.Errorf("smtp: RCPT TO %s: %v", r, err)
			}
			if firstErr == nil {
				firstErr = fmt.Errorf("smtp: RCPT TO %s: %v", r, err)
			}
			rejected = append(rejected, cty.StringVal(r))
			continue
		}
		accepted = append(accepted, cty.StringVal(r))
	}
	if len(accepted) == 0 {
		return nil, firstErr
	}
	w, err := c.Data()
	if err != nil {
		return nil, fmt.Errorf("smtp: DATA: %v", err)
	}
	if _, err := w.Write(body.Bytes()); err != nil {
		return nil, fmt.Errorf("smtp: %v", err)
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		return nil, fmt.Errorf("smtp: %v", err)
	}
	_ = c.Quit()
	to := make([]cty.Value, len(rcpts))
	for i, r := range rcpts {
		to[i] = cty.StringVal(r)
	}
	return &Result{Outputs: map[string]cty.Value{
		"message_id": cty.StringVal(msg.GetMessageID()),
		"accepted":   listOrEmpty(accepted),
		"rejected":   listOrEmpty(rejected),
		"envelope":   cty.ObjectVal(map[string]cty.Value{"from": cty.StringVal(from), "to": cty.ListVal(to)}),
		"response":   cty.StringVal("250 " + resp.StatusText),
	}}, nil
}

func listOrEmpty(vs []cty.Value) cty.Value {
	if len(vs) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	return cty.ListVal(vs)
}

// composeMail builds the message of an smtp call, and its envelope: the
// sender's address and every recipient's (to, cc and bcc).
func composeMail(call *Call) (*gomail.Msg, string, []string, error) {
	in := call.Inputs
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	addrs := func(name string) ([]*mail.Address, error) {
		v := in[name]
		if v.IsNull() || strings.TrimSpace(v.AsString()) == "" {
			return nil, nil
		}
		list, err := mail.ParseAddressList(v.AsString())
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a list of addresses: %v", name, call.Show(v.AsString()), err)
		}
		return list, nil
	}
	from, err := mail.ParseAddress(in["from"].AsString())
	if err != nil {
		return nil, "", nil, fmt.Errorf("from: %q is not an address: %v", call.Show(in["from"].AsString()), err)
	}
	msg.SetAddrHeaderFromMailAddress(gomail.HeaderFrom, from)
	var rcpts []string
	for _, h := range []struct {
		input  string
		header gomail.AddrHeader
	}{{"to", gomail.HeaderTo}, {"cc", gomail.HeaderCc}, {"bcc", gomail.HeaderBcc}, {"reply_to", gomail.HeaderReplyTo}} {
		list, err := addrs(h.input)
		if err != nil {
			return nil, "", nil, err
		}
		if len(list) == 0 {
			continue
		}
		msg.SetAddrHeaderFromMailAddress(h.header, list...)
		if h.input != "reply_to" {
			for _, a := range list {
				rcpts = append(rcpts, a.Address)
			}
		}
	}
	if len(rcpts) == 0 {
		return nil, "", nil, fmt.Errorf("to: no recipient")
	}
	msg.Subject(in["subject"].AsString())
	msg.SetMessageID()
	msg.SetDate()
	text, html := "", ""
	if v := in["text"]; !v.IsNull() {
		text = v.AsString()
	}
	if v := in["html"]; !v.IsNull() {
		html = v.AsString()
	}
	switch {
	case text != "" && html != "":
		msg.SetBodyString(gomail.TypeTextPlain, text)
		msg.AddAlternativeString(gomail.TypeTextHTML, html)
	case html != "":
		msg.SetBodyString(gomail.TypeTextHTML, html)
	default:
		msg.SetBodyString(gomail.TypeTextPlain, text)
	}
	if v := in["attachments"]; !v.IsNull() {
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, a := it.Element()
			if a.IsNull() || a.GetAttr("filename").IsNull() || a.GetAttr("content_base64").IsNull() {
				return nil, "", nil, fmt.Errorf("attachment %d has no filename or no content_base64", i)
			}
			b, err := base64.StdEncoding.DecodeString(a.GetAttr("content_base64").AsString())
			if err != nil {
				return nil, "", nil, fmt.Errorf("attachment %d (%s): content_base64 is not base64: %v", i, a.GetAttr("filename").AsString(), err)
			}
			var opts []gomail.FileOption
			if ct := a.GetAttr("content_type"); !ct.IsNull() && ct.AsString() != "" {
				opts = append(opts, gomail.WithFileContentType(gomail.ContentType(ct.AsString())))
			}
			if err := msg.AttachReader(a.GetAttr("filename").AsString(), bytes.NewReader(b), opts...); err != nil {
				return nil, "", nil, fmt.Errorf("attachment %d: %v", i, err)
			}
		}
	}
	return msg, from.Address, rcpts, nil
}
