package blocks

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// NewScrapeExecutor returns the executor of the scrape built-in (docs/design.md, "Blocks"). It
// GETs the page with the same client defaults, max_bytes rule, status
// handling and error redaction as NewHTTPExecutor, then extracts:
//
//   - title: the page's <title>, whitespace collapsed. The selector does not
//     apply to it.
//   - text: the visible text of the page, or of the elements the selector
//     matches. script, style, noscript, template and head elements, and
//     elements with a hidden attribute, are left out; runs of whitespace
//     become one space, and block elements (p, div, li, h1, br, …) start new
//     lines; pre keeps its whitespace.
//   - links: the http and https targets of <a href> in the same part of the
//     page, resolved against the URL of the response (after redirects) and
//     <base href>, without fragments, each once, in page order.
//   - html: the HTML inside the page's html element, or inside each element
//     the selector matches (one a line, in page order), as x/net/html
//     renders the parsed page.
//
// A selector that is not valid CSS fails the step before any request; one
// that matches nothing gives empty text and links. A text/plain response
// gives its text as text and html, no title and no links (the selector is
// ignored); other content types fail the step.
func NewScrapeExecutor(client *http.Client) Executor {
	return &scrapeExecutor{newHTTPExecutor(client, HTTPOptions{})}
}

type scrapeExecutor struct{ h *httpExecutor }

// scrapeUserAgent identifies scrape's requests; some sites refuse Go's
// default agent.
const scrapeUserAgent = "Mozilla/5.0 (compatible; flowctl)"

func (e *scrapeExecutor) Execute(ctx context.Context, call *Call) (*Result, error) {
	ctx, cancel := e.h.withTimeout(ctx)
	defer cancel()
	var sel cascadia.Selector
	if v := call.Inputs["selector"]; !v.IsNull() && strings.TrimSpace(v.AsString()) != "" {
		s, err := cascadia.Compile(v.AsString())
		if err != nil {
			return nil, fmt.Errorf("invalid selector %q: %v", call.Show(v.AsString()), call.Show(err.Error()))
		}
		sel = s
	}
	u, label, err := requestURL(call, http.MethodGet, "", nil)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, label.errorf(err, "cannot make the request: %v", call.Show(unwrapURLError(err).Error()))
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1")
	req.Header.Set("User-Agent", scrapeUserAgent)
	if err := e.h.opts.Egress.CheckURL(req.URL); err != nil {
		return nil, label.errorf(err, "%v", err)
	}
	resp, body, err := fetch(e.h.client, req, maxBytesInput(call.Inputs["max_bytes"]), label)
	if err != nil {
		return nil, err
	}

	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType([]byte(body[:min(len(body), 512)]))
	}
	mt, _, _ := mime.ParseMediaType(ct)
	text := decodeBody(body, ct)
	switch {
	case mt == "text/plain":
		return scrapeResult("", strings.TrimSpace(text), nil, text), nil
	case !isHTMLType(mt):
		return nil, label.errorf(nil, "the response is %s, not HTML or plain text", mt)
	}

	doc, err := goquery.NewDocumentFromReader(strings.NewReader(text))
	if err != nil {
		return nil, label.errorf(err, "cannot parse the page: %v", err)
	}
	base := resp.Request.URL
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if b, err := base.Parse(strings.TrimSpace(href)); err == nil {
			base = b
		}
	}
	roots := doc.Selection
	if sel != nil {
		roots = doc.FindMatcher(sel)
	}
	x := &extractor{base: base, seen: map[string]bool{}}
	for _, n := range outermost(roots.Nodes) {
		x.newline = true
		x.walk(n)
	}
	htmlRoots := doc.Find("html").First()
	if sel != nil {
		htmlRoots = roots
	}
	inner := make([]string, 0, htmlRoots.Length())
	for i := range htmlRoots.Nodes {
		h, err := htmlRoots.Eq(i).Html()
		if err != nil {
			return nil, label.errorf(err, "cannot render the page: %v", err)
		}
		inner = append(inner, h)
	}
	return scrapeResult(pageTitle(doc), strings.TrimSpace(x.b.String()), x.links, strings.Join(inner, "\n")), nil
}

func scrapeResult(title, text string, links []string, html string) *Result {
	lv := cty.ListValEmpty(cty.String)
	if len(links) > 0 {
		vals := make([]cty.Value, len(links))
		for i, l := range links {
			vals[i] = cty.StringVal(l)
		}
		lv = cty.ListVal(vals)
	}
	return &Result{Outputs: map[string]cty.Value{
		"title": cty.StringVal(title),
		"text":  cty.StringVal(text),
		"links": lv,
		"html":  cty.StringVal(html),
	}}
}

// pageTitle is the text of the document's title: the one in head, else the
// first one (an SVG <title> in the body does not count when head has one).
func pageTitle(doc *goquery.Document) string {
	t := doc.Find("head > title").First()
	if t.Length() == 0 {
		t = doc.Find("title").First()
	}
	return strings.Join(strings.Fields(t.Text()), " ")
}

// outermost drops the nodes inside another node of the list, so that a
// selector matching nested elements extracts their text once.
func outermost(nodes []*html.Node) []*html.Node {
	in := make(map[*html.Node]bool, len(nodes))
	for _, n := range nodes {
		in[n] = true
	}
	var out []*html.Node
outer:
	for _, n := range nodes {
		for p := n.Parent; p != nil; p = p.Parent {
			if in[p] {
				continue outer
			}
		}
		out = append(out, n)
	}
	return out
}

// skipped are the elements whose content is not visible text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Head: true,
	atom.Title: true, // not rendered; an SVG <title> in the body is a tooltip
}

// blockElements start and end a line of text.
var blockElements = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Body: true,
	atom.Br: true, atom.Caption: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true,
	atom.Html: true, atom.Legend: true, atom.Li: true, atom.Main: true, atom.Nav: true,
	atom.Ol: true, atom.Option: true, atom.P: true, atom.Pre: true, atom.Section: true,
	atom.Summary: true, atom.Table: true, atom.Tbody: true, atom.Tfoot: true, atom.Thead: true,
	atom.Tr: true, atom.Ul: true,
}

// extractor gathers the visible text and the links of a part of a page.
type extractor struct {
	b       strings.Builder
	last    byte // the last byte written
	space   bool // a space is due before the next text
	newline bool // a line break is due before the next text
	pre     int  // depth of pre elements
	base    *url.URL
	seen    map[string]bool
	links   []string
}

func (x *extractor) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if x.pre > 0 {
			x.raw(n.Data)
		} else {
			x.text(n.Data)
		}
		return
	case html.ElementNode:
		if skipped[n.DataAtom] || hasAttr(n, "hidden") {
			return
		}
		if n.DataAtom == atom.A {
			if href, ok := attr(n, "href"); ok {
				x.link(href)
			}
		}
	case html.DocumentNode:
	default:
		return
	}
	block := blockElements[n.DataAtom]
	if block {
		x.newline = true
	}
	if n.DataAtom == atom.Pre {
		x.pre++
		defer func() { x.pre-- }()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		x.walk(c)
	}
	switch {
	case block:
		x.newline = true
	case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
		x.space = true
	}
}

// text writes text with its whitespace collapsed.
func (x *extractor) text(s string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" {
			x.space = true
		}
		return
	}
	if strings.TrimLeftFunc(s, unicode.IsSpace) != s {
		x.space = true
	}
	for i, w := range words {
		if i > 0 {
			x.space = true
		}
		x.write(w)
	}
	if strings.TrimRightFunc(s, unicode.IsSpace) != s {
		x.space = true
	}
}

// raw writes preformatted text as it is.
func (x *extractor) raw(s string) {
	if s != "" {
		x.write(s)
	}
}

func (x *extractor) write(s string) {
	if x.b.Len() > 0 {
		switch {
		case x.newline && x.last != '\n':
			x.b.WriteByte('\n')
		case x.space && !x.newline && x.last != ' ' && x.last != '\n':
			x.b.WriteByte(' ')
		}
	}
	x.space, x.newline = false, false
	x.b.WriteString(s)
	x.last = s[len(s)-1]
}

func (x *extractor) link(href string) {
	u, err := x.base.Parse(strings.TrimSpace(href))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	u.Fragment, u.RawFragment = "", ""
	s := u.String()
	if !x.seen[s] {
		x.seen[s] = true
		x.links = append(x.links, s)
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasAttr(n *html.Node, key string) bool {
	_, ok := attr(n, key)
	return ok
}
