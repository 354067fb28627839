package blocks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/net/html/charset"
	"golang.org/x/net/http/httpguts"
)

// NewHTTPExecutor returns the executor of the http built-in (docs/design.md, "Blocks"). A nil
// client means a client with no timeout of its own: the step's timeout
// reaches the request through the context. Redirects are followed as
// net/http does (up to 10; credentials are not sent to another host).
//
// A response with a status of 400 or more fails the step with a
// *StatusError ("GET https://host/path: 503 Service Unavailable: <the start
// of the body>"), so that a step's retry covers 5xx and 429 responses and a
// flow never goes on with an error page it took for data. Statuses below
// 400, 3xx included when a redirect is not followed, are results: the step
// returns them in status.
//
// Error messages never hold header values or query values, which often are
// secrets: URLs show their query keys only (token=REDACTED), no user
// information, and values of the request's headers and query that appear in
// a quoted response body are replaced by (redacted).
func NewHTTPExecutor(client *http.Client) Executor {
	return newHTTPExecutor(client, HTTPOptions{})
}

func newHTTPExecutor(client *http.Client, o HTTPOptions) *httpExecutor {
	if client == nil {
		client = NewHTTPClient(o)
	}
	return &httpExecutor{client: client, opts: o}
}

// httpExecutor runs http steps; scrapeExecutor shares its client and
// options.
type httpExecutor struct {
	client *http.Client
	opts   HTTPOptions
}

// withTimeout bounds a request whose step set no timeout (its context has
// no deadline) by the options' timeout.
func (e *httpExecutor) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, e.opts.timeout())
}

func (e *httpExecutor) Execute(ctx context.Context, call *Call) (*Result, error) {
	ctx, cancel := e.withTimeout(ctx)
	defer cancel()
	req, label, err := newHTTPRequest(ctx, call)
	if err != nil {
		return nil, err
	}
	if err := e.opts.Egress.CheckURL(req.URL); err != nil {
		return nil, label.errorf(err, "%v", err)
	}
	resp, body, err := fetch(e.client, req, maxBytesInput(call.Inputs["max_bytes"]), label)
	if err != nil {
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	parsed := cty.StringVal(decodeBody(body, ct))
	text := parsed
	if isJSONType(ct) {
		if parsed, err = parseJSONBody(body); err != nil {
			return nil, label.errorf(err, "%v", err)
		}
	}
	return &Result{Outputs: map[string]cty.Value{
		"status":  cty.NumberIntVal(int64(resp.StatusCode)),
		"headers": headerMap(resp.Header),
		"body":    parsed,
		"text":    text,
	}}, nil
}

// newHTTPRequest builds the request of an http step, and the label that
// names it in errors. Every value an error shows is shown through
// call.Show before it is quoted or escaped: the method, the URL (parsed
// again from its shown text), header names.
func newHTTPRequest(ctx context.Context, call *Call) (*http.Request, *reqLabel, error) {
	in := call.Inputs
	method := "GET"
	if v := in["method"]; !v.IsNull() {
		method = v.AsString()
	}
	headers := stringMapInput(in["headers"])
	query := stringMapInput(in["query"])
	secrets := secretsOf(headers, query)

	extra := url.Values{}
	for _, k := range lang.SortedKeys(query) {
		extra.Add(k, query[k])
	}
	u, label, err := requestURL(call, method, extra.Encode(), secrets)
	if err != nil {
		return nil, nil, err
	}
	if !validMethod(method) {
		return nil, nil, label.errorf(nil, "%q is not an HTTP method", call.Show(method))
	}
	for _, k := range lang.SortedKeys(headers) {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, nil, label.errorf(nil, "%q is not a valid header name", call.Show(k))
		}
		if !httpguts.ValidHeaderFieldValue(headers[k]) {
			return nil, nil, label.errorf(nil, "the value of header %q is not valid (it holds a control character)", call.Show(k))
		}
	}

	body, contentType, err := encodeBody(in["body"], in["body_type"])
	if err != nil {
		return nil, nil, label.errorf(err, "%v", call.Show(err.Error()))
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, nil, label.errorf(err, "cannot make the request: %v", call.Show(unwrapURLError(err).Error()))
	}
	for _, k := range lang.SortedKeys(headers) {
		if http.CanonicalHeaderKey(k) == "Host" {
			req.Host = headers[k]
			continue
		}
		req.Header.Set(k, headers[k])
	}
	if contentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req, label, nil
}

// requestURL parses the url input of an http or scrape step, adds query
// (encoded) to it, and makes the label that names the request in errors.
// The label's URL is parsed again from the url's shown text (Call.Show),
// so that a sensitive value in its host or path appears in no error,
// escaped or not.
func requestURL(call *Call, method, query string, secrets []string) (*url.URL, *reqLabel, error) {
	rawURL := call.Inputs["url"].AsString()
	u, err := parseHTTPURL(rawURL)
	if err != nil {
		return nil, nil, (&reqLabel{secrets: secrets, redact: call.Redact}).plain(err)
	}
	shown := u
	if s := call.Show(rawURL); s != rawURL {
		// A URL that is wholly sensitive (or no longer parses once its
		// sensitive parts are replaced) is shown as (sensitive).
		shown, _ = parseHTTPURL(s)
	}
	if query != "" {
		u.RawQuery = joinQuery(u.RawQuery, query)
		if shown != nil && shown != u {
			shown.RawQuery = joinQuery(shown.RawQuery, query) // the label shows its keys only
		}
	}
	label := newReqLabel(call.Show(method), shown, secrets)
	label.redact = call.Redact
	return u, label, nil
}

func joinQuery(a, b string) string {
	if a == "" {
		return b
	}
	return a + "&" + b
}

// validMethod reports whether m is an HTTP method token (RFC 9110):
// net/http would refuse it with an error that quotes it.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		if !httpguts.IsTokenRune(rune(m[i])) {
			return false
		}
	}
	return true
}

// encodeBody encodes the body input as body_type says; a null body is no
// body.
func encodeBody(v, bodyType cty.Value) ([]byte, string, error) {
	v, _ = v.UnmarkDeep()
	if v.IsNull() {
		return nil, "", nil
	}
	bt := "json"
	if !bodyType.IsNull() {
		bt = bodyType.AsString()
	}
	switch bt {
	case "json":
		b, err := jsonval.Marshal(v)
		if err != nil {
			return nil, "", fmt.Errorf("cannot encode the body as JSON: %v", err)
		}
		return b, "application/json", nil
	case "form":
		s, err := formBody(v)
		if err != nil {
			return nil, "", err
		}
		return []byte(s), "application/x-www-form-urlencoded", nil
	case "text":
		s, err := convert.Convert(v, cty.String)
		if err != nil {
			return nil, "", fmt.Errorf("body_type text needs a string body, not %s", v.Type().FriendlyName())
		}
		return []byte(s.AsString()), "text/plain; charset=utf-8", nil
	}
	return nil, "", fmt.Errorf("body_type %q is not one of json, form, text", bt)
}

// formBody url-encodes an object or map whose values are strings (or
// convert to strings) or lists of strings (repeated keys). Null values are
// left out, so optional fields can be written as null.
func formBody(v cty.Value) (string, error) {
	ty := v.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		return "", fmt.Errorf("body_type form needs an object of strings as the body, not %s", ty.FriendlyName())
	}
	vals := url.Values{}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		key := k.AsString()
		if ev.IsNull() {
			continue
		}
		ety := ev.Type()
		if ety.IsListType() || ety.IsTupleType() || ety.IsSetType() {
			for it := ev.ElementIterator(); it.Next(); {
				_, item := it.Element()
				s, err := convert.Convert(item, cty.String)
				if err != nil || s.IsNull() {
					return "", fmt.Errorf("form field %q: each item must be a string, not %s", key, item.Type().FriendlyName())
				}
				vals.Add(key, s.AsString())
			}
			continue
		}
		s, err := convert.Convert(ev, cty.String)
		if err != nil {
			return "", fmt.Errorf("form field %q must be a string or a list of strings, not %s", key, ety.FriendlyName())
		}
		vals.Add(key, s.AsString())
	}
	return vals.Encode(), nil
}

// parseJSONBody parses a JSON response into a cty value; an empty body is
// null.
func parseJSONBody(body string) (cty.Value, error) {
	b := []byte(strings.TrimPrefix(body, string(utf8BOM)))
	if len(bytes.TrimSpace(b)) == 0 {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	v, err := jsonval.Decode(b)
	if err == nil {
		return v, nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("it ends too early")
	}
	return cty.NilVal, fmt.Errorf("the response's Content-Type is JSON but its body is not valid JSON (%v); it starts with %q", err, snippet(b, 60))
}

func isJSONType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
}

func headerMap(h http.Header) cty.Value {
	if len(h) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	m := make(map[string]cty.Value, len(h))
	for k, vs := range h {
		m[k] = cty.StringVal(strings.ToValidUTF8(strings.Join(vs, ", "), "\uFFFD"))
	}
	return cty.MapVal(m)
}

// stringMapInput reads a map(string) input; null maps and null values are
// empty.
func stringMapInput(v cty.Value) map[string]string {
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	m := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		if ev.IsNull() {
			continue
		}
		if s, err := convert.Convert(ev, cty.String); err == nil {
			m[k.AsString()] = s.AsString()
		}
	}
	return m
}

// maxBytesInput reads max_bytes; null is DefaultMaxBytes.
func maxBytesInput(v cty.Value) int64 {
	if v.IsNull() || !v.IsKnown() {
		return DefaultMaxBytes
	}
	n, _ := v.AsBigFloat().Int64()
	return max(n, 0)
}

// parseHTTPURL parses an absolute http or https URL. Its errors never quote
// the URL.
func parseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("invalid URL: %v", unwrapURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" {
			return nil, errors.New("invalid URL: it must start with http:// or https://")
		}
		return nil, fmt.Errorf("invalid URL: the scheme is %q; only http and https are supported", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("invalid URL: it has no host")
	}
	return u, nil
}

// unwrapURLError strips the *url.Error layers, whose text quotes the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	return err
}

// StatusError is the error of an http or scrape step whose response has a
// status of 400 or more. Its fields are safe to show: the URL has no user
// information and no query values, and Body has the request's secrets
// removed.
type StatusError struct {
	Method     string
	URL        string
	StatusCode int
	Status     string // "503 Service Unavailable"
	Body       string // the start of the body on one line; may be empty
}

func (e *StatusError) Error() string {
	msg := e.Method + " " + e.URL + ": " + e.Status
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// statusBodyBytes is how much of an error response's body a StatusError
// quotes.
const statusBodyBytes = 200

// fetch sends req and reads the response body, refusing bodies over
// maxBytes and statuses of 400 or more. The returned response's body is
// closed; its headers and Request (the last one, after redirects) remain.
func fetch(client *http.Client, req *http.Request, maxBytes int64, label *reqLabel) (*http.Response, string, error) {
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", label.transportError(req.Context(), err, start)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, statusBodyBytes+utf8.UTFMax))
		status := resp.Status
		if status == "" {
			status = fmt.Sprint(resp.StatusCode)
		}
		return nil, "", &StatusError{
			Method:     label.method,
			URL:        label.url,
			StatusCode: resp.StatusCode,
			Status:     status,
			Body:       label.scrub(snippet(b, statusBodyBytes)),
		}
	}
	if req.Method != http.MethodHead && resp.ContentLength > maxBytes {
		return nil, "", label.errorf(nil, "the response is %d bytes, more than max_bytes (%d)", resp.ContentLength, maxBytes)
	}
	body, err := readBody(resp.Body, resp.ContentLength, maxBytes)
	if err != nil {
		return nil, "", label.transportError(req.Context(), err, start)
	}
	if int64(len(body)) > maxBytes {
		return nil, "", label.errorf(nil, "the response is larger than max_bytes (%d bytes)", maxBytes)
	}
	return resp, body, nil
}

// readBody reads at most limit+1 bytes of r into the string it becomes. A
// body of known length is read into a string of that size; one of unknown
// length into chunks of growing size, joined once at the end. Either way
// a large body costs about its own size, at most twice while it is read.
func readBody(r io.Reader, length, limit int64) (string, error) {
	r = io.LimitReader(r, limit+1)
	var b strings.Builder
	if length > 0 && length <= limit {
		b.Grow(int(length))
		_, err := io.Copy(&b, r)
		return b.String(), err
	}
	var chunks [][]byte
	total, size := 0, 64<<10
	for {
		chunk := make([]byte, size)
		n, err := io.ReadFull(r, chunk)
		if n > 0 {
			chunks = append(chunks, chunk[:n])
			total += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return "", err
		}
		size = min(2*size, 8<<20)
	}
	b.Grow(total)
	for _, c := range chunks {
		b.Write(c)
	}
	return b.String(), nil
}

// snippet is the start of b, at most n bytes, as valid UTF-8 on one line.
func snippet(b []byte, n int) string {
	cut := len(b) > n
	if cut {
		b = b[:n]
		// Do not split a rune.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if cut && s != "" {
		s += "…"
	}
	return s
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// decodeBody returns a response body as UTF-8 text: decoded from the
// charset the Content-Type (or, for HTML, the page) declares, else taken as
// UTF-8 with invalid sequences replaced by U+FFFD.
func decodeBody(body, contentType string) string {
	mt, params, _ := mime.ParseMediaType(contentType)
	label := params["charset"]
	if label == "" && isHTMLType(mt) && !utf8.ValidString(body) {
		_, label, _ = charset.DetermineEncoding([]byte(body[:min(len(body), 1024)]), contentType)
	}
	if label != "" {
		if enc, name := charset.Lookup(label); enc != nil && name != "utf-8" {
			if out, err := enc.NewDecoder().String(body); err == nil {
				return strings.ToValidUTF8(out, "\uFFFD")
			}
		}
	}
	// Valid UTF-8 comes back as it is, without a copy.
	return strings.ToValidUTF8(strings.TrimPrefix(body, string(utf8BOM)), "\uFFFD")
}

func isHTMLType(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// reqLabel names a request in error messages without revealing secrets.
type reqLabel struct {
	method  string
	url     string   // without user information and query values
	secrets []string // values to remove from error text, longest first
	// redact, when set, removes the run's sensitive values from error
	// text too (Call.Redact).
	redact func(string) string
}

// minSecretLen is the length from which request values are removed from
// error text: shorter ones are not secrets, and removing them would garble
// the messages.
const minSecretLen = 6

// publicHeaders are request headers whose values are not secrets.
var publicHeaders = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Accept-Language": true,
	"Content-Type": true, "Host": true, "Origin": true, "Referer": true, "User-Agent": true,
}

func newReqLabel(method string, u *url.URL, secrets []string) *reqLabel {
	if u == nil {
		return &reqLabel{method: method, url: lang.SensitiveText, secrets: normalizeSecrets(secrets)}
	}
	if u.User != nil {
		secrets = append(secrets, u.User.Username())
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p)
		}
	}
	for _, vs := range u.Query() {
		secrets = append(secrets, vs...)
	}
	l := &reqLabel{method: method, secrets: normalizeSecrets(secrets)}
	l.url = l.scrub(redactURL(u))
	return l
}

// secretsOf lists the values of request headers and query parameters.
func secretsOf(headers, query map[string]string) []string {
	var s []string
	for k, v := range headers {
		if !publicHeaders[http.CanonicalHeaderKey(k)] {
			s = append(s, v)
		}
	}
	for _, v := range query {
		s = append(s, v)
	}
	return normalizeSecrets(s)
}

func normalizeSecrets(in []string) []string {
	var out []string
	for _, s := range in {
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			if len(form) >= minSecretLen && !slices.Contains(out, form) {
				out = append(out, form)
			}
		}
	}
	// Longest first, so that a secret containing another goes whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// redactURL shows u without user information, fragment and query values.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	if c.RawQuery != "" {
		parts := strings.Split(c.RawQuery, "&")
		for i, p := range parts {
			if k, v, ok := strings.Cut(p, "="); ok && v != "" {
				parts[i] = k + "=REDACTED"
			}
		}
		c.RawQuery = strings.Join(parts, "&")
	}
	c.ForceQuery = false
	return c.String()
}

func (l *reqLabel) scrub(s string) string {
	for _, secret := range l.secrets {
		s = strings.ReplaceAll(s, secret, "(redacted)")
	}
	if l.redact != nil {
		s = l.redact(s)
	}
	return s
}

// errorf returns an error "METHOD URL: message" that unwraps to cause.
func (l *reqLabel) errorf(cause error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if l.method != "" {
		msg = l.method + " " + l.url + ": " + msg
	}
	return &redactedError{msg: l.scrub(msg), err: cause}
}

// plain returns err with the secrets removed from its text.
func (l *reqLabel) plain(err error) error {
	return &redactedError{msg: l.scrub(err.Error()), err: err}
}

// transportError describes a failed exchange: a timeout, a cancellation,
// or a network error.
func (l *reqLabel) transportError(ctx context.Context, err error, start time.Time) error {
	err = unwrapURLError(err)
	var ne net.Error
	var ee *EgressError
	switch {
	case errors.As(err, &ee):
		return l.errorf(ee, "%v", ee)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return l.errorf(ctx.Err(), "the request timed out after %s", time.Since(start).Round(time.Millisecond))
	case errors.As(err, &ne) && ne.Timeout():
		return l.errorf(err, "the request timed out after %s", time.Since(start).Round(time.Millisecond))
	case ctx.Err() != nil:
		return l.errorf(ctx.Err(), "the request was cancelled")
	}
	return l.errorf(err, "%v", err)
}

// redactedError is an error whose text has been cleaned of secrets; it
// unwraps to the original error so that errors.Is still finds
// context.DeadlineExceeded and the like.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
