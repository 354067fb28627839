package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/flowctl/flowctl/lang"
)

// TestVerifyWebhook checks each verification against published vectors
// (GitHub's documentation, the Standard Webhooks specification's) and
// signatures made here (Stripe's scheme, hmac): the right one passes; a
// wrong one, another body, or a timestamp outside the tolerance fails.
func TestVerifyWebhook(t *testing.T) {
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	stdAt := time.Unix(1614265330, 0)
	stdHeaders := func(sig string) http.Header {
		return hdr("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp", "1614265330", "webhook-signature", sig)
	}
	const stdSecret, stdBody, stdSig = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", `{"test": 2432232314}`, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	now := time.Unix(1700000000, 0)
	stripeSig := func(ts time.Time, secret, body string) string {
		t := fmt.Sprint(ts.Unix())
		return "t=" + t + ",v1=" + hexHMACOf(secret, t+"."+body)
	}
	five := 5 * time.Minute
	for _, c := range []struct {
		name    string
		wh      lang.Webhook
		secret  string
		h       http.Header
		body    string
		now     time.Time
		wantErr bool
	}{
		{"github vector", lang.Webhook{Verify: "github"}, "It's a Secret to Everybody",
			hdr("X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"), "Hello, World!", now, false},
		{"github other body", lang.Webhook{Verify: "github"}, "It's a Secret to Everybody",
			hdr("X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"), "Hello, World?", now, true},
		{"github no header", lang.Webhook{Verify: "github"}, "s", hdr(), "x", now, true},
		{"standard vector", lang.Webhook{Verify: "standard", Tolerance: five}, stdSecret, stdHeaders(stdSig), stdBody, stdAt.Add(time.Minute), false},
		{"standard one of several", lang.Webhook{Verify: "standard", Tolerance: five}, stdSecret, stdHeaders("v1,Zm9v " + stdSig), stdBody, stdAt, false},
		{"standard old", lang.Webhook{Verify: "standard", Tolerance: five}, stdSecret, stdHeaders(stdSig), stdBody, stdAt.Add(6 * time.Minute), true},
		{"standard longer tolerance", lang.Webhook{Verify: "standard", Tolerance: time.Hour}, stdSecret, stdHeaders(stdSig), stdBody, stdAt.Add(6 * time.Minute), false},
		{"standard other body", lang.Webhook{Verify: "standard", Tolerance: five}, stdSecret, stdHeaders(stdSig), `{"test": 1}`, stdAt, true},
		{"stripe", lang.Webhook{Verify: "stripe", Tolerance: five}, "whsec_x", hdr("Stripe-Signature", stripeSig(now, "whsec_x", "{}")), "{}", now, false},
		{"stripe second v1", lang.Webhook{Verify: "stripe", Tolerance: five}, "whsec_x",
			hdr("Stripe-Signature", stripeSig(now, "old", "{}")+",v1="+hexHMACOf("whsec_x", fmt.Sprint(now.Unix())+".{}")), "{}", now, false},
		{"stripe old", lang.Webhook{Verify: "stripe", Tolerance: five}, "whsec_x", hdr("Stripe-Signature", stripeSig(now.Add(-6*time.Minute), "whsec_x", "{}")), "{}", now, true},
		{"stripe future", lang.Webhook{Verify: "stripe", Tolerance: five}, "whsec_x", hdr("Stripe-Signature", stripeSig(now.Add(6*time.Minute), "whsec_x", "{}")), "{}", now, true},
		{"stripe wrong secret", lang.Webhook{Verify: "stripe", Tolerance: five}, "whsec_x", hdr("Stripe-Signature", stripeSig(now, "whsec_y", "{}")), "{}", now, true},
		{"hmac", lang.Webhook{Verify: "hmac", Header: "X-Sig"}, "k", hdr("X-Sig", hexHMACOf("k", "body")), "body", now, false},
		{"hmac sha256= prefix", lang.Webhook{Verify: "hmac", Header: "X-Sig"}, "k", hdr("X-Sig", "sha256="+hexHMACOf("k", "body")), "body", now, false},
		{"hmac wrong", lang.Webhook{Verify: "hmac", Header: "X-Sig"}, "k", hdr("X-Sig", hexHMACOf("k", "bod")), "body", now, true},
		{"none", lang.Webhook{Verify: "none"}, "", hdr(), "anything", now, false},
	} {
		err := verifyWebhook(&c.wh, c.secret, c.h, []byte(c.body), c.now)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: error %v, want one: %v", c.name, err, c.wantErr)
		}
	}
}

func hexHMACOf(secret, msg string) string {
	return fmt.Sprintf("%x", hmacSHA256([]byte(secret), []byte(msg)))
}
