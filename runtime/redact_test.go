package runtime

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestRedactEncodings: a secret is removed from messages as it is and in
// the encodings errors apply to values, each replaced whole.
func TestRedactEncodings(t *testing.T) {
	const secret = "p@ss word!x\"\\\t€z9<&>"
	r := &redactor{}
	r.add(secret)
	jsonForm, _ := json.Marshal(secret)
	for _, msg := range []string{
		"GET http://127.0.0.1:1/p/" + url.PathEscape(secret) + ": dial tcp: connection refused",
		"GET http://127.0.0.1:1/p?q=" + url.QueryEscape(secret),
		fmt.Sprintf("cannot read %q: no such file", "a/"+secret),
		fmt.Sprintf("cannot read %+q: no such file", "a/"+secret),
		`{"path":` + string(jsonForm) + `}`,
		"Basic " + base64.StdEncoding.EncodeToString([]byte(secret)),
		"token=" + base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"raw " + secret + " and again " + secret,
		"<b>" + strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(secret) + "</b>",
	} {
		got := r.redact(msg)
		if !strings.Contains(got, SensitiveText) {
			t.Errorf("%q: nothing redacted: %q", msg, got)
		}
		for _, part := range []string{"p@ss", "p%40ss", "word!x", "cEBzcyB3b3JkIXgi"} {
			if strings.Contains(got, part) {
				t.Errorf("%q: %q is left in %q", msg, part, got)
			}
		}
	}
	// The stand-in is not taken for a secret in turn, even when a secret
	// is part of it.
	r.add("sensitive")
	if got := r.redact("a sensitive word"); got != "a "+SensitiveText+" word" {
		t.Errorf("redact = %q", got)
	}
	// Short values are left alone.
	r.add("ab")
	if got := r.redact("abc"); got != "abc" {
		t.Errorf("a two-letter secret redacted %q", got)
	}
}
