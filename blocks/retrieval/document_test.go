package retrieval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"codeberg.org/go-pdf/fpdf"
	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// writePDF writes a PDF of pages, one line of text each (fpdf, pure Go),
// with a title in its information dictionary.
func writePDF(t *testing.T, path, title string, pages ...string) {
	t.Helper()
	p := fpdf.New("P", "mm", "A4", "")
	p.SetTitle(title, true)
	p.SetAuthor("Ada Lovelace", true)
	p.SetFont("Helvetica", "", 12)
	for _, text := range pages {
		p.AddPage()
		p.Cell(40, 10, text)
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runDocument(t *testing.T, dir string, inputs map[string]cty.Value) (map[string]cty.Value, error) {
	t.Helper()
	call := builtinCall(t, "document", inputs)
	call.Dir = dir
	for name, v := range call.Inputs {
		if err := call.Block.CheckInput(name, v); err != nil {
			return nil, err
		}
	}
	res, err := documentExecutor{}.Execute(context.Background(), call)
	if err != nil {
		return nil, err
	}
	return res.Outputs, nil
}

// TestDocument: Markdown and text as they are, HTML's main content as
// Markdown without the page's navigation, a PDF's text page by page, the
// type from the extension or the first bytes.
func TestDocument(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.md", "Intro line\n\n# Setup\n\nInstall it.\n")
	write("plain.txt", "\n  First line\nsecond\n")
	write("README", "no extension, but text\n")
	write("page.html", `<!doctype html><html><head><title>Rivers of Europe</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>
<article><h1>Rivers of Europe</h1>
<p>The Danube is the second-longest river in Europe, after the Volga. It flows through much of Central and Southeastern Europe, from the Black Forest into the Black Sea.</p>
<p>The Rhine begins in the Swiss Alps and flows north through Germany and the Netherlands to the North Sea, carrying more freight than any other river of the continent.</p>
<p>The <strong>Loire</strong> is the longest river in France, and its valley is known for its castles, vineyards and the gardens that line its banks for hundreds of kilometres.</p>
</article>
<footer>Copyright 2026 Example Corp. All rights reserved.</footer></body></html>`)
	writePDF(t, filepath.Join(dir, "report.pdf"), "Quarterly report", "Revenue grew in the first quarter.", "Costs fell in the second quarter.")
	if b, _ := os.ReadFile(filepath.Join(dir, "report.pdf")); len(b) > 20<<10 {
		t.Fatalf("the PDF is %d bytes", len(b))
	}
	// A PDF without its extension is known by its first bytes.
	b, _ := os.ReadFile(filepath.Join(dir, "report.pdf"))
	write("report.bin", string(b))

	out, err := runDocument(t, dir, map[string]cty.Value{"path": cty.StringVal("notes.md")})
	if err != nil {
		t.Fatal(err)
	}
	if out["text"].AsString() != "Intro line\n\n# Setup\n\nInstall it.\n" || out["title"].AsString() != "Setup" || out["media_type"].AsString() != blocks.MediaMarkdown {
		t.Errorf("markdown: %#v", out)
	}
	if m := out["metadata"].AsValueMap(); m["source"].AsString() != "notes.md" || len(m["sha256"].AsString()) != 64 || m["bytes"].AsString() != "33" {
		t.Errorf("markdown metadata: %#v", m)
	}
	if out["pages"].LengthInt() != 0 {
		t.Errorf("markdown pages: %#v", out["pages"])
	}

	out, err = runDocument(t, dir, map[string]cty.Value{"path": cty.StringVal("plain.txt")})
	if err != nil || out["title"].AsString() != "First line" || out["media_type"].AsString() != blocks.MediaText {
		t.Errorf("text: %v %#v", err, out)
	}
	out, err = runDocument(t, dir, map[string]cty.Value{"path": cty.StringVal("README")})
	if err != nil || out["media_type"].AsString() != blocks.MediaText || out["text"].AsString() != "no extension, but text\n" {
		t.Errorf("text without an extension: %v %#v", err, out)
	}

	out, err = runDocument(t, dir, map[string]cty.Value{"path": cty.StringVal("page.html")})
	if err != nil {
		t.Fatal(err)
	}
	text := out["text"].AsString()
	if out["title"].AsString() != "Rivers of Europe" || out["media_type"].AsString() != blocks.MediaHTML {
		t.Errorf("html title %q, type %q", out["title"].AsString(), out["media_type"].AsString())
	}
	for _, want := range []string{"The Danube is the second-longest river", "**Loire**", "North Sea"} {
		if !strings.Contains(text, want) {
			t.Errorf("html text lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"About us", "Copyright", "<p>"} {
		if strings.Contains(text, not) {
			t.Errorf("html text has %q, which is not the main content:\n%s", not, text)
		}
	}

	// HTML given as content.
	out, err = runDocument(t, dir, map[string]cty.Value{
		"content": cty.StringVal("<h2>Hi</h2><p>there <em>you</em></p>"), "media_type": cty.StringVal(blocks.MediaHTML),
	})
	if err != nil || !strings.Contains(out["text"].AsString(), "there *you*") {
		t.Errorf("html content: %v %#v", err, out)
	}

	for _, name := range []string{"report.pdf", "report.bin"} {
		out, err = runDocument(t, dir, map[string]cty.Value{"path": cty.StringVal(name)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pages := out["pages"].AsValueSlice()
		if len(pages) != 2 || pages[0].AsString() != "Revenue grew in the first quarter." || pages[1].AsString() != "Costs fell in the second quarter." {
			t.Errorf("%s pages: %#v", name, pages)
		}
		if out["text"].AsString() != "Revenue grew in the first quarter.\n\nCosts fell in the second quarter." ||
			out["title"].AsString() != "Quarterly report" || out["media_type"].AsString() != blocks.MediaPDF {
			t.Errorf("%s: %#v", name, out)
		}
		if m := out["metadata"].AsValueMap(); m["pages"].AsString() != "2" || m["author"].AsString() != "Ada Lovelace" {
			t.Errorf("%s metadata: %#v", name, m)
		}
	}
}

// TestDocumentErrors: a file the block cannot read is a step error naming
// the file and why, never empty text.
func TestDocumentErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("broken.pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"))
	write("notpdf.pdf", []byte("just some text, not a PDF"))
	write("image.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"))
	write("binary.md", []byte("# Title\x00\x01\x02\xff\xfe"))
	write("data.xyz", []byte{0x00, 0x9f, 0x92, 0x96, 0xff})
	writePDF(t, filepath.Join(dir, "blank.pdf"), "Blank", "")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		inputs map[string]cty.Value
		want   string
	}{
		{map[string]cty.Value{"path": cty.StringVal("broken.pdf")}, `"broken.pdf" is not a PDF that can be read`},
		{map[string]cty.Value{"path": cty.StringVal("notpdf.pdf")}, `"notpdf.pdf" is not a PDF that can be read`},
		{map[string]cty.Value{"path": cty.StringVal("blank.pdf")}, `"blank.pdf" is a PDF with no text`},
		{map[string]cty.Value{"path": cty.StringVal("image.png")}, `"image.png" is a file of an unknown type (image/png)`},
		{map[string]cty.Value{"path": cty.StringVal("data.xyz")}, `"data.xyz" is a file of an unknown type`},
		{map[string]cty.Value{"path": cty.StringVal("binary.md")}, `"binary.md" is binary, not text/markdown text`},
		{map[string]cty.Value{"path": cty.StringVal("gone.md")}, `cannot read "gone.md"`},
		{map[string]cty.Value{"path": cty.StringVal("sub")}, `"sub" is a directory`},
		{map[string]cty.Value{"path": cty.StringVal("../x.md")}, `must be relative to the flow's directory`},
		{map[string]cty.Value{"path": cty.StringVal("image.png"), "media_type": cty.StringVal("image/png")}, `"image/png" is not one of text/markdown, text/plain, text/html, application/pdf`},
		{map[string]cty.Value{"content": cty.StringVal("x")}, "needs a media_type"},
		{map[string]cty.Value{"content": cty.StringVal("x"), "media_type": cty.StringVal(blocks.MediaPDF)}, "a PDF is read from a file"},
		{map[string]cty.Value{}, "give the document a path"},
	} {
		out, err := runDocument(t, dir, tt.inputs)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v (%v), want an error with %q", tt.inputs, err, out, tt.want)
		}
	}
}
