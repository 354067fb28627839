package index

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// concepts are the dimensions of fakeEmbedder's vectors: a text's vector
// counts the words of each concept it contains, so that texts about the
// same thing are similar without sharing a word.
var concepts = [][]string{
	{"web", "page", "html", "url", "urls", "site", "website", "online", "internet", "http", "link", "links"},
	{"text", "words", "word", "summary", "summarize", "article", "prose", "writing"},
	{"time", "date", "timestamp", "wait", "pause", "delay", "later", "clock"},
	{"data", "csv", "json", "rows", "table", "spreadsheet", "parse"},
}

// fakeEmbedder embeds by concept counts and records its calls.
type fakeEmbedder struct {
	mu    sync.Mutex
	calls [][]string
	err   error
}

func (e *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, slices.Clone(texts))
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, len(concepts)+1)
		v[len(concepts)] = 0.1 // no text is orthogonal to every other
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
			for d, c := range concepts {
				if slices.Contains(c, w) {
					v[d]++
				}
			}
		}
		out[i] = v
	}
	return out, nil
}

func (e *fakeEmbedder) texts() int {
	n := 0
	for _, c := range e.calls {
		n += len(c)
	}
	return n
}

// mapCache is a VectorCache in a map that counts its use.
type mapCache struct {
	m                map[string][]float32
	gets, hits, puts int
	failPut          error
}

func newMapCache() *mapCache { return &mapCache{m: map[string][]float32{}} }

func (c *mapCache) Get(key string) ([]float32, bool) {
	c.gets++
	v, ok := c.m[key]
	if ok {
		c.hits++
	}
	return v, ok
}

func (c *mapCache) Put(key string, v []float32) error {
	if c.failPut != nil {
		return c.failPut
	}
	c.puts++
	c.m[key] = v
	return nil
}

func TestEmbeddingsRankBySimilarity(t *testing.T) {
	ctx := context.Background()
	ix := New(catalog(t))
	e := &fakeEmbedder{}
	if err := ix.UseEmbeddings(ctx, e, newMapCache(), "m1"); err != nil {
		t.Fatal(err)
	}
	// No block shares a word with the query: BM25 finds nothing, the
	// vectors find the web blocks.
	query := "grab something from the internet"
	if hits := ix.Search(query, 0); len(hits) != 0 {
		t.Fatalf("Search found %q by text", names(hits))
	}
	hits, err := ix.SearchContext(ctx, query, 4)
	if err != nil {
		t.Fatal(err)
	}
	// The web blocks, in the order of their similarity.
	got := names(hits)
	slices.Sort(got)
	if want := []string{"dedupe_urls", "html_to_markdown", "http", "scrape"}; !slices.Equal(got, want) {
		t.Errorf("SearchContext = %q, want %q", names(hits), want)
	}
	for _, h := range hits {
		if h.Text != 0 || h.Vector <= 0 || h.Vector > 1.0001 || h.Score <= 0 || h.Score > 1 {
			t.Errorf("hit %s: %+v, want Text 0, Vector in (0, 1], Score in (0, 1]", h.Block.Name, h)
		}
	}

	// Text and vectors together: "fetch" is in the texts of scrape and
	// http, "page" in scrape's, and both are about the web.
	hits, err = ix.SearchContext(ctx, "fetch a web page", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != len(catalog(t)) {
		t.Errorf("SearchContext without a limit gave %d hits, want every block", len(hits))
	}
	if got := names(hits[:2]); !slices.Equal(got, []string{"scrape", "http"}) {
		t.Errorf("SearchContext = %q, want scrape and http first", names(hits))
	}
	bm25 := ix.Search("fetch a web page", 1)
	if hits[0].Score < 0.9 || hits[0].Text != bm25[0].Text || hits[0].Vector < 0.9 {
		t.Errorf("best hit %+v: want a score near 1, the best text score and a similar vector", hits[0])
	}
	last := hits[len(hits)-1]
	if last.Score != 0 {
		t.Errorf("worst hit %s scores %g, want 0", last.Block.Name, last.Score)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hit %d (%s) scores above hit %d", i, hits[i].Block.Name, i-1)
		}
	}
}

func TestEmbeddingsCache(t *testing.T) {
	ctx := context.Background()
	bs := catalog(t)
	cache := newMapCache()

	e := &fakeEmbedder{}
	if err := New(bs).UseEmbeddings(ctx, e, cache, "m1"); err != nil {
		t.Fatal(err)
	}
	if len(e.calls) != 1 || len(e.calls[0]) != len(bs) || cache.puts != len(bs) || cache.hits != 0 {
		t.Fatalf("first index: %d calls embedding %d texts, %d puts, %d hits; want one call for all %d blocks",
			len(e.calls), e.texts(), cache.puts, cache.hits, len(bs))
	}
	if !strings.Contains(e.calls[0][0], "http. Make an HTTP request") || !strings.Contains(e.calls[0][0], "Inputs: url, method") {
		t.Errorf("the text embedded for http is %q", e.calls[0][0])
	}

	// A second index over the same blocks embeds nothing.
	e = &fakeEmbedder{}
	cache.hits, cache.puts = 0, 0
	ix := New(bs)
	if err := ix.UseEmbeddings(ctx, e, cache, "m1"); err != nil {
		t.Fatal(err)
	}
	if len(e.calls) != 0 || cache.hits != len(bs) || cache.puts != 0 {
		t.Errorf("second index: %d calls, %d hits, %d puts; want every vector from the cache", len(e.calls), cache.hits, cache.puts)
	}

	// Queries are cached too.
	for range 2 {
		if _, err := ix.SearchContext(ctx, "web page", 3); err != nil {
			t.Fatal(err)
		}
	}
	if len(e.calls) != 1 || !slices.Equal(e.calls[0], []string{"web page"}) {
		t.Errorf("two searches embedded %q, want the query once", e.calls)
	}

	// A changed block is embedded again, alone.
	changed := slices.Clone(bs)
	c := *changed[7]
	c.Description = "Count the words and lines of a text"
	changed[7] = &c
	e = &fakeEmbedder{}
	if err := New(changed).UseEmbeddings(ctx, e, cache, "m1"); err != nil {
		t.Fatal(err)
	}
	if len(e.calls) != 1 || len(e.calls[0]) != 1 || !strings.Contains(e.calls[0][0], "lines") {
		t.Errorf("after a change: embedded %q, want the changed block only", e.calls)
	}

	// Another model has vectors of its own.
	e = &fakeEmbedder{}
	if err := New(bs).UseEmbeddings(ctx, e, cache, "m2"); err != nil {
		t.Fatal(err)
	}
	if e.texts() != len(bs) {
		t.Errorf("model m2 embedded %d texts, want all %d", e.texts(), len(bs))
	}
	if VectorKey("m1", "x") == VectorKey("m2", "x") || VectorKey("m1", "x") != VectorKey("m1", "x") || len(VectorKey("m", "")) != 64 {
		t.Error("VectorKey does not tell models apart or is not stable")
	}
}

func TestEmbeddingsErrors(t *testing.T) {
	ctx := context.Background()
	bs := catalog(t)
	bm25 := New(bs).Search("fetch a web page", 0)

	// The provider has no embeddings: the error is returned and the index
	// goes on with BM25.
	ix := New(bs)
	e := &fakeEmbedder{err: errors.New("404 Not Found")}
	err := ix.UseEmbeddings(ctx, e, newMapCache(), "m1")
	if err == nil || !strings.Contains(err.Error(), `embedding the blocks with model "m1": 404 Not Found`) {
		t.Fatalf("UseEmbeddings = %v", err)
	}
	hits, err := ix.SearchContext(ctx, "fetch a web page", 0)
	if err != nil || !slices.Equal(names(hits), names(bm25)) || hits[0].Vector != 0 {
		t.Errorf("SearchContext after a failed UseEmbeddings = %q, %v; want the BM25 hits", names(hits), err)
	}
	if len(e.calls) != 1 {
		t.Errorf("%d calls of the embedder, want 1", len(e.calls))
	}

	// The query cannot be embedded: BM25's hits and the error.
	e = &fakeEmbedder{}
	if err := ix.UseEmbeddings(ctx, e, nil, "m1"); err != nil {
		t.Fatal(err)
	}
	e.err = errors.New("connection refused")
	hits, err = ix.SearchContext(ctx, "fetch a web page", 0)
	if err == nil || !strings.Contains(err.Error(), "embedding the query") || !slices.Equal(names(hits), names(bm25)) {
		t.Errorf("SearchContext = %q, %v; want the BM25 hits and the error", names(hits), err)
	}

	// A cache that cannot be written.
	cache := newMapCache()
	cache.failPut = errors.New("disk full")
	if err := New(bs).UseEmbeddings(ctx, &fakeEmbedder{}, cache, "m1"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("UseEmbeddings with a failing cache = %v", err)
	}

	// Vectors that do not fit.
	for name, emb := range map[string]Embedder{
		"too few":         embedFunc(func(texts []string) [][]float32 { return [][]float32{{1}} }),
		"mixed lengths":   embedFunc(func(texts []string) [][]float32 { return ragged(len(texts)) }),
		"an empty vector": embedFunc(func(texts []string) [][]float32 { return make([][]float32, len(texts)) }),
	} {
		if err := New(bs).UseEmbeddings(ctx, emb, nil, "m1"); err == nil {
			t.Errorf("%s: UseEmbeddings succeeded", name)
		}
	}
}

type embedFunc func(texts []string) [][]float32

func (f embedFunc) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return f(texts), nil
}

func ragged(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, 1+i%2)
		out[i][0] = 1
	}
	return out
}

func TestEmbeddingsEmptyIndex(t *testing.T) {
	ctx := context.Background()
	ix := New(nil)
	e := &fakeEmbedder{}
	if err := ix.UseEmbeddings(ctx, e, newMapCache(), "m1"); err != nil {
		t.Fatal(err)
	}
	if hits, err := ix.SearchContext(ctx, "web page", 0); err != nil || len(hits) != 0 {
		t.Errorf("SearchContext on an empty index = %v, %v", hits, err)
	}
	if len(e.calls) != 0 {
		t.Errorf("an empty index embedded %q", e.calls)
	}
}

// TestConcurrentSearch runs searches while embeddings are switched on.
func TestConcurrentSearch(t *testing.T) {
	ctx := context.Background()
	ix := New(catalog(t))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if _, err := ix.SearchContext(ctx, "web page", 3); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if err := ix.UseEmbeddings(ctx, &fakeEmbedder{}, nil, "m1"); err != nil {
		t.Error(err)
	}
	wg.Wait()
}
