package runtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
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

// TestRedactNumbers: a sensitive number is removed in the forms the
// runtimes print it as; a short one is left alone.
func TestRedactNumbers(t *testing.T) {
	r := &redactor{}
	r.addValue(cty.NumberIntVal(918273645).Mark(lang.Sensitive))
	r.addValue(cty.NumberFloatVal(2.5)) // three characters
	r.addValue(cty.NumberIntVal(42))
	for _, msg := range []string{"918273645", "9.18273645e+08", "9.18273645e+8", "9.18273645e8", "918273645.0", "9.18273645E+08", "pin=918273645;", "2.5"} {
		if got := r.redact(msg); strings.ContainsAny(got, "0123456789") {
			t.Errorf("%q redacted as %q", msg, got)
		}
	}
	if got := r.redact("42 items, true"); got != "42 items, true" {
		t.Errorf("redact = %q", got)
	}
	r.addValue(cty.ObjectVal(map[string]cty.Value{"ok": cty.False}))
	if got := r.redact(`{"ok":true} True, false; construe`); got != `{"ok":(sensitive)} (sensitive), (sensitive); construe` {
		t.Errorf("redact = %q", got)
	}
}

// TestSensitiveScalarsRedacted: a sensitive number, and every scalar
// inside a sensitive object, that a js block logs or throws appears in no
// event and no byte of the state, in any form it prints as.
func TestSensitiveScalarsRedacted(t *testing.T) {
	prog := compile(t, `
flow "pins" {}

input "pin" {
  type      = number
  sensitive = true
  default   = 918273645
}

input "opts" {
  type      = object({ code = number, ok = bool, name = string })
  sensitive = true
  default   = { code = 314159265, ok = true, name = "opal-dragon" }
}

block "talk" {
  runtime = "js"
  sandbox = "inprocess"
  input "pin" { type = number }
  input "opts" { type = any }
  output "n" { type = number }
  source = <<-JS
    function execute(input) {
      console.log("pin", input.pin, input.pin.toExponential(), JSON.stringify(input.opts))
      console.log("code " + input.opts.code + " ok " + input.opts.ok + " " + input.opts.name)
      if (input.pin > 0) throw new Error("wrong pin " + input.pin + " (" + (input.pin * 1.0).toPrecision(9) + ")")
      return { n: 1 }
    }
  JS
}

step "talk" {
  use  = "talk"
  pin  = input.pin
  opts = input.opts
}
`)
	dir := t.TempDir()
	st, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ex := &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": jsrun.NewExecutor()}}
	res, rec := apply(t, prog, Options{Store: st, Executors: ex})
	st.Close()
	if res.Status != StatusFailed {
		t.Fatalf("status %s", res.Status)
	}
	forms := []string{"918273645", "9.18273645e+8", "9.18273645e+08", "314159265", "3.14159265e+08", "opal-dragon"}
	var all strings.Builder
	for _, e := range rec.events {
		_, doc := EventJSON(e)
		b, _ := json.Marshal(doc)
		all.Write(b)
	}
	events := all.String()
	if !strings.Contains(events, "wrong pin (sensitive)") || !strings.Contains(events, `pin (sensitive) (sensitive) {\"code\":(sensitive),\"name\":\"(sensitive)\",\"ok\":(sensitive)}`) {
		t.Errorf("events: %s", events)
	}
	for _, f := range forms {
		if strings.Contains(events, f) {
			t.Errorf("%q is in the events", f)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s holds %q", p, f)
			}
		}
		return nil
	})
}
