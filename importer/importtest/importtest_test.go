package importtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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

// A chat completion route asked for as a stream answers the same reply as
// an OpenAI-compatible server streams it (n8n's agents ask for streams).
func TestServerStreamsChatCompletions(t *testing.T) {
	c := &Case{Name: "n8n/stream", Files: map[string][]byte{"run/server.json": []byte(`{"POST /v1/chat/completions": {"json": {"id": "c1", "object": "chat.completion", "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Paris."}}], "usage": {"total_tokens": 3}}}}`)}}
	srv := NewServer(t, c)
	res, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model": "m", "stream": true}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var content strings.Builder
	var done bool
	for _, line := range strings.Split(string(b), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		content.WriteString(chunk.Choices[0].Delta.Content)
	}
	if res.Header.Get("Content-Type") != "text/event-stream" || content.String() != "Paris." || !done {
		t.Errorf("the stream: %s %q\n%s", res.Header.Get("Content-Type"), content.String(), b)
	}
	res, err = http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model": "m"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), `"content":"Paris."`) || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("without a stream: %s", b)
	}
}
