package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
)

// embedServer is an OpenAI-compatible embeddings endpoint on loopback. Its
// vector for a text is (length of the text, number of spaces, 1); it
// answers with the data in reverse order, as a server may.
type embedServer struct {
	*httptest.Server
	fail func(n int, w http.ResponseWriter) bool // answers request n instead, when it returns true

	mu       sync.Mutex
	requests []embedRequest
}

type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
	auth  string
}

func newEmbedServer(t *testing.T) *embedServer {
	s := &embedServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var req embedRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.auth = r.Header.Get("Authorization")
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		if s.fail != nil && s.fail(n, w) {
			return
		}
		type datum struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []datum
		for i := len(req.Input) - 1; i >= 0; i-- {
			text := req.Input[i]
			data = append(data, datum{"embedding", i, []float32{float32(len(text)), float32(strings.Count(text, " ")), 1}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *embedServer) config() Config {
	return Config{APIKey: "sk-test-0123", BaseURL: s.URL + "/v1", MaxRetries: 2}
}

func (s *embedServer) recorded() []embedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// embedAPIError answers with an OpenAI-style error reply.
func embedAPIError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error": {"message": %q, "type": "invalid_request_error", "code": %q}}`, msg, code)
}

func TestEmbedderVectors(t *testing.T) {
	srv := newEmbedServer(t)
	e := NewEmbedder(srv.config(), "text-embedding-3-small")
	got, err := e.Embed(context.Background(), []string{"a", "bb cc", "ddd e f"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 0, 1}, {5, 1, 1}, {7, 2, 1}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Embed = %v, want %v (in the order of the texts)", got, want)
	}
	reqs := srv.recorded()
	if len(reqs) != 1 || reqs[0].Model != "text-embedding-3-small" || reqs[0].auth != "Bearer sk-test-0123" ||
		!slices.Equal(reqs[0].Input, []string{"a", "bb cc", "ddd e f"}) {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestEmbedderBatches(t *testing.T) {
	srv := newEmbedServer(t)
	texts := make([]string, 2*embedBatch+10)
	for i := range texts {
		texts[i] = strings.Repeat("x", i)
	}
	got, err := NewEmbedder(srv.config(), "m").Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i, v := range got {
		if v[0] != float32(i) {
			t.Fatalf("vector %d is that of a text of length %g", i, v[0])
		}
	}
	var sizes []int
	for _, r := range srv.recorded() {
		sizes = append(sizes, len(r.Input))
	}
	if !slices.Equal(sizes, []int{embedBatch, embedBatch, 10}) {
		t.Errorf("request sizes %v", sizes)
	}
}

func TestEmbedderRetries(t *testing.T) {
	srv := newEmbedServer(t)
	srv.fail = func(n int, w http.ResponseWriter) bool {
		if n == 0 {
			w.Header().Set("Retry-After", "0")
			embedAPIError(w, http.StatusServiceUnavailable, "", "overloaded")
			return true
		}
		return false
	}
	got, err := NewEmbedder(srv.config(), "m").Embed(context.Background(), []string{"hi"})
	if err != nil || len(got) != 1 {
		t.Fatalf("Embed = %v, %v", got, err)
	}
	if n := len(srv.recorded()); n != 2 {
		t.Errorf("%d requests, want a retry after the 503", n)
	}
}

func TestEmbedderErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		fail     func(w http.ResponseWriter)
		want     string
		requests int
	}{
		{"no endpoint", func(w http.ResponseWriter) { http.NotFound(w, nil) },
			"has no embeddings endpoint (404 Not Found: 404 page not found); unset FLOWCTL_EMBEDDINGS_MODEL", 1},
		{"unknown model", func(w http.ResponseWriter) {
			embedAPIError(w, http.StatusNotFound, "model_not_found", "The model `m` does not exist")
		}, `the embeddings model "m" was not found at`, 1},
		{"unknown model, said in a 400", func(w http.ResponseWriter) {
			embedAPIError(w, http.StatusBadRequest, "", "model \"m\" not found, try pulling it first")
		}, "set FLOWCTL_EMBEDDINGS_MODEL to an embeddings model the server offers", 1},
		{"bad key", func(w http.ResponseWriter) {
			embedAPIError(w, http.StatusUnauthorized, "invalid_api_key", "Incorrect API key sk-test-0123")
		},
			"refused the API key (401 Unauthorized: Incorrect API key (OPENAI_API_KEY))", 1},
		{"server keeps failing", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			embedAPIError(w, http.StatusServiceUnavailable, "", "boom")
		}, "the model server failed (503 Service Unavailable: boom); try again later (after 3 tries)", 3},
		{"wrong number of vectors", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object": "list", "data": []}`)
		}, "returned 0 embeddings for 1 texts", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newEmbedServer(t)
			srv.fail = func(_ int, w http.ResponseWriter) bool { tc.fail(w); return true }
			_, err := NewEmbedder(srv.config(), "m").Embed(ctx, []string{"hi"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Embed error = %v\nwant it to contain %q", err, tc.want)
			}
			if n := len(srv.recorded()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}

	if _, err := NewEmbedder(Config{}, "m").Embed(ctx, []string{"hi"}); err == nil || !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
		t.Errorf("Embed without a server: %v", err)
	}
	if _, err := NewEmbedder(Config{BaseURL: "http://127.0.0.1:1/v1"}, "").Embed(ctx, []string{"hi"}); err == nil || !strings.Contains(err.Error(), "set FLOWCTL_EMBEDDINGS_MODEL") {
		t.Errorf("Embed without a model: %v", err)
	}
}

func TestEmbeddingsModelFromEnv(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "FLOWCTL_EMBEDDINGS_MODEL": " nomic-embed-text "}
	cfg, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EmbeddingsModel != "nomic-embed-text" {
		t.Errorf("EmbeddingsModel = %q", cfg.EmbeddingsModel)
	}
	if m := NewEmbedder(cfg, "").Model(); m != "nomic-embed-text" {
		t.Errorf("NewEmbedder(cfg, \"\").Model() = %q, want the configured model", m)
	}
	if m := NewEmbedder(cfg, "other").Model(); m != "other" {
		t.Errorf("NewEmbedder(cfg, \"other\").Model() = %q", m)
	}
}

// TestEmbedderWithIndex searches a registry through the server.
func TestEmbedderWithIndex(t *testing.T) {
	srv := newEmbedServer(t)
	ix := index.New(blocks.Builtins())
	ctx := context.Background()
	if err := ix.UseEmbeddings(ctx, NewEmbedder(srv.config(), "m"), nil, "m"); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.SearchContext(ctx, "fetch a web page", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Vector == 0 {
		t.Errorf("hits = %+v, want two with vector scores", hits)
	}
	reqs := srv.recorded()
	if len(reqs) != 2 || len(reqs[0].Input) != len(blocks.Builtins()) || !slices.Equal(reqs[1].Input, []string{"fetch a web page"}) {
		t.Errorf("requests = %+v, want the blocks, then the query", reqs)
	}
}
