package retrieval

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// TestDocumentBase64: a document's bytes given in base64 (an http step's
// download) read as its file would be: a PDF page by page, HTML and text
// by their first bytes or media_type; what is not base64, or several
// sources at once, is an error.
func TestDocumentBase64(t *testing.T) {
	dir := t.TempDir()
	writePDF(t, filepath.Join(dir, "a.pdf"), "Report", "First page", "Second page")
	pdf, err := os.ReadFile(filepath.Join(dir, "a.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(b []byte) cty.Value { return cty.StringVal(base64.StdEncoding.EncodeToString(b)) }
	fromFile, err := runDocument(t, dir, map[string]cty.Value{"path": cty.StringVal("a.pdf")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := runDocument(t, dir, map[string]cty.Value{"content_base64": b64(pdf)})
	if err != nil {
		t.Fatal(err)
	}
	if out["text"].AsString() != fromFile["text"].AsString() || out["media_type"].AsString() != blocks.MediaPDF || out["title"].AsString() != "Report" || out["pages"].LengthInt() != 2 {
		t.Errorf("pdf: %#v", out)
	}
	if out["metadata"].Index(cty.StringVal("source")).AsString() != "" || out["metadata"].Index(cty.StringVal("sha256")).AsString() != fromFile["metadata"].Index(cty.StringVal("sha256")).AsString() {
		t.Errorf("metadata: %#v", out["metadata"])
	}
	out, err = runDocument(t, dir, map[string]cty.Value{"content_base64": b64([]byte("<html><head><title>T</title></head><body><p>Hello there.</p></body></html>"))})
	if err != nil || out["media_type"].AsString() != blocks.MediaHTML || !strings.Contains(out["text"].AsString(), "Hello there.") {
		t.Errorf("html: %v %#v", err, out)
	}
	out, err = runDocument(t, dir, map[string]cty.Value{"content_base64": b64([]byte("# Notes\nplain")), "media_type": cty.StringVal(blocks.MediaMarkdown)})
	if err != nil || out["title"].AsString() != "Notes" || out["text"].AsString() != "# Notes\nplain" {
		t.Errorf("markdown: %v %#v", err, out)
	}
	for _, tt := range []struct {
		inputs map[string]cty.Value
		want   string
	}{
		{map[string]cty.Value{"content_base64": cty.StringVal("%%%")}, "the content_base64 is not base64"},
		{map[string]cty.Value{"content_base64": b64([]byte{0x00, 0x9f, 0xff})}, "the content_base64 is of an unknown type"},
		{map[string]cty.Value{"content_base64": b64([]byte("x")), "path": cty.StringVal("a.pdf")}, "not several"},
		{map[string]cty.Value{"content_base64": b64([]byte("\x00\x01")), "media_type": cty.StringVal(blocks.MediaText)}, "the content_base64 is binary"},
	} {
		out, err := runDocument(t, dir, tt.inputs)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v (%v), want an error with %q", tt.inputs, err, out, tt.want)
		}
	}
}
