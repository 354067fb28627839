package runtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dop251/goja"
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

// trickyStrings hold what the runtimes escape differently when they
// print a string: quotes of both kinds, backslashes, control characters,
// DEL, non-ASCII letters, characters outside the BMP, and non-ASCII
// characters that are not printable (a no-break space, a soft hyphen,
// NEL, a zero-width space, the line and paragraph separators, a byte
// order mark, a private use character, a language tag).
var trickyStrings = []string{
	`Pa'ss"w0rd-XYZ`,
	`it's mine`,
	`say "hi" now`,
	`back\slash\\end`,
	"new\nline\ttab\rcr",
	"\x00\x01\x07\x08\x0b\x0c\x1b\x1f\x7fctl",
	"ünïcödé€ and ß",
	"💥 out of the BMP \U0001F600",
	"nb\u00a0sp\u00adsh\u0085nel",
	"zw\u200bls\u2028ps\u2029bom\ufeff",
	"pu\ue000tag\U000e0001",
	"<a href='x'>&amp;</a>",
	`x\'"y`,
	"e\u0301 combining",
}

// TestStringFormsMatchRuntimes: the forms of a string that the redactor
// computes are exactly those that real python3 (repr, ascii(), repr of
// bytes, json.dumps with and without ensure_ascii, each quote repr may
// pick), goja (JSON.stringify) and Go (%q, %+q, encoding/json) print.
func TestStringFormsMatchRuntimes(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	in, _ := json.Marshal(trickyStrings)
	// For each string: its forms in Python, quotes and what was added
	// to the string to make repr pick a quote cut off.
	const script = `
import json, sys

def inner(r, added):
    q = r[-1]
    start = r.index(q) + 1
    return r[start:len(r) - 1 - len(added)]

out = []
for s in json.load(sys.stdin):
    forms = {"repr": repr(s)[1:-1], "ascii": ascii(s)[1:-1],
             "bytes": repr(s.encode())[2:-1],
             "json": json.dumps(s)[1:-1], "json unicode": json.dumps(s, ensure_ascii=False)[1:-1]}
    # Repr quotes with ' when the string holds a ", with " when it holds
    # only a ': each quote, whatever the string holds.
    for name, f in (("repr", repr), ("ascii", ascii)):
        r = f(s + "\"'")
        forms[name + " with both quotes"] = inner(r, f("\"'")[1:-1])
        if '"' not in s:
            forms[name + " with a single quote"] = inner(f(s + "'"), "'")
    b = repr(s.encode() + b"\"'")
    forms["bytes with both quotes"] = b[2:len(b) - 1 - len("\"\\'")]
    out.append(forms)
json.dump(out, sys.stdout)
`
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var pyForms []map[string]string
	if err := json.Unmarshal(out, &pyForms); err != nil {
		t.Fatalf("python3 printed %s: %v", out, err)
	}
	vm := goja.New()
	for i, s := range trickyStrings {
		forms := encodedForms(s)
		check := func(runtime, name, form string) {
			t.Helper()
			if !slices.Contains(forms, form) {
				t.Errorf("%q: %s %s is %q, which is not among the forms %q", s, runtime, name, form, forms)
			}
		}
		for name, form := range pyForms[i] {
			check("python3", name, form)
		}
		vm.Set("s", s)
		js, err := vm.RunString("JSON.stringify(s)")
		if err != nil {
			t.Fatal(err)
		}
		check("goja", "JSON.stringify", strings.TrimSuffix(strings.TrimPrefix(js.String(), `"`), `"`))
		check("go", "%q", fmt.Sprintf("%q", s)[1:len(fmt.Sprintf("%q", s))-1])
		check("go", "%+q", fmt.Sprintf("%+q", s)[1:len(fmt.Sprintf("%+q", s))-1])
		j, _ := json.Marshal(s)
		check("go", "json.Marshal", string(j[1:len(j)-1]))
	}
	// The redactor removes a string from what each runtime prints, where
	// its form may be inside a longer quoted string.
	r := &redactor{}
	for _, s := range trickyStrings {
		r.add(s)
	}
	for i, s := range trickyStrings {
		for name, form := range pyForms[i] {
			if got := r.redact("KeyError: '" + form + "'"); got != "KeyError: '"+SensitiveText+"'" {
				t.Errorf("%q: the python3 %s form redacted as %q", s, name, got)
			}
		}
	}
}

// TestRedactPythonRepr (issue 47): a secret with both quotes, as a
// Python KeyError shows it, is redacted.
func TestRedactPythonRepr(t *testing.T) {
	r := &redactor{}
	r.add(`Pa'ss"w0rd-XYZ`)
	for msg, want := range map[string]string{
		`KeyError: 'Pa\'ss"w0rd-XYZ'`:         `KeyError: '(sensitive)'`,
		`['x"Pa\'ss"w0rd-XYZ', "y"]`:          `['x"(sensitive)', "y"]`,
		`b'Pa\'ss"w0rd-XYZ'`:                  `b'(sensitive)'`,
		`{"k": "Pa'ss\"w0rd-XYZ"}`:            `{"k": "(sensitive)"}`,
		`invalid literal: 'Pa\'ss"w0rd-XYZ'.`: `invalid literal: '(sensitive)'.`,
	} {
		if got := r.redact(msg); got != want {
			t.Errorf("redact(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestRedactAcrossLines: a secret that holds line breaks, printed as it
// is, reaches the redactor a line at a time from a block's log; each of
// its lines is redacted where it can be part of the secret: the first at
// the end of a line, the last at the start of one, those between as
// whole lines. Elsewhere they are left.
func TestRedactAcrossLines(t *testing.T) {
	r := &redactor{}
	r.add("Fir5t\r\nMidd1e\nLa5t")
	r.add("Pr1v\n\n  \nk3y")
	for _, c := range []struct{ line, want string }{
		{"raw Fir5t", "raw (sensitive)"},
		{"raw Fir5t\r", "raw (sensitive)\r"},
		{"Midd1e", "(sensitive)"},
		{"Midd1e\r", "(sensitive)\r"},
		{"La5t and more", "(sensitive) and more"},
		{"La5t Fir5t", "(sensitive) (sensitive)"},
		{"k3y Pr1v", "(sensitive) (sensitive)"},
		{"  ", "  "},
		// Not where a line of the secret would be.
		{"Fir5t of all", "Fir5t of all"},
		{"a Midd1e b", "a Midd1e b"},
		{"at La5t", "at La5t"},
		// The whole secret in one message goes whole.
		{"<Fir5t\r\nMidd1e\nLa5t>", "<(sensitive)>"},
		// A log that dropped the carriage return.
		{"x Fir5t\nMidd1e\nLa5t y", "x (sensitive)\n(sensitive)\n(sensitive) y"},
	} {
		if got := r.redact(c.line); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}
