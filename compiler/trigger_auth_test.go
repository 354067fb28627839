package compiler_test

import (
	"strings"
	"testing"
)

// TestTriggerCredentials checks verify = "basic" (a secret user:password)
// and verify = "header" (header, a name or a secret that holds it, and
// the secret its value must equal): what they need, and where each
// mistake is.
func TestTriggerCredentials(t *testing.T) {
	hook := func(body string) string {
		return triggerHead + "secret \"hname\" {}\ntrigger \"t\" {\n  webhook {\n    path = \"/h\"\n" + body + "  }\n  inputs = { repo = \"x\" }\n}\n"
	}
	for _, src := range []string{
		"    verify = \"basic\"\n    secret = secret.hook\n",
		"    verify = \"header\"\n    header = \"X-Api-Key\"\n    secret = secret.hook\n",
		"    verify = \"header\"\n    header = secret.hname\n    secret = secret.hook\n",
	} {
		prog, errs := compileSource(t, hook(src))
		if errs != "no diagnostics" {
			t.Fatalf("%s\ndoes not compile: %s", src, errs)
		}
		if w := prog.Triggers[0].Webhook; w.Secret != "hook" || strings.Contains(src, "hname") && w.HeaderSecret != "hname" {
			t.Errorf("webhook decoded as %+v", w)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"    verify = \"basic\"\n", `Missing secret; Trigger "t" verifies with basic`},
		{"    verify = \"basic\"\n    secret = secret.hook\n    header = \"X-A\"\n", `c.flow.hcl:15,5-11: header without hmac`},
		{"    verify = \"header\"\n    secret = secret.hook\n", `Missing header; Trigger "t" verifies with header`},
		{"    verify = \"header\"\n    header = \"X-A\"\n", `Missing secret; Trigger "t" verifies with header`},
		{"    verify = \"header\"\n    header = secret.hnam\n    secret = secret.hook\n", `c.flow.hcl:14,14-25: Unknown secret; Trigger "t" names secret "hnam", which flow "f" does not declare. Did you mean "hname"?`},
		{"    verify = \"hmac\"\n    header = secret.hname\n    secret = secret.hook\n", `c.flow.hcl:14,14-26: Invalid header`},
		{"    verify = \"basic\"\n    secret = secret.hook\n    tolerance = \"5m\"\n", `tolerance without a signed timestamp`},
		{"    verify = \"bearer\"\n    secret = secret.hook\n", `Invalid verify; verify is one of "github", "stripe", "standard", "hmac", "basic", "header", "none"`},
	} {
		if _, errs := compileSource(t, hook(c.src)); !strings.Contains(errs, c.want) {
			t.Errorf("%s\ngot errors %q, want %q", c.src, errs, c.want)
		}
	}
}
