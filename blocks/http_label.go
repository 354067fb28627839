package blocks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/lang"
)

// Naming a request in errors without its secrets.

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
