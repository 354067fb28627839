package blocks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

const testPage = `<!doctype html>
<html><head>
  <title>  The
    Page </title>
  <base href="/docs/">
  <style>.x { color: red }</style>
  <script>var hidden = "script text";</script>
</head>
<body>
  <h1>Hello    world</h1>
  <p>First <b>para</b>graph.</p>
  <script>alert("body script")</script><noscript>enable js</noscript>
  <div id="main"><p>Main text <a href="a.html#frag">A</a> <a href="https://example.com/x">X</a></p>
    <ul><li>one</li><li>two <a href="a.html">dup</a></li></ul>
  </div>
  <a href="mailto:x@example.com">mail</a> <a href="javascript:void(0)">js</a> <a href="/abs?q=1#top">abs</a>
  <pre>line 1
  line 2</pre>
  <div hidden>invisible <a href="/hidden">h</a></div>
  <template><p>tmpl</p></template>
  <svg><title>icon</title></svg>
  <table><tr><td>c1</td><td>c2</td></tr></table>
</body></html>`

func addScrapeHandlers(mux *http.ServeMux) {
	page := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("/page.html", page("text/html; charset=utf-8", testPage))
	mux.HandleFunc("/sub/page.html", page("text/html", `<title>Sub</title><a href="other.html">o</a> <a href="../top.html">t</a> <a href="?p=2">p</a>`))
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/sub/page.html", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/cp1252.html", page("text/html", `<meta charset="windows-1252"><title>caf`+"\xe9"+`</title><p>na`+"\xef"+`ve</p>`))
	mux.HandleFunc("/plain.txt", page("text/plain; charset=utf-8", "  just text\nhttp://example.com/not-a-link  "))
	mux.HandleFunc("/doc.pdf", page("application/pdf", "%PDF-1.4"))
	mux.HandleFunc("/big.html", page("text/html", "<p>"+strings.Repeat("x", 5000)+"</p>"))
}

func TestScrape(t *testing.T) {
	srv := testServer(t)
	fullText := "Hello world\nFirst paragraph.\nMain text A X\none\ntwo dup\nmail js abs\nline 1\n  line 2\nc1 c2"
	tests := []struct {
		name     string
		path     string
		selector string
		title    string
		text     string
		links    []string
		html     string // "" when the case does not check it
	}{
		{
			name:  "whole page",
			path:  "/page.html",
			title: "The Page",
			text:  fullText,
			links: []string{srv.URL + "/docs/a.html", "https://example.com/x", srv.URL + "/abs?q=1"},
		},
		{
			name:     "selector",
			path:     "/page.html",
			selector: "#main",
			title:    "The Page",
			text:     "Main text A X\none\ntwo dup",
			links:    []string{srv.URL + "/docs/a.html", "https://example.com/x"},
		},
		{
			name:     "nested matches count once",
			path:     "/page.html",
			selector: "div, ul, li",
			title:    "The Page",
			text:     "Main text A X\none\ntwo dup",
			links:    []string{srv.URL + "/docs/a.html", "https://example.com/x"},
		},
		{
			name:     "several matches",
			path:     "/page.html",
			selector: "h1, li",
			title:    "The Page",
			text:     "Hello world\none\ntwo dup",
			links:    []string{srv.URL + "/docs/a.html"},
			html:     "Hello    world\none\ntwo <a href=\"a.html\">dup</a>",
		},
		{name: "selector matching nothing", path: "/page.html", selector: ".nothing", title: "The Page"},
		{
			name:  "relative links after a redirect",
			path:  "/old",
			title: "Sub",
			text:  "o t p",
			links: []string{srv.URL + "/sub/other.html", srv.URL + "/top.html", srv.URL + "/sub/page.html?p=2"},
		},
		{name: "declared charset", path: "/cp1252.html", title: "café", text: "naïve",
			html: `<head><meta charset="windows-1252"/><title>café</title></head><body><p>naïve</p></body>`},
		{name: "plain text", path: "/plain.txt", selector: "p", text: "just text\nhttp://example.com/not-a-link",
			html: "  just text\nhttp://example.com/not-a-link  "},
	}
	ex := NewScrapeExecutor(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := map[string]cty.Value{"url": cty.StringVal(srv.URL + tt.path)}
			if tt.selector != "" {
				set["selector"] = cty.StringVal(tt.selector)
			}
			res, err := ex.Execute(context.Background(), builtinCall(t, "scrape", set))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Outputs["title"].AsString(); got != tt.title {
				t.Errorf("title = %q, want %q", got, tt.title)
			}
			if got := res.Outputs["text"].AsString(); got != tt.text {
				t.Errorf("text = %q, want %q", got, tt.text)
			}
			if got := res.Outputs["html"].AsString(); tt.html != "" && got != tt.html {
				t.Errorf("html = %q, want %q", got, tt.html)
			}
			lv := res.Outputs["links"]
			if !lv.Type().Equals(cty.List(cty.String)) {
				t.Fatalf("links type %#v", lv.Type())
			}
			var links []string
			for _, v := range lv.AsValueSlice() {
				links = append(links, v.AsString())
			}
			if strings.Join(links, "\n") != strings.Join(tt.links, "\n") {
				t.Errorf("links = %q, want %q", links, tt.links)
			}
		})
	}
}

func TestScrapeErrors(t *testing.T) {
	srv := testServer(t)
	tests := []struct {
		name     string
		path     string
		selector string
		maxBytes int64
		want     string
		status   int
	}{
		{name: "invalid selector", path: "/page.html", selector: "p[", want: `invalid selector "p["`},
		{name: "not HTML", path: "/doc.pdf", want: "GET " + srv.URL + "/doc.pdf: the response is application/pdf, not HTML or plain text"},
		{name: "oversized page", path: "/big.html", maxBytes: 1000, want: "the response is 5007 bytes, more than max_bytes (1000)"},
		{name: "oversized chunked page", path: "/chunked/100", maxBytes: 50, want: "the response is larger than max_bytes (50 bytes)"},
		{name: "status", path: "/status/503", want: "GET " + srv.URL + "/status/503: 503 Service Unavailable: the server says 503", status: 503},
	}
	ex := NewScrapeExecutor(srv.Client())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := map[string]cty.Value{"url": cty.StringVal(srv.URL + tt.path)}
			if tt.selector != "" {
				set["selector"] = cty.StringVal(tt.selector)
			}
			if tt.maxBytes > 0 {
				set["max_bytes"] = cty.NumberIntVal(tt.maxBytes)
			}
			_, err := ex.Execute(context.Background(), builtinCall(t, "scrape", set))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			var se *StatusError
			if got := errors.As(err, &se); got != (tt.status != 0) || (got && se.StatusCode != tt.status) {
				t.Errorf("StatusError %v %+v, want code %d", got, se, tt.status)
			}
		})
	}
}

func TestScrapeSecretsNotInErrors(t *testing.T) {
	srv := testServer(t)
	for _, path := range []string{"/status/500", "/doc.pdf", "/big.html"} {
		_, err := NewScrapeExecutor(nil).Execute(context.Background(), builtinCall(t, "scrape", map[string]cty.Value{
			"url":       cty.StringVal(srv.URL + path + "?token=" + secretQuery),
			"max_bytes": cty.NumberIntVal(1000),
		}))
		if err == nil || strings.Contains(err.Error(), secretQuery) || !strings.Contains(err.Error(), "?token=REDACTED") {
			t.Errorf("%s: error %v", path, err)
		}
	}
}
