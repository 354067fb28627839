package blocks

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"mime"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-imap"
	"github.com/emersion/go-imap/client"
	"github.com/emersion/go-message/charset"
	"github.com/emersion/go-message/mail"
	"github.com/zclconf/go-cty/cty"
)

// MaxMailBytes bounds one message the imap block reads.
const MaxMailBytes = 32 << 20

// imapExecutor runs the imap block with go-imap's client: it searches the
// mailbox, fetches each message found without marking it (BODY.PEEK[]),
// parses it with go-message, and then marks them all \Seen.
type imapExecutor struct{ egress *Egress }

func (e imapExecutor) Execute(ctx context.Context, call *Call) (*Result, error) {
	criteria, err := imapSearch(call.Inputs["search"])
	if err != nil {
		return nil, fmt.Errorf("imap: search: %v", err)
	}
	s := mailServerOf(call)
	conn, done, err := s.dial(ctx, e.egress)
	if err != nil {
		return nil, fmt.Errorf("imap: %w", err)
	}
	defer done()
	c, err := client.New(conn)
	if err != nil {
		return nil, fmt.Errorf("imap: %v", err)
	}
	defer c.Logout()
	if s.security == MailStartTLS {
		if ok, _ := c.SupportStartTLS(); !ok {
			return nil, fmt.Errorf("imap: %s does not offer STARTTLS; use security \"none\" to read without TLS", s.addr)
		}
		if err := c.StartTLS(s.tls); err != nil {
			return nil, fmt.Errorf("imap: STARTTLS: %v", err)
		}
	}
	if s.user != "" || s.password != "" {
		if err := c.Login(s.user, s.password); err != nil {
			return nil, fmt.Errorf("imap: login: %v", err)
		}
	}
	mailbox := call.Inputs["mailbox"].AsString()
	if _, err := c.Select(mailbox, false); err != nil {
		return nil, fmt.Errorf("imap: mailbox %q: %v", mailbox, err)
	}
	var after uint32
	if v := call.Inputs["after_uid"]; !v.IsNull() {
		n, _ := v.AsBigFloat().Uint64()
		if n >= 1<<32-1 {
			return &Result{Outputs: map[string]cty.Value{"messages": cty.ListValEmpty(MailMessageType), "count": cty.NumberIntVal(0)}}, nil
		}
		after = uint32(n)
		criteria.Uid = new(imap.SeqSet)
		criteria.Uid.AddRange(after+1, 0) // after+1:*, which also finds the last message when it is not greater
	}
	uids, err := c.UidSearch(criteria)
	if err != nil {
		return nil, fmt.Errorf("imap: search: %v", err)
	}
	uids = slices.DeleteFunc(uids, func(u uint32) bool { return u <= after })
	slices.Sort(uids)
	if v := call.Inputs["limit"]; !v.IsNull() {
		if n, _ := v.AsBigFloat().Int64(); int64(len(uids)) > n {
			uids = uids[:n]
		}
	}
	msgs := []cty.Value{}
	if len(uids) > 0 {
		set := new(imap.SeqSet)
		set.AddNum(uids...)
		section := &imap.BodySectionName{Peek: true}
		ch := make(chan *imap.Message, 8)
		fetched := make(chan error, 1)
		go func() { fetched <- c.UidFetch(set, []imap.FetchItem{imap.FetchUid, section.FetchItem()}, ch) }()
		byUID := map[uint32]cty.Value{}
		var parseErr error
		for m := range ch {
			v, err := imapMessage(m.Uid, m.GetBody(section))
			if err != nil && parseErr == nil {
				parseErr = fmt.Errorf("imap: message %d: %v", m.Uid, err)
			}
			byUID[m.Uid] = v
		}
		if err := <-fetched; err != nil {
			return nil, fmt.Errorf("imap: fetch: %v", err)
		}
		if parseErr != nil {
			return nil, parseErr
		}
		for _, u := range uids {
			if v, ok := byUID[u]; ok {
				msgs = append(msgs, v)
			}
		}
		if call.Inputs["mark_read"].True() {
			if err := c.UidStore(set, imap.FormatFlagsOp(imap.AddFlags, true), []any{imap.SeenFlag}, nil); err != nil {
				return nil, fmt.Errorf("imap: marking read: %v", err)
			}
		}
	}
	list := cty.ListValEmpty(MailMessageType)
	if len(msgs) > 0 {
		list = cty.ListVal(msgs)
	}
	return &Result{Outputs: map[string]cty.Value{"messages": list, "count": cty.NumberIntVal(int64(len(msgs)))}}, nil
}

// imapMessage reads one message: its headers as n8n's IMAP trigger gives
// them (lower-case names, the first value of each, encoded words
// decoded) and the first text/plain and text/html parts, decoded.
func imapMessage(uid uint32, body imap.Literal) (cty.Value, error) {
	if body == nil {
		return cty.NilVal, fmt.Errorf("the server sent no body")
	}
	r, err := mail.CreateReader(io.LimitReader(body, MaxMailBytes))
	if err != nil && r == nil {
		return cty.NilVal, err
	}
	headers := map[string]cty.Value{}
	fields := r.Header.Fields()
	for fields.Next() {
		k := strings.ToLower(strings.TrimSpace(fields.Key()))
		raw, err := fields.Raw()
		if err != nil {
			return cty.NilVal, err
		}
		v := headerValue(raw)
		// node-imap's parseHeader: an empty value replaces the values
		// before it, and the first value is the one given.
		if _, ok := headers[k]; !ok || v == "" {
			headers[k] = cty.StringVal(v)
		}
	}
	texts := map[string]string{}
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return cty.NilVal, err
		}
		var ct string
		switch h := p.Header.(type) {
		case *mail.InlineHeader:
			ct, _, _ = h.ContentType()
		case *mail.AttachmentHeader:
			ct, _, _ = h.ContentType()
		}
		if ct == "" {
			ct = "text/plain"
		}
		if _, seen := texts[ct]; !seen && (ct == "text/plain" || ct == "text/html") {
			b, err := io.ReadAll(p.Body)
			if err != nil {
				return cty.NilVal, err
			}
			texts[ct] = string(b)
		}
	}
	hv := cty.MapValEmpty(cty.String)
	if len(headers) > 0 {
		hv = cty.MapVal(headers)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"uid":        cty.NumberVal(new(big.Float).SetUint64(uint64(uid))),
		"headers":    hv,
		"text_plain": cty.StringVal(texts["text/plain"]),
		"text_html":  cty.StringVal(texts["text/html"]),
	}), nil
}

// encodedWordEnd and encodedWordStart: a line that ends with an encoded
// word, and a folded line that starts with one.
var (
	encodedWordEnd   = regexp.MustCompile(`=\?[^?]+\?[QqBb]\?[^?]*\?=\s*$`)
	encodedWordStart = regexp.MustCompile(`^[ \t]=\?[^?]+\?[QqBb]\?[^?]*\?=`)
)

// headerValue is a header field's value as node-imap's parseHeader gives
// it (n8n's IMAP trigger): after the colon and one space or tab, the
// folded lines joined without their line breaks (their white space kept,
// but between two encoded words), encoded words decoded.
func headerValue(raw []byte) string {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n"), "\n")
	_, v, _ := strings.Cut(lines[0], ":")
	if v != "" && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for i, l := range lines[1:] {
		if encodedWordEnd.MatchString(lines[i]) && encodedWordStart.MatchString(l) {
			l = l[1:]
		}
		v += l
	}
	d := mime.WordDecoder{CharsetReader: charset.Reader}
	if dv, err := d.DecodeHeader(v); err == nil {
		return dv
	}
	return v
}

// imapSearch reads the search input: a list of keys, each a flag key
// ("UNSEEN") or a list of a key and its arguments (["FROM", "ann@x"]),
// as n8n's custom email rules give them; ["OR", a, b] and a key written
// "!KEY" (NOT) as node-imap reads them.
func imapSearch(v cty.Value) (*imap.SearchCriteria, error) {
	if v.IsNull() || !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
		return nil, fmt.Errorf("a list of search keys, such as [\"UNSEEN\"]")
	}
	var fields []any
	for it := v.ElementIterator(); it.Next(); {
		_, k := it.Element()
		f, err := imapSearchKey(k)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f...)
	}
	c := imap.NewSearchCriteria()
	if err := c.ParseWithCharset(fields, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// imapDateKeys take a date, which node-imap accepts in any form
// JavaScript's Date reads; these forms are read.
var imapDateKeys = []string{"SINCE", "BEFORE", "ON", "SENTSINCE", "SENTBEFORE", "SENTON"}

var imapDateLayouts = []string{"2-Jan-2006", "2006-01-02", time.RFC3339, "January 2, 2006", "Jan 2, 2006", "2 January 2006"}

// imapSearchKey is one key of the search as IMAP fields.
func imapSearchKey(k cty.Value) ([]any, error) {
	if k.IsNull() {
		return nil, fmt.Errorf("a search key is null")
	}
	if k.Type() == cty.String {
		s := strings.ToUpper(k.AsString())
		if rest, ok := strings.CutPrefix(s, "!"); ok {
			return []any{"NOT", rest}, nil
		}
		return []any{s}, nil
	}
	if !k.CanIterateElements() || k.Type().IsMapType() || k.Type().IsObjectType() || k.LengthInt() == 0 {
		return nil, fmt.Errorf("a search key is a string or a list of a key and its arguments")
	}
	var args []cty.Value
	for it := k.ElementIterator(); it.Next(); {
		_, a := it.Element()
		args = append(args, a)
	}
	if args[0].IsNull() || args[0].Type() != cty.String {
		return nil, fmt.Errorf("a search key's first element is its name")
	}
	key := strings.ToUpper(args[0].AsString())
	not := false
	if rest, ok := strings.CutPrefix(key, "!"); ok {
		key, not = rest, true
	}
	out := []any{key}
	if key == "OR" {
		if len(args) != 3 {
			return nil, fmt.Errorf("OR takes two keys")
		}
		for _, a := range args[1:] {
			f, err := imapSearchKey(a)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	} else {
		for _, a := range args[1:] {
			if a.IsNull() {
				return nil, fmt.Errorf("%s has a null argument", key)
			}
			s, err := convertToString(a)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", key, err)
			}
			if slices.Contains(imapDateKeys, key) {
				if s, err = imapDate(s); err != nil {
					return nil, fmt.Errorf("%s: %v", key, err)
				}
			}
			out = append(out, s)
		}
	}
	if not {
		out = append([]any{"NOT"}, out...)
	}
	return out, nil
}

func imapDate(s string) (string, error) {
	for _, l := range imapDateLayouts {
		if t, err := time.Parse(l, strings.TrimSpace(s)); err == nil {
			return t.Format("2-Jan-2006"), nil
		}
	}
	return "", fmt.Errorf("%q is not a date such as \"2024-05-20\" or \"20-May-2024\"", s)
}

func convertToString(v cty.Value) (string, error) {
	switch v.Type() {
	case cty.String:
		return v.AsString(), nil
	case cty.Number:
		return v.AsBigFloat().Text('f', -1), nil
	}
	return "", fmt.Errorf("an argument is a string or a number")
}
