package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/lang"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// verifyWebhook checks the signature of a webhook's request over its raw
// body, as received, with the trigger's secret; signed timestamps (stripe,
// standard) are within w.Tolerance of now. Every comparison of a signature
// is in constant time. The error says what is wrong, never with the body.
func verifyWebhook(w *lang.Webhook, secret string, h http.Header, body []byte, now time.Time) error {
	switch w.Verify {
	case lang.VerifyNone:
		return nil
	case lang.VerifyGitHub:
		sig, ok := strings.CutPrefix(h.Get("X-Hub-Signature-256"), "sha256=")
		if !ok {
			return errors.New("no X-Hub-Signature-256 header of the form sha256=HEX")
		}
		return checkHex(sig, hmacSHA256([]byte(secret), body))
	case lang.VerifyHMAC:
		sig := h.Get(w.Header)
		if sig == "" {
			return fmt.Errorf("no %s header", w.Header)
		}
		sig, _ = strings.CutPrefix(sig, "sha256=")
		return checkHex(sig, hmacSHA256([]byte(secret), body))
	case lang.VerifyBasic:
		return verifyBasic(secret, h)
	case lang.VerifyHeader:
		// Node (and so n8n) joins a repeated header's values with ", ".
		got, ok := h[http.CanonicalHeaderKey(w.Header)]
		if !ok || !equal(strings.Join(got, ", "), secret) {
			return &authError{http.StatusForbidden, fmt.Sprintf("the %s header is missing or wrong", w.Header)}
		}
		return nil
	case lang.VerifyStripe:
		return verifyStripe(secret, h.Get("Stripe-Signature"), body, w.Tolerance, now)
	case lang.VerifyStandard:
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return fmt.Errorf("%w: it is not a Standard Webhooks secret (whsec_ and base64): %w", errSecret, err)
		}
		// The library's own timestamp check has a fixed window: the
		// trigger's tolerance is checked here.
		if err := wh.VerifyIgnoringTimestamp(body, h); err != nil {
			return err
		}
		ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
		if err != nil {
			return errors.New("the webhook-timestamp header is not a number of seconds")
		}
		return checkTimestamp(time.Unix(ts, 0), w.Tolerance, now)
	}
	return fmt.Errorf("unknown verification %q", w.Verify)
}

// authError is a credential that is missing (401) or wrong (403), as
// n8n's Webhook node answers it.
type authError struct {
	code   int
	reason string
}

func (e *authError) Error() string { return e.reason }

// verifyBasic checks the request's Basic Authorization against a secret
// "user:password" (n8n's Basic Auth credential): none is 401, another 403.
func verifyBasic(secret string, h http.Header) error {
	wantUser, wantPass, ok := strings.Cut(secret, ":")
	if !ok || wantUser == "" || wantPass == "" {
		return fmt.Errorf("%w: it is not of the form user:password", errSecret)
	}
	user, pass, ok := (&http.Request{Header: h}).BasicAuth()
	if !ok {
		return &authError{http.StatusUnauthorized, "no Basic Authorization header"}
	}
	// Both compared, whichever differs.
	if u, p := equal(user, wantUser), equal(pass, wantPass); !u || !p {
		return &authError{http.StatusForbidden, "the Basic credentials are wrong"}
	}
	return nil
}

// equal compares two strings in constant time (of their contents).
func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// errSecret is a secret no signature can be checked with: the server's
// mistake, not the caller's.
var errSecret = errors.New("the webhook's secret cannot check signatures")

// verifyStripe checks a Stripe-Signature header, t=TIMESTAMP,v1=HEX[,v1=HEX…]:
// one v1 is the HMAC-SHA256 of "TIMESTAMP.BODY".
func verifyStripe(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	var ts int64 = -1
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return errors.New("the Stripe-Signature timestamp is not a number")
			}
			ts = n
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if ts < 0 || len(sigs) == 0 {
		return errors.New("no Stripe-Signature header with t= and v1=")
	}
	want := hmacSHA256([]byte(secret), []byte(strconv.FormatInt(ts, 10)+"."), body)
	ok := false
	for _, sig := range sigs {
		ok = checkHex(sig, want) == nil || ok
	}
	if !ok {
		return errors.New("no v1 signature matches")
	}
	return checkTimestamp(time.Unix(ts, 0), tolerance, now)
}

func checkTimestamp(ts time.Time, tolerance time.Duration, now time.Time) error {
	if d := now.Sub(ts); d > tolerance || d < -tolerance {
		return fmt.Errorf("the signed timestamp is %s from now, over the tolerance of %s", d.Abs().Round(time.Second), tolerance)
	}
	return nil
}

func hmacSHA256(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// checkHex compares a hex signature with the one expected, in constant
// time.
func checkHex(sig string, want []byte) error {
	got, err := hex.DecodeString(strings.TrimSpace(sig))
	if err != nil || !hmac.Equal(got, want) {
		return errors.New("the signature does not match")
	}
	return nil
}
