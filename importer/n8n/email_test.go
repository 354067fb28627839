package n8n_test

import (
	"bytes"
	"io"
	"log"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap"
	"github.com/emersion/go-imap/backend/memory"
	imapclient "github.com/emersion/go-imap/client"
	imapserver "github.com/emersion/go-imap/server"
	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
)

// mailSink is an SMTP server's backend that keeps the messages it
// receives.
type mailSink struct {
	mu   sync.Mutex
	msgs []sinkMsg
}

type sinkMsg struct {
	from  string
	rcpts []string
	data  []byte
}

func (s *mailSink) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &sinkSession{s: s}, nil
}

type sinkSession struct {
	s   *mailSink
	cur sinkMsg
}

func (x *sinkSession) Mail(from string, _ *smtp.MailOptions) error {
	x.cur = sinkMsg{from: from}
	return nil
}
func (x *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.cur.rcpts = append(x.cur.rcpts, to)
	return nil
}
func (x *sinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	x.cur.data = b
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, x.cur)
	x.s.mu.Unlock()
	return err
}
func (x *sinkSession) Reset()        {}
func (x *sinkSession) Logout() error { return nil }

// smtpSecrets starts an SMTP server on loopback and returns the secrets of
// the n8n credential named cred that point at it.
func smtpSecrets(t *testing.T, cred string) (*mailSink, map[string]string) {
	t.Helper()
	sink := &mailSink{}
	srv := smtp.NewServer(sink)
	srv.Domain = "localhost"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return sink, map[string]string{
		cred + "_host": "127.0.0.1", cred + "_port": strconv.Itoa(l.Addr().(*net.TCPAddr).Port),
		cred + "_security": "none", cred + "_user": "", cred + "_password": "",
	}
}

// parts are a message's body parts as "type: text".
func parts(t *testing.T, data []byte) ([]string, mail.Header) {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r, err := gomail.CreateReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p.Body)
		ct, _, _ := p.Header.(*gomail.InlineHeader).ContentType()
		out = append(out, ct+": "+string(b))
	}
	return out, m.Header
}

// body is a part's text with LF line ends, without the line end every
// message's last line has.
func body(s string) string {
	return strings.ReplaceAll(strings.TrimSuffix(s, "\r\n"), "\r\n", "\n")
}

// Send Email v2.1 as the corpus has it
// (enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__Modular_Customizable_AI-Powered_Email_Routing__Text_Classifier_for_eCommerce.json,
// "Prod. Dep."): an smtp step for each item, its HTML with n8n's
// attribution (v2.1 appends it unless told not to), Reply-To from the
// item; the item is nodemailer's answer.
func TestEmailSendImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {Name: 'Ann', Email: 'ann@example.com', Message: 'Hi', 'tipo prodotto': 'tea'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "83f0d528-884c-4701-8fdd-dc07c05fafb5", "name": "Prod. Dep.", "type": "n8n-nodes-base.emailSend", "position": [320, -540], "parameters": {"html": "=Name: {{ $json.Name }}\nEmail: {{ $json.Email }}\n\nMessage:\n{{ $json.Message }}\n\nTipo prodotto: {{ $json[\"tipo prodotto\"] }}", "options": {"replyTo": "={{ $json.Email }}"}, "subject": "=[n8n Contacts] Product info", "toEmail": "to@domain.com", "fromEmail": "from@domain.com"}, "credentials": {"smtp": {"id": "hRjP3XbDiIQqvi7x", "name": "SMTP info@n3witalia.com"}}, "typeVersion": 2.1}`
	files, diags := importApp(t, appWorkflow(t, "contacts", item, node))
	wantDiags(t, diags, "warning /nodes/2/parameters Attribution link")
	flow := files["contacts.flow.hcl"]
	wantIn(t, flow, `use      = "smtp"`, `for_each = step.item.items`, `host     = secret.smtp_info_n3witalia_com_host`,
		`port     = tonumber(secret.smtp_info_n3witalia_com_port)`, `secret "smtp_info_n3witalia_com_password" {`)
	sink, secrets := smtpSecrets(t, "smtp_info_n3witalia_com")
	out := runImported(t, files, "contacts", secrets, "")
	items, _ := out["prod_dep"].([]any)
	if len(items) != 1 {
		t.Fatalf("items %v", out)
	}
	it := items[0].(map[string]any)
	if it["messageId"] == "" || !strings.HasPrefix(it["response"].(string), "250 ") {
		t.Errorf("item %v", it)
	}
	delete(it, "messageId")
	delete(it, "response")
	wantJSON(t, "item", it, `{"accepted": ["to@domain.com"], "rejected": [], "envelope": {"from": "from@domain.com", "to": ["to@domain.com"]}}`)
	if len(sink.msgs) != 1 {
		t.Fatalf("%d messages", len(sink.msgs))
	}
	got, h := parts(t, sink.msgs[0].data)
	want := "text/html: \n\t\t\t\t\tName: Ann\nEmail: ann@example.com\n\nMessage:\nHi\n\nTipo prodotto: tea\n\t\t\t\t\t<br>\n\t\t\t\t\t<br>\n\t\t\t\t\t---\n\t\t\t\t\t<br>\n\t\t\t\t\t" +
		`<em>This email was sent automatically with <a href="https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.emailSend" target="_blank">n8n</a></em>` + "\n\t\t\t\t\t"
	if len(got) != 1 || body(got[0]) != want {
		t.Errorf("parts %q, want %q", got, want)
	}
	if h.Get("Subject") != "[n8n Contacts] Product info" || h.Get("Reply-To") != "<ann@example.com>" || h.Get("From") != "<from@domain.com>" {
		t.Errorf("headers %v", h)
	}
}

// Send Email v2.1 with the Text format and no attribution
// (enescingoz+awesome-n8n-templates/HR_and_Recruitment__HR_Job_Posting_and_Evaluation_with_AI.json,
// "Send Email"), with the attribution v2.1 appends by default and without (v2), and
// v1 with HTML and an empty text
// (oxbshw+ultimate-n8n-ai-workflows/New_Workflow__837-track-changes-of-product-prices__workflow.json,
// "NotifyIncorrectPrice", its credential named by a string as v1 has
// it): the body as given, the attribution after it.
func TestEmailSendFormats(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {'Email Content': 'Dear Ann,\\nwelcome.', Subject: 'Offer', To: 'ann@example.com', slug: 'tea', link: 'https://x.test/tea'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	text := `{"id": "7454b4ea-1b43-4a4a-8623-7848c13298c7", "name": "Send Email", "type": "n8n-nodes-base.emailSend", "position": [2840, -140], "parameters": {"text": "={{ $json['Email Content'] }}", "options": {"appendAttribution": false}, "subject": "={{ $json.Subject }}", "toEmail": "={{ $json.To }}", "fromEmail": "gatura@bulkbox.co.ke", "emailFormat": "text"}, "credentials": {"smtp": {"id": "FRchTiFJGPeC5YNE", "name": "SMTP account"}}, "typeVersion": 2.1}`
	v1 := `{"name": "NotifyIncorrectPrice", "type": "n8n-nodes-base.emailSend", "position": [270, -690], "parameters": {"html": "=Please check the link or selector for the item with slug <strong>{{$json[\"slug\"]}}</strong><br>\nURL: {{$json[\"link\"]}}", "text": "=", "options": {}, "subject": "={{$json[\"slug\"]}} - Getting price issue.", "toEmail": "sthosstudio@gmail.com", "fromEmail": "hostovecky@weyou.sk"}, "credentials": {"smtp": "hostovecky@weyou.sk"}, "typeVersion": 1}`
	attributed := strings.Replace(text, `"options": {"appendAttribution": false}`, `"options": {}`, 1)
	// v2's default format is text, and it appends no attribution.
	v2 := strings.Replace(strings.Replace(attributed, `"typeVersion": 2.1`, `"typeVersion": 2`, 1), `, "emailFormat": "text"`, "", 1)
	for _, c := range []struct {
		node, cred, want string
	}{
		{text, "smtp_account", "text/plain: Dear Ann,\nwelcome."},
		{v1, "hostovecky_weyou_sk", "text/html: Please check the link or selector for the item with slug <strong>tea</strong><br>\nURL: https://x.test/tea"},
		{attributed, "smtp_account", "text/plain: Dear Ann,\nwelcome.\n\n---\nThis email was sent automatically with n8n\nhttps://n8n.io"},
		{v2, "smtp_account", "text/plain: Dear Ann,\nwelcome."},
	} {
		files, diags := importApp(t, appWorkflow(t, "mail", item, c.node))
		wantDiags(t, diags)
		sink, secrets := smtpSecrets(t, c.cred)
		runImported(t, files, "mail", secrets, "")
		if len(sink.msgs) != 1 {
			t.Fatalf("%d messages:\n%s", len(sink.msgs), files["mail.flow.hcl"])
		}
		got, _ := parts(t, sink.msgs[0].data)
		if len(got) != 1 || body(got[0]) != c.want {
			t.Errorf("parts %q, want %q", got, c.want)
		}
	}
}

// What Send Email is not converted with: Send and Wait
// (Zie619+n8n-workflows/workflows__Markdown__1571_Markdown_Stickynote_Send.json,
// "Approve Email"), attachments, an attribution that is an expression.
func TestEmailSendRefused(t *testing.T) {
	node := `{"name": "Mail", "type": "n8n-nodes-base.emailSend", "position": [380, 1340], "parameters": {"html": "=hi", "options": {}, "subject": "s", "toEmail": "info@n3witalia.com", "fromEmail": "info@n3witalia.com"}, "credentials": {"smtp": {"id": "hRjP3XbDiIQqvi7x", "name": "SMTP info@n3witalia.com"}}, "typeVersion": 2.1}`
	for _, c := range []struct{ from, to, diag string }{
		{`"options": {}`, `"options": {}, "operation": "sendAndWait"`, "error /nodes/1/parameters/operation Unsupported operation"},
		{`"options": {}`, `"options": {"attachments": "data"}`, "error /nodes/1/parameters/options/attachments Unsupported option"},
		{`"options": {}`, `"options": {"appendAttribution": "={{ true }}"}`, "error /nodes/1/parameters/options/appendAttribution Unsupported option"},
		{`"options": {}`, `"options": {"priority": "high"}`, "error /nodes/1/parameters/options/priority Unsupported option"},
	} {
		_, diags := importApp(t, appWorkflow(t, "bad", strings.Replace(node, c.from, c.to, 1)))
		wantDiags(t, diags, c.diag)
	}
}

// imapWorkflow is a workflow of the Email Trigger (IMAP) node given, and
// a No Operation node after it whose items are the flow's output.
func imapWorkflow(node string) []byte {
	return []byte(`{"name": "inbox", "nodes": [` + node + `, {"parameters": {}, "name": "Done", "type": "n8n-nodes-base.noOp", "typeVersion": 1, "position": [200, 0]}],
"connections": {"Email Trigger (IMAP)": {"main": [[{"node": "Done", "type": "main", "index": 0}]]}}}`)
}

// startIMAP serves go-imap's in-memory backend (user "username",
// password "password") on loopback, the messages appended to its INBOX.
func startIMAP(t *testing.T, msgs ...string) (string, int) {
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
	port := l.Addr().(*net.TCPAddr).Port
	appendMail(t, "127.0.0.1", port, msgs...)
	return "127.0.0.1", port
}

// appendMail appends messages to the INBOX of the server, unseen.
func appendMail(t *testing.T, host string, port int, msgs ...string) {
	t.Helper()
	c, err := imapclient.Dial(net.JoinHostPort(host, strconv.Itoa(port)))
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
}

// Email Trigger (IMAP) v2 as the corpus has it
// (Zie619+n8n-workflows/workflows__Markdown__1571_Markdown_Stickynote_Send.json,
// "Email Trigger (IMAP)"): a schedule every minute and an imap step; each
// unseen email is an item of n8n's Simple format, and it is marked read,
// so the next run has none.
func TestEmailReadImapImported(t *testing.T) {
	node := `{"id": "271bb16f-9b62-41d9-ab76-114cd7ba915a", "name": "Email Trigger (IMAP)", "type": "n8n-nodes-base.emailReadImap", "position": [-1300, 1340], "parameters": {"options": {}}, "credentials": {"imap": {"id": "k31W9oGddl9pMDy4", "name": "IMAP info@n3witalia.com"}}, "typeVersion": 2}`
	files, diags := importApp(t, imapWorkflow(node))
	wantDiags(t, diags, "warning /nodes/0/parameters Mail read every minute")
	wantIn(t, files["inbox.flow.hcl"], `schedule "email_trigger_imap" {
  cron = "* * * * *"
}`, `use      = "imap"`)
	host, port := startIMAP(t, "From: =?UTF-8?Q?Ren=C3=A9?= <rene@example.com>\nTo: info@n3witalia.com\nSubject: Question\nDate: Wed, 11 May 2016 14:31:59 +0000\nMessage-ID: <1@example.com>\nContent-Type: text/plain; charset=utf-8\n\nHow much is the tea?\n")
	secrets := map[string]string{
		"imap_info_n3witalia_com_host": host, "imap_info_n3witalia_com_port": strconv.Itoa(port),
		"imap_info_n3witalia_com_security": "none", "imap_info_n3witalia_com_user": "username", "imap_info_n3witalia_com_password": "password",
	}
	out := runImported(t, files, "inbox", secrets, "")
	items, _ := out["done"].([]any)
	if len(items) != 1 {
		t.Fatalf("items %v", out)
	}
	it := items[0].(map[string]any)
	attrs, _ := it["attributes"].(map[string]any)
	if uid, _ := attrs["uid"].(float64); uid < 7 {
		t.Errorf("attributes %v", it["attributes"])
	}
	delete(it, "attributes")
	wantJSON(t, "item", it, `{"textHtml": "", "textPlain": "How much is the tea?\r\n", "from": "René <rene@example.com>", "to": "info@n3witalia.com",
		"subject": "Question", "date": "Wed, 11 May 2016 14:31:59 +0000", "metadata": {"message-id": "<1@example.com>", "content-type": "text/plain; charset=utf-8"}}`)
	out = runImported(t, files, "inbox", secrets, "")
	wantJSON(t, "the next run's items", out["done"], `[]`)
}

// Email Trigger (IMAP) v2 with Action Nothing as the corpus has it
// (Zie619+n8n-workflows/workflows__Http__1615_HTTP_Emailreadimap_Send_Webhook.json,
// "Read emails (IMAP)"): the emails stay unseen, and n8n gives each once,
// searching above the greatest UID it gave; the flow keeps that UID in a
// memory, so the next run gives only the email that came since.
func TestEmailReadImapNothing(t *testing.T) {
	node := `{"name": "Email Trigger (IMAP)", "type": "n8n-nodes-base.emailReadImap", "position": [-1120, 100], "parameters": {"options": {}, "postProcessAction": "nothing"}, "credentials": {"imap": {"id": "gdLmm513VMZ1tmoB", "name": "IMAP account"}}, "typeVersion": 2}`
	files, diags := importApp(t, imapWorkflow(node))
	wantDiags(t, diags, "warning /nodes/0/parameters Mail read every minute")
	wantIn(t, files["inbox.flow.hcl"], `mark_read = false`, `after_uid = memory.email_trigger_imap_last_uid`)
	host, port := startIMAP(t, "From: ann@example.com\nSubject: one\n\nfirst\n")
	secrets := map[string]string{
		"imap_account_host": host, "imap_account_port": strconv.Itoa(port),
		"imap_account_security": "none", "imap_account_user": "username", "imap_account_password": "password",
	}
	dir := t.TempDir()
	subjects := func() []string {
		t.Helper()
		var s []string
		out, failed := runImportedIn(t, dir, files, "inbox", secrets, "")
		if failed != "" {
			t.Fatal(failed)
		}
		items, _ := out["done"].([]any)
		for _, it := range items {
			s = append(s, it.(map[string]any)["subject"].(string))
		}
		return s
	}
	if got := subjects(); strings.Join(got, ",") != "one" {
		t.Fatalf("first run: %v", got)
	}
	appendMail(t, host, port, "From: bob@example.com\nSubject: two\n\nsecond\n")
	if got := subjects(); strings.Join(got, ",") != "two" {
		t.Errorf("second run: %v", got)
	}
	if got := subjects(); len(got) != 0 {
		t.Errorf("third run: %v", got)
	}
	c, err := imapclient.Dial(net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Logout()
	c.Login("username", "password")
	if _, err := c.Select("INBOX", true); err != nil {
		t.Fatal(err)
	}
	criteria := imap.NewSearchCriteria()
	criteria.WithoutFlags = []string{imap.SeenFlag}
	if unseen, err := c.Search(criteria); err != nil || len(unseen) != 2 {
		t.Errorf("unseen %v (%v), want the two emails", unseen, err)
	}
}

// What the IMAP trigger is not converted with: the Resolved format, attachments
// (workflows__Splitout__1830_Splitout_Filter_Create_Webhook.json); custom
// rules that are not JSON. Custom rules that are become the search.
func TestEmailReadImapOptions(t *testing.T) {
	node := `{"name": "Email Trigger (IMAP)", "type": "n8n-nodes-base.emailReadImap", "position": [0, 0], "parameters": {"options": {}}, "credentials": {"imap": {"id": "1", "name": "IMAP"}}, "typeVersion": 2}`
	for _, c := range []struct{ from, to, diag string }{
		{`"options": {}`, `"options": {}, "format": "resolved"`, "error /nodes/0/parameters/format Unsupported option"},
		{`"options": {}`, `"options": {}, "downloadAttachments": true`, "error /nodes/0/parameters/downloadAttachments Unsupported option"},
		{`"options": {}`, `"options": {"customEmailConfig": "UNSEEN"}`, "error /nodes/0/parameters/options/customEmailConfig Unsupported option"},
	} {
		_, diags := importApp(t, imapWorkflow(strings.Replace(node, c.from, c.to, 1)))
		wantDiags(t, diags, c.diag)
	}
	// oxbshw+ultimate-n8n-ai-workflows/workflows__communication__1344-save-email-attachments-to-nextcloud__workflow.json
	// reads mailbox Invoices with ["ALL"].
	files, _ := importApp(t, imapWorkflow(strings.Replace(node, `"options": {}`, `"mailbox": "Invoices", "options": {"customEmailConfig": "[\"UNSEEN\", [\"FROM\", \"ann@example.com\"]]"}`, 1)))
	wantIn(t, files["inbox.flow.hcl"], `mailbox  = "Invoices"`, `search   = ["UNSEEN", ["FROM", "ann@example.com"]]`)
}
