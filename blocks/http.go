package blocks

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
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
	if v := call.Inputs["response"]; !v.IsNull() && v.AsString() == "base64" {
		// The bytes as they came, for a file: no text, no JSON.
		return &Result{Outputs: map[string]cty.Value{
			"status":  cty.NumberIntVal(int64(resp.StatusCode)),
			"headers": headerMap(resp.Header),
			"body":    cty.StringVal(base64.StdEncoding.EncodeToString([]byte(body))),
			"text":    cty.StringVal(""),
		}}, nil
	}
	parsed := cty.StringVal(decodeBody(body, ct))
	text := parsed
	switch {
	case isJSONType(ct):
		if parsed, err = parseJSONBody(body); err != nil {
			return nil, label.errorf(err, "%v", err)
		}
	case wantsJSON(call):
		// The step declared a structured body: a JSON body served with
		// another content type is taken; anything else is an error that
		// says what came instead.
		if parsed, err = parseJSONBody(body); err != nil {
			return nil, label.errorf(nil, "the response body of step %s is not JSON: it starts with %s; status %d, content-type %s",
				call.Step, call.Show(startOf(decodeBody(body, ct))), resp.StatusCode, nonEmptyText(ct, "none"))
		}
	}
	return &Result{Outputs: map[string]cty.Value{
		"status":  cty.NumberIntVal(int64(resp.StatusCode)),
		"headers": headerMap(resp.Header),
		"body":    parsed,
		"text":    text,
	}}, nil
}

// wantsJSON reports whether the step declared its body's type as
// something other than any or string (output "body" { type = … }).
func wantsJSON(call *Call) bool {
	f := findField(call.Outputs, "body")
	return f != nil && f.Type.Type != cty.DynamicPseudoType && f.Type.Type != cty.String
}

// startOf is the start of a body for a message, quoted, on one line.
func startOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return "`" + s + "`"
}

func nonEmptyText(s, def string) string {
	if s == "" {
		return def
	}
	return s
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
	if err == nil {
		// The trace context of the step's span, when traces are on.
		otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
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
	if strings.HasPrefix(contentType, "multipart/") {
		// The boundary is the body's own: a Content-Type of the step's
		// would make the parts unreadable.
		req.Header.Set("Content-Type", contentType)
	} else if contentType != "" && req.Header.Get("Content-Type") == "" {
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
