package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
)

// fakeEmbeddings is an OpenAI-compatible embeddings endpoint whose vector
// for a text says how much it is about the web and about words. It records
// the inputs of every request.
func fakeEmbeddings(t *testing.T) (*httptest.Server, func() [][]string) {
	var mu sync.Mutex
	var requests [][]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || !strings.HasSuffix(r.URL.Path, "/embeddings") {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		requests = append(requests, req.Input)
		mu.Unlock()
		var data []map[string]any
		for i, text := range req.Input {
			text = strings.ToLower(text)
			v := []float32{0.1, 0.1, 0.1}
			for _, w := range []string{"web", "page", "site", "internet", "html", "url"} {
				v[0] += float32(strings.Count(text, w))
			}
			for _, w := range []string{"word", "text", "count"} {
				v[1] += float32(strings.Count(text, w))
			}
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "fake"})
	}))
	t.Cleanup(srv.Close)
	return srv, func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return append([][]string(nil), requests...)
	}
}

// TestBlocksSearchEmbeddings searches with embeddings from a local server:
// the vectors are cached in .flowctl, so the second search asks the server
// for nothing.
func TestBlocksSearchEmbeddings(t *testing.T) {
	srv, requests := fakeEmbeddings(t)
	t.Chdir(t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("FLOWCTL_EMBEDDINGS_MODEL", "fake-embed")

	type hit struct {
		Name   string  `json:"name"`
		Score  float64 `json:"score"`
		Vector float64 `json:"vector_score"`
	}
	search := func() []hit {
		t.Helper()
		code, out, errOut := runCLI(t, "blocks", "search", "something on the internet", "--json", "--limit", "3")
		if code != 0 || errOut != "" {
			t.Fatalf("blocks search: exit %d\n%s", code, errOut)
		}
		var hits []hit
		if err := json.Unmarshal([]byte(out), &hits); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return hits
	}
	hits := search()
	// No block has a word of the query: the vectors find the web blocks.
	if len(hits) != 3 || hits[0].Name+" "+hits[1].Name != "http scrape" || hits[0].Vector <= hits[2].Vector {
		t.Errorf("hits = %+v, want http and scrape first, by their vectors", hits)
	}
	reqs := requests()
	if len(reqs) != 2 || len(reqs[0]) != len(blocks.Builtins()) || len(reqs[1]) != 1 || reqs[1][0] != "something on the internet" {
		t.Fatalf("requests = %q, want the built-ins, then the query", reqs)
	}
	if _, err := os.Stat(filepath.Join(".flowctl", "state.db")); err != nil {
		t.Errorf("no state in .flowctl: %v", err)
	}

	again := search()
	if len(requests()) != 2 {
		t.Errorf("the second search sent %d more requests, want none: the vectors are cached", len(requests())-2)
	}
	if len(again) != len(hits) || again[0] != hits[0] {
		t.Errorf("the second search found %+v, the first %+v", again, hits)
	}

	// Another model is embedded anew.
	t.Setenv("FLOWCTL_EMBEDDINGS_MODEL", "other-embed")
	search()
	if n := len(requests()); n != 4 {
		t.Errorf("%d requests after changing the model, want 4", n)
	}
}

// TestBlocksSearchWithoutServer checks that a configured model without a
// server is said once and search goes on by text.
func TestBlocksSearchWithoutServer(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("FLOWCTL_EMBEDDINGS_MODEL", "fake-embed")
	code, out, errOut := runCLI(t, "blocks", "search", "fetch a web page")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Count(errOut, "Warning:") != 1 || !strings.Contains(errOut, "no model server is configured") {
		t.Errorf("stderr = %q, want one warning that no server is configured", errOut)
	}
	if !strings.Contains(out, "scrape") {
		t.Errorf("stdout = %q", out)
	}
	if _, err := os.Stat(".flowctl"); err == nil {
		t.Error("a search without a server created .flowctl")
	}
}
