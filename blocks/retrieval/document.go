package retrieval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/ledongthuc/pdf"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/net/html"
)

// MaxDocumentBytes bounds what the document block reads: a file is held
// in memory while its text is extracted.
const MaxDocumentBytes = 64 << 20

// mediaByExt maps a file's extension to its media type.
var mediaByExt = map[string]string{
	".md": blocks.MediaMarkdown, ".markdown": blocks.MediaMarkdown, ".mdx": blocks.MediaMarkdown,
	".txt": blocks.MediaText, ".text": blocks.MediaText,
	".html": blocks.MediaHTML, ".htm": blocks.MediaHTML, ".xhtml": blocks.MediaHTML,
	".pdf": blocks.MediaPDF,
}

// documentExecutor runs the document block. Its cache key includes the
// file's content, so an edited file is read again.
type documentExecutor struct{}

func (documentExecutor) CacheKey(call *blocks.Call) (string, error) {
	src, err := documentSource(call)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(src.data)
	return hex.EncodeToString(sum[:]), nil
}

func (documentExecutor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	src, err := documentSource(call)
	if err != nil {
		return nil, err
	}
	doc, err := readDocument(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("%s %w", src.shown, err)
	}
	sum := sha256.Sum256(src.data)
	meta := map[string]cty.Value{
		"source": cty.StringVal(src.name),
		"sha256": cty.StringVal(hex.EncodeToString(sum[:])),
		"bytes":  cty.StringVal(strconv.Itoa(len(src.data))),
	}
	for k, v := range doc.meta {
		if v != "" {
			meta[k] = cty.StringVal(v)
		}
	}
	pages := make([]cty.Value, len(doc.pages))
	for i, p := range doc.pages {
		pages[i] = cty.StringVal(p)
	}
	pv := cty.ListValEmpty(cty.String)
	if len(pages) > 0 {
		pv = cty.ListVal(pages)
	}
	return &blocks.Result{Outputs: map[string]cty.Value{
		"text":       cty.StringVal(doc.text),
		"title":      cty.StringVal(doc.title),
		"media_type": cty.StringVal(src.media),
		"pages":      pv,
		"metadata":   cty.MapVal(meta),
	}}, nil
}

// docSource is what a document step reads: a file's bytes or its
// content input, and the media type it has.
type docSource struct {
	name  string // the path, or "" for content
	shown string // how messages name it
	data  []byte
	media string
}

// documentSource reads the path (or takes the content) of a document
// call and settles its media type: the media_type input, else the file's
// extension, else what its first bytes say. A binary file, or one of a
// type the block does not read, is an error naming it.
func documentSource(call *blocks.Call) (*docSource, error) {
	p, content, mt := call.Inputs["path"], call.Inputs["content"], call.Inputs["media_type"]
	b64 := call.Inputs["content_base64"]
	src := &docSource{}
	if !mt.IsNull() {
		src.media = mt.AsString()
	}
	given := 0
	for _, v := range []cty.Value{p, content, b64} {
		if !v.IsNull() {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, errors.New("give the document one of path, content and content_base64, not several")
	case given == 0:
		return nil, errors.New("give the document a path, a content and its media_type, or a content_base64")
	case !b64.IsNull():
		enc := b64.AsString()
		if n := base64.StdEncoding.DecodedLen(len(enc)); n > MaxDocumentBytes+2 {
			return nil, fmt.Errorf("the content_base64 is about %d bytes, more than the %d the document block reads", n, MaxDocumentBytes)
		}
		data, err := base64.StdEncoding.DecodeString(enc)
		switch {
		case err != nil:
			return nil, fmt.Errorf("the content_base64 is not base64: %v", err)
		case len(data) > MaxDocumentBytes:
			return nil, fmt.Errorf("the content_base64 is %d bytes, more than the %d the document block reads", len(data), MaxDocumentBytes)
		}
		src.shown, src.data = "the content_base64", data
		if src.media == "" {
			if src.media = sniffMedia(data); src.media == "" {
				return nil, fmt.Errorf("the content_base64 is of an unknown type (%s); the document block reads Markdown, text, HTML and PDF: give its media_type", http.DetectContentType(data))
			}
		}
		return src, nil
	case !content.IsNull():
		src.shown, src.data = "the content", []byte(content.AsString())
		if src.media == "" {
			return nil, errors.New("a document given by its content needs a media_type: one of " + strings.Join(blocks.DocumentMediaTypes, ", "))
		}
		if src.media == blocks.MediaPDF {
			return nil, errors.New("a PDF is read from a file: give its path, not a content")
		}
		return src, nil
	}
	rel := p.AsString()
	src.name, src.shown = rel, strconv.Quote(call.Show(rel))
	full, err := lang.ResolveLocalPath(call.Dir, rel)
	if err != nil {
		return nil, fmt.Errorf("the path %s %v", src.shown, err)
	}
	if call.Touch != nil {
		call.Touch(full)
	}
	info, err := os.Stat(full)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot read %s: %w", src.shown, unwrap(err))
	case info.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a file", src.shown)
	case info.Size() > MaxDocumentBytes:
		return nil, fmt.Errorf("%s is %d bytes, more than the %d the document block reads", src.shown, info.Size(), MaxDocumentBytes)
	}
	if src.data, err = os.ReadFile(full); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", src.shown, unwrap(err))
	}
	if src.media == "" {
		if src.media = mediaByExt[strings.ToLower(path.Ext(rel))]; src.media == "" {
			src.media = sniffMedia(src.data)
		}
		if src.media == "" {
			return nil, fmt.Errorf("%s is a file of an unknown type (%s); the document block reads Markdown, text, HTML and PDF: rename it or give its media_type",
				src.shown, http.DetectContentType(src.data))
		}
	}
	return src, nil
}

// sniffMedia is the media type of a file without a known extension: a
// PDF or HTML by its first bytes, else text when it is UTF-8 without NUL
// bytes; "" for anything else.
func sniffMedia(b []byte) string {
	if bytes.HasPrefix(b, []byte("%PDF-")) {
		return blocks.MediaPDF
	}
	if strings.HasPrefix(http.DetectContentType(b), "text/html") {
		return blocks.MediaHTML
	}
	if isText(b) {
		return blocks.MediaText
	}
	return ""
}

// isText reports whether b is UTF-8 text: valid, with no NUL byte.
func isText(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

// document is what the block extracts from a source.
type document struct {
	text, title string
	pages       []string
	meta        map[string]string
}

func readDocument(ctx context.Context, src *docSource) (*document, error) {
	if src.media != blocks.MediaPDF && !isText(src.data) {
		return nil, fmt.Errorf("is binary, not %s text (it looks like %s)", src.media, http.DetectContentType(src.data))
	}
	switch src.media {
	case blocks.MediaMarkdown:
		text := string(src.data)
		return &document{text: text, title: markdownTitle(text)}, nil
	case blocks.MediaText:
		text := string(src.data)
		return &document{text: text, title: firstLine(text)}, nil
	case blocks.MediaHTML:
		return readHTML(src.data)
	case blocks.MediaPDF:
		return readPDF(ctx, src.data)
	}
	return nil, fmt.Errorf("has the media type %q, which the document block does not read; it reads %s", src.media, strings.Join(blocks.DocumentMediaTypes, ", "))
}

// markdownTitle is the text of a Markdown text's first level-one heading,
// else its first line.
func markdownTitle(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return firstLine(text)
}

// firstLine is the first line of text that is not blank, trimmed.
func firstLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// readHTML turns a page into the Markdown of its main content, found as
// a reader view finds it (go-readability); a page with nothing that looks
// like an article (a short page, a list of links) is converted whole.
func readHTML(b []byte) (*document, error) {
	root, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("is not HTML that can be read: %w", err)
	}
	article, err := readability.FromDocument(root, nil)
	node := article.Node
	if err != nil || node == nil {
		if root, err = html.Parse(bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("is not HTML that can be read: %w", err)
		}
		node = root
	}
	md, err := htmltomarkdown.ConvertNode(node)
	if err != nil {
		return nil, fmt.Errorf("cannot be turned into Markdown: %w", err)
	}
	text := strings.TrimSpace(string(md)) + "\n"
	title := strings.TrimSpace(article.Title())
	if title == "" {
		title = markdownTitle(text)
	}
	return &document{text: text, title: title, meta: map[string]string{
		"byline": article.Byline(), "excerpt": article.Excerpt(), "language": article.Language(), "site_name": article.SiteName(),
	}}, nil
}

// readPDF extracts the text of each page of a PDF (ledongthuc/pdf, pure
// Go). An encrypted PDF that needs a password, a damaged one, and one
// with no text (scanned images) are errors. The reader panics on some
// malformed files: a panic is that file's error, not the program's.
func readPDF(ctx context.Context, b []byte) (doc *document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("is a damaged PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	switch {
	case errors.Is(err, pdf.ErrInvalidPassword):
		return nil, errors.New("is an encrypted PDF that needs a password; the document block reads only PDFs it can open without one")
	case err != nil:
		return nil, fmt.Errorf("is not a PDF that can be read: %v", err)
	}
	n := r.NumPage()
	if n <= 0 {
		return nil, errors.New("is a PDF with no pages")
	}
	doc = &document{pages: make([]string, n), meta: map[string]string{"pages": strconv.Itoa(n)}}
	fonts := map[string]*pdf.Font{}
	any := false
	for i := 1; i <= n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text, err := r.Page(i).GetPlainText(fonts)
		if err != nil {
			return nil, fmt.Errorf("is a PDF whose page %d cannot be read: %v", i, err)
		}
		text = strings.TrimSpace(text)
		doc.pages[i-1] = text
		any = any || text != ""
	}
	if !any {
		return nil, errors.New("is a PDF with no text (scanned pages are images, which the document block does not read)")
	}
	doc.text = strings.Join(doc.pages, "\n\n")
	info := r.Trailer().Key("Info")
	doc.meta["author"] = strings.TrimSpace(info.Key("Author").Text())
	if doc.title = strings.TrimSpace(info.Key("Title").Text()); doc.title == "" {
		doc.title = firstLine(doc.text)
	}
	return doc, nil
}
