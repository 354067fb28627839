package blocks

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"log"
	"mime"
	"net"
	"net/http/httptest"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/backend/memory"
	imapclient "github.com/emersion/go-imap/client"
	imapserver "github.com/emersion/go-imap/server"
	gomessagemail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/zclconf/go-cty/cty"
)

// mailCall is a call of the built-in name with the given inputs, the
// others at their defaults.
func mailCall(t *testing.T, name string, in map[string]cty.Value) *Call {
	t.Helper()
	var b *Block
	for _, x := range Builtins() {
		if x.Name == name {
			b = x
		}
	}
	inputs := map[string]cty.Value{}
	for _, f := range b.Inputs {
		if v, ok := in[f.Name]; ok {
			inputs[f.Name] = v
		} else if f.Default != cty.NilVal {
			inputs[f.Name] = f.Default
		} else {
			t.Fatalf("%s: no %s", name, f.Name)
		}
	}
	return &Call{Block: b, Inputs: inputs}
}

// smtpSink is an SMTP server's backend that keeps what it receives.
type smtpSink struct {
	mu       sync.Mutex
	from     string
	rcpts    []string
	data     []byte
	user     string
	password string
}

func (s *smtpSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{s}, nil }

type smtpSession struct{ s *smtpSink }

func (x *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (x *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		x.s.mu.Lock()
		defer x.s.mu.Unlock()
		x.s.user, x.s.password = user, pass
		if pass != "secret" {
			return errors.New("bad password")
		}
		return nil
	}), nil
}
func (x *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	x.s.from = from
	return nil
}
func (x *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if strings.HasPrefix(to, "nobody@") {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	x.s.rcpts = append(x.s.rcpts, to)
	return nil
}
func (x *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	x.s.data = b
	return err
}
func (x *smtpSession) Reset()        {}
func (x *smtpSession) Logout() error { return nil }

// startSMTP serves SMTP without TLS on a loopback port.
func startSMTP(t *testing.T) (*smtpSink, string, int64) {
	t.Helper()
	sink := &smtpSink{}
	srv := smtp.NewServer(sink)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return sink, "127.0.0.1", int64(l.Addr().(*net.TCPAddr).Port)
}

// TestSMTPSends sends a message with text, HTML, cc, bcc, reply-to and an
// attachment to an SMTP server, which receives the envelope and the
// message as given; the refused recipient is in rejected.
func TestSMTPSends(t *testing.T) {
	sink, host, port := startSMTP(t)
	call := mailCall(t, "smtp", map[string]cty.Value{
		"host": cty.StringVal(host), "port": cty.NumberIntVal(port), "security": cty.StringVal("none"),
		"user": cty.StringVal("ann"), "password": cty.StringVal("secret"),
		"from":     cty.StringVal("Fitness Coach <coach@example.com>"),
		"to":       cty.StringVal("bob@example.com, Carl <carl@example.com>, nobody@example.com"),
		"cc":       cty.StringVal("dora@example.com"),
		"bcc":      cty.StringVal("eve@example.com"),
		"reply_to": cty.StringVal("help@example.com"),
		"subject":  cty.StringVal("Grüße: your report"),
		"text":     cty.StringVal("Hello Bob"),
		"html":     cty.StringVal("<p>Hello <b>Bob</b></p>"),
		"attachments": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{
			"filename": cty.StringVal("report.csv"), "content_base64": cty.StringVal(base64.StdEncoding.EncodeToString([]byte("a,b\n1,2\n"))),
			"content_type": cty.StringVal("text/csv"),
		})}),
	})
	res, err := smtpExecutor{}.Execute(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.user != "ann" || sink.from != "coach@example.com" || strings.Join(sink.rcpts, " ") != "bob@example.com carl@example.com dora@example.com eve@example.com" {
		t.Fatalf("user %q, from %q, rcpts %v", sink.user, sink.from, sink.rcpts)
	}
	if got := res.Outputs["rejected"]; !got.RawEquals(cty.ListVal([]cty.Value{cty.StringVal("nobody@example.com")})) {
		t.Errorf("rejected %#v", got)
	}
	if got := res.Outputs["accepted"]; got.LengthInt() != 4 {
		t.Errorf("accepted %#v", got)
	}
	if got := res.Outputs["response"].AsString(); !strings.HasPrefix(got, "250 ") {
		t.Errorf("response %q", got)
	}
	if got := res.Outputs["envelope"].GetAttr("from").AsString(); got != "coach@example.com" {
		t.Errorf("envelope from %q", got)
	}
	m, err := mail.ReadMessage(bytes.NewReader(sink.data))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Header
	subject, _ := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if h.Get("From") != `"Fitness Coach" <coach@example.com>` || h.Get("Cc") != "<dora@example.com>" || h.Get("Reply-To") != "<help@example.com>" ||
		subject != "Grüße: your report" || h.Get("Bcc") != "" || h.Get("Message-Id") != res.Outputs["message_id"].AsString() {
		t.Errorf("headers %v (subject %q), message_id %q", h, subject, res.Outputs["message_id"].AsString())
	}
	if to, _ := h.AddressList("To"); len(to) != 3 || to[1].Name != "Carl" || to[1].Address != "carl@example.com" {
		t.Errorf("To %q", h.Get("To"))
	}
	r, err := gomessagemail.CreateReader(bytes.NewReader(sink.data))
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p.Body)
		ct, _, _ := p.Header.(interface {
			ContentType() (string, map[string]string, error)
		}).ContentType()
		name := ""
		if a, ok := p.Header.(*gomessagemail.AttachmentHeader); ok {
			name, _ = a.Filename()
		}
		parts = append(parts, ct+" "+name+" "+strings.TrimSpace(string(b)))
	}
	want := []string{"text/plain  Hello Bob", "text/html  <p>Hello <b>Bob</b></p>", "text/csv report.csv a,b\n1,2"}
	if strings.Join(parts, "|") != strings.Join(want, "|") {
		t.Errorf("parts %q, want %q", parts, want)
	}
}

// TestSMTPRefuses: a wrong password, an address that is none, and a
// server without STARTTLS when starttls is asked for are errors, and
// nothing is sent.
func TestSMTPRefuses(t *testing.T) {
	sink, host, port := startSMTP(t)
	base := func(over map[string]cty.Value) *Call {
		in := map[string]cty.Value{
			"host": cty.StringVal(host), "port": cty.NumberIntVal(port), "security": cty.StringVal("none"),
			"from": cty.StringVal("a@example.com"), "to": cty.StringVal("b@example.com"), "text": cty.StringVal("hi"),
		}
		for k, v := range over {
			in[k] = v
		}
		return mailCall(t, "smtp", in)
	}
	for name, c := range map[string]struct {
		over map[string]cty.Value
		want string
	}{
		"password": {map[string]cty.Value{"user": cty.StringVal("ann"), "password": cty.StringVal("wrong")}, "authentication"},
		"address":  {map[string]cty.Value{"to": cty.StringVal("not an address")}, "to: \"not an address\" is not a list of addresses"},
		"starttls": {map[string]cty.Value{"security": cty.StringVal("starttls")}, "STARTTLS"},
		"all":      {map[string]cty.Value{"to": cty.StringVal("nobody@example.com")}, "no such user"},
	} {
		_, err := smtpExecutor{}.Execute(context.Background(), base(c.over))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if sink.data != nil {
		t.Errorf("sent %q", sink.data)
	}
}

// startIMAP serves go-imap's in-memory backend (user "username",
// password "password") on a loopback port, with the messages appended to
// its INBOX (the backend's own first message is seen).
func startIMAP(t *testing.T, msgs ...string) (string, int64) {
	t.Helper()
	srv := imapserver.New(memory.New())
	srv.AllowInsecureAuth = true
	srv.ErrorLog = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	c, err := imapclient.Dial(l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Logout()
	if err := c.Login("username", "password"); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := c.Append("INBOX", nil, time.Now(), bytes.NewBufferString(strings.ReplaceAll(m, "\n", "\r\n"))); err != nil {
			t.Fatal(err)
		}
	}
	return "127.0.0.1", int64(l.Addr().(*net.TCPAddr).Port)
}

const testMail1 = `From: =?UTF-8?Q?Ren=C3=A9?= <rene@example.com>
To: me@example.com
Subject: =?UTF-8?B?R3LDvMOfZQ==?=
Date: Wed, 11 May 2016 14:31:59 +0000
Message-ID: <1@example.com>
X-Custom: one
X-Custom: two
X-Fold: a
	b
X-Words: =?UTF-8?Q?Ren=C3=A9?=
 =?UTF-8?Q?_Dupont?=
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="b1"

--b1
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Caf=C3=A9 ok
--b1
Content-Type: text/html; charset=iso-8859-1
Content-Transfer-Encoding: base64

PHA+Q2Fm6TwvcD4=
--b1--
`

const testMail2 = `From: ann@example.com
To: me@example.com
Subject: plain
Content-Type: text/plain

Just text
`

// TestIMAPReadsUnseen reads the unseen messages of an in-memory IMAP
// server: their headers decoded and the text parts by their charsets;
// they are then marked read, so a second read finds none.
func TestIMAPReadsUnseen(t *testing.T) {
	host, port := startIMAP(t, testMail1, testMail2)
	call := func() *Result {
		t.Helper()
		res, err := imapExecutor{}.Execute(context.Background(), mailCall(t, "imap", map[string]cty.Value{
			"host": cty.StringVal(host), "port": cty.NumberIntVal(port), "security": cty.StringVal("none"),
			"user": cty.StringVal("username"), "password": cty.StringVal("password"),
		}))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call()
	if n := res.Outputs["count"]; !n.RawEquals(cty.NumberIntVal(2)) {
		t.Fatalf("count %#v", n)
	}
	m := res.Outputs["messages"].Index(cty.NumberIntVal(0))
	h := m.GetAttr("headers")
	for k, want := range map[string]string{"from": "René <rene@example.com>", "subject": "Grüße", "x-custom": "one", "date": "Wed, 11 May 2016 14:31:59 +0000", "message-id": "<1@example.com>", "x-fold": "a\tb", "x-words": "René Dupont"} {
		if got := h.Index(cty.StringVal(k)).AsString(); got != want {
			t.Errorf("header %s: %q, want %q", k, got, want)
		}
	}
	if got := m.GetAttr("text_plain").AsString(); got != "Café ok" {
		t.Errorf("text_plain %q", got)
	}
	if got := m.GetAttr("text_html").AsString(); got != "<p>Café</p>" {
		t.Errorf("text_html %q", got)
	}
	if uid, _ := m.GetAttr("uid").AsBigFloat().Int64(); uid <= 6 {
		t.Errorf("uid %d", uid)
	}
	m2 := res.Outputs["messages"].Index(cty.NumberIntVal(1))
	if m2.GetAttr("text_plain").AsString() != "Just text\r\n" || m2.GetAttr("text_html").AsString() != "" {
		t.Errorf("second message %#v", m2)
	}
	if n := call().Outputs["count"]; !n.RawEquals(cty.NumberIntVal(0)) {
		t.Errorf("after marking read, count %#v", n)
	}
}

// TestIMAPSearch: n8n's custom rules (["ALL"], a pair, a date, OR) read
// as IMAP searches; mark_read false leaves the messages unseen.
func TestIMAPSearch(t *testing.T) {
	host, port := startIMAP(t, testMail1, testMail2)
	read := func(search cty.Value) int64 {
		t.Helper()
		res, err := imapExecutor{}.Execute(context.Background(), mailCall(t, "imap", map[string]cty.Value{
			"host": cty.StringVal(host), "port": cty.NumberIntVal(port), "security": cty.StringVal("none"),
			"user": cty.StringVal("username"), "password": cty.StringVal("password"), "search": search, "mark_read": cty.False,
		}))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := res.Outputs["count"].AsBigFloat().Int64()
		return n
	}
	s := func(v ...string) cty.Value {
		l := make([]cty.Value, len(v))
		for i, x := range v {
			l[i] = cty.StringVal(x)
		}
		return cty.TupleVal(l)
	}
	for _, c := range []struct {
		search cty.Value
		want   int64
	}{
		{s("ALL"), 3},
		{s("UNSEEN"), 2},
		{cty.TupleVal([]cty.Value{cty.StringVal("UNSEEN"), s("FROM", "ann@example.com")}), 1},
		{cty.TupleVal([]cty.Value{s("SINCE", "2000-01-01")}), 3},
		{cty.TupleVal([]cty.Value{cty.TupleVal([]cty.Value{cty.StringVal("OR"), s("SUBJECT", "plain"), s("FROM", "rene@example.com")})}), 2},
	} {
		if got := read(c.search); got != c.want {
			t.Errorf("search %#v: %d, want %d", c.search, got, c.want)
		}
	}
	// after_uid: only greater UIDs; "N:*" also finds the last message,
	// which is left out when it is not greater.
	for after, want := range map[int64][]int64{0: {6, 7, 8}, 7: {8}, 100: nil} {
		res, err := imapExecutor{}.Execute(context.Background(), mailCall(t, "imap", map[string]cty.Value{
			"host": cty.StringVal(host), "port": cty.NumberIntVal(port), "security": cty.StringVal("none"),
			"user": cty.StringVal("username"), "password": cty.StringVal("password"), "search": s("ALL"), "mark_read": cty.False,
			"after_uid": cty.NumberIntVal(after),
		}))
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for it := res.Outputs["messages"].ElementIterator(); it.Next(); {
			_, m := it.Element()
			u, _ := m.GetAttr("uid").AsBigFloat().Int64()
			got = append(got, u)
		}
		if !slices.Equal(got, want) {
			t.Errorf("after_uid %d: uids %v, want %v", after, got, want)
		}
	}
	wrong := mailCall(t, "imap", map[string]cty.Value{
		"host": cty.StringVal(host), "port": cty.NumberIntVal(port), "security": cty.StringVal("none"),
		"user": cty.StringVal("username"), "password": cty.StringVal("wrong"),
	})
	if _, err := (imapExecutor{}).Execute(context.Background(), wrong); err == nil || !strings.Contains(err.Error(), "login") {
		t.Errorf("wrong password: %v", err)
	}
}

// testCert is a self-signed certificate for 127.0.0.1 (net/http/httptest's).
func testCert(t *testing.T) tls.Certificate {
	t.Helper()
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	defer s.Close()
	return s.TLS.Certificates[0]
}

// TestSMTPTLS sends with TLS from the first byte and with STARTTLS; a
// certificate that is not trusted is refused unless
// insecure_skip_verify.
func TestSMTPTLS(t *testing.T) {
	cfg := &tls.Config{Certificates: []tls.Certificate{testCert(t)}}
	serve := func(implicit bool) (*smtpSink, int64) {
		sink := &smtpSink{}
		srv := smtp.NewServer(sink)
		srv.Domain = "localhost"
		srv.TLSConfig = cfg
		srv.ErrorLog = log.New(io.Discard, "", 0)
		var l net.Listener
		var err error
		if implicit {
			l, err = tls.Listen("tcp", "127.0.0.1:0", cfg)
		} else {
			l, err = net.Listen("tcp", "127.0.0.1:0")
		}
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(l)
		t.Cleanup(func() { srv.Close() })
		return sink, int64(l.Addr().(*net.TCPAddr).Port)
	}
	for _, mode := range []string{"tls", "starttls"} {
		sink, port := serve(mode == "tls")
		in := func(skip bool) *Call {
			return mailCall(t, "smtp", map[string]cty.Value{
				"host": cty.StringVal("127.0.0.1"), "port": cty.NumberIntVal(port), "security": cty.StringVal(mode),
				"insecure_skip_verify": cty.BoolVal(skip), "user": cty.StringVal("ann"), "password": cty.StringVal("secret"),
				"from": cty.StringVal("a@example.com"), "to": cty.StringVal("b@example.com"), "text": cty.StringVal("over " + mode),
			})
		}
		if _, err := (smtpExecutor{}).Execute(context.Background(), in(false)); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("%s, untrusted certificate: %v", mode, err)
		}
		if _, err := (smtpExecutor{}).Execute(context.Background(), in(true)); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		sink.mu.Lock()
		if sink.user != "ann" || !strings.Contains(string(sink.data), "over "+mode) {
			t.Errorf("%s: user %q, data %q", mode, sink.user, sink.data)
		}
		sink.mu.Unlock()
	}
}

// TestMailEgress: smtp and imap connect only where the egress list allows.
func TestMailEgress(t *testing.T) {
	sink, host, port := startSMTP(t)
	ihost, iport := startIMAP(t)
	eg, err := AllowOnly([]string{"mail.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = smtpExecutor{eg}.Execute(context.Background(), mailCall(t, "smtp", map[string]cty.Value{
		"host": cty.StringVal(host), "port": cty.NumberIntVal(port), "security": cty.StringVal("none"),
		"from": cty.StringVal("a@example.com"), "to": cty.StringVal("b@example.com"), "text": cty.StringVal("hi"),
	}))
	var ee *EgressError
	if !errors.As(err, &ee) {
		t.Errorf("smtp: %v, want an egress error", err)
	}
	_, err = imapExecutor{eg}.Execute(context.Background(), mailCall(t, "imap", map[string]cty.Value{
		"host": cty.StringVal(ihost), "port": cty.NumberIntVal(iport), "security": cty.StringVal("none"),
		"user": cty.StringVal("username"), "password": cty.StringVal("password"),
	}))
	if !errors.As(err, &ee) {
		t.Errorf("imap: %v, want an egress error", err)
	}
	if sink.data != nil {
		t.Errorf("sent %q", sink.data)
	}
}
