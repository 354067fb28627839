package importtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRealCases: a case that says it holds a real workflow of the corpus
// holds it as the corpus has it, its hosts rewritten and nothing else,
// and runs (importer/n8nlive checks its outputs against n8n's).
func TestRealCases(t *testing.T) {
	real := 0
	for _, c := range Cases(t, "../testdata") {
		path := c.Corpus()
		if path == "" {
			continue
		}
		real++
		src, err := os.ReadFile(filepath.Join("../..", filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		// Line ends as the archive keeps them.
		src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		if !bytes.Equal(bytes.TrimSpace(RewriteHosts(src)), bytes.TrimSpace(bytes.ReplaceAll(c.Files["source.json"], []byte("\r\n"), []byte("\n")))) {
			t.Errorf("%s: source.json is not %s with its hosts rewritten", c.Name, path)
		}
		if !c.Runs() && !c.Serves() {
			t.Errorf("%s: a real workflow's case runs (run/outputs.json, or run/request.json and run/response.json)", c.Name)
		}
	}
	if real < 20 {
		t.Errorf("%d cases of real workflows", real)
	}
}

func TestRewriteHosts(t *testing.T) {
	got := string(RewriteHosts([]byte(`{"url": "https://api.perplexity.ai/chat/completions", "b": "http://localhost:11434/api/generate?x=1", "c": "text"}`)))
	want := `{"url": "http://test.server/chat/completions", "b": "http://test.server/api/generate?x=1", "c": "text"}`
	if got != want {
		t.Errorf("RewriteHosts:\n got %s\nwant %s", got, want)
	}
}
