package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// memCache is a blocks.PartCache in memory.
type memCache struct {
	mu sync.Mutex
	m  map[string]json.RawMessage
}

func (c *memCache) Get(key string) (json.RawMessage, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok, nil
}

func (c *memCache) Put(key string, v json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]json.RawMessage{}
	}
	c.m[key] = v
}

// embedCall is a call of the embed built-in with inputs, the others at
// their defaults.
func embedCall(t *testing.T, inputs map[string]cty.Value) *blocks.Call {
	t.Helper()
	b := blocks.NewRegistry().Lookup("embed")
	in := map[string]cty.Value{}
	for _, f := range b.Inputs {
		if v, ok := inputs[f.Name]; ok {
			in[f.Name] = v
		} else if f.Default != cty.NilVal {
			in[f.Name] = f.Default
		} else {
			in[f.Name] = cty.NullVal(f.Type.Type)
		}
	}
	return &blocks.Call{Block: b, Inputs: in, Step: "embed"}
}

func stringList(ss ...string) cty.Value {
	vs := make([]cty.Value, len(ss))
	for i, s := range ss {
		vs[i] = cty.StringVal(s)
	}
	return cty.ListVal(vs)
}

// sent is every text the server received, in order.
func (s *embedServer) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		out = append(out, r.Input...)
	}
	return out
}

func vectorsOf(t *testing.T, v cty.Value) [][]float64 {
	t.Helper()
	var out [][]float64
	for _, row := range v.AsValueSlice() {
		var r []float64
		for _, x := range row.AsValueSlice() {
			f, _ := x.AsBigFloat().Float64()
			r = append(r, f)
		}
		out = append(out, r)
	}
	return out
}

// TestEmbedStep: the embed built-in returns each text's vector in order,
// in requests of batch_size texts, with the embeddings model, and counts
// the tokens of what it sent; blocks.Executors runs it on the llm
// executor.
func TestEmbedStep(t *testing.T) {
	srv := newEmbedServer(t)
	cfg := srv.config()
	cfg.EmbeddingsModel = "text-embedding-3-small"
	ex := NewExecutor(cfg)
	call := embedCall(t, map[string]cty.Value{
		"texts": stringList("a b c", "hello", "one two", "x", "hello"), "batch_size": cty.NumberIntVal(2),
	})
	got, err := (&blocks.Executors{Runtimes: map[string]blocks.Executor{"llm": ex}}).For(call.Block)
	if err != nil || got != ex {
		t.Fatalf("the executor of embed: %v %v", got, err)
	}
	res, err := ex.Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{5, 2, 1}, {5, 0, 1}, {7, 1, 1}, {1, 0, 1}, {5, 0, 1}}
	if got := vectorsOf(t, res.Outputs["vectors"]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("vectors %v, want %v", got, want)
	}
	if fmt.Sprint(vectorsOf(t, cty.ListVal([]cty.Value{res.Outputs["vector"]}))) != "[[5 2 1]]" || res.Outputs["dimensions"].AsBigFloat().String() != "3" {
		t.Errorf("vector %#v, dimensions %#v", res.Outputs["vector"], res.Outputs["dimensions"])
	}
	// "hello" twice is sent once: 4 texts in batches of 2.
	srv.mu.Lock()
	var sizes []int
	for _, r := range srv.requests {
		sizes = append(sizes, len(r.Input))
		if r.Model != "text-embedding-3-small" {
			t.Errorf("model %q", r.Model)
		}
	}
	srv.mu.Unlock()
	if fmt.Sprint(sizes) != "[2 2]" || res.Outputs["embedded"].AsBigFloat().String() != "4" {
		t.Errorf("request sizes %v, embedded %v", sizes, res.Outputs["embedded"])
	}
	// As the server reports them (a token a text here); a server that
	// reports none has them counted (TestEmbedNamesProvider).
	if res.Usage == nil || res.Usage.PromptTokens != 4 || res.Usage.TotalTokens != 4 {
		t.Errorf("usage %+v", res.Usage)
	}
	// One text, and a model of the step's own.
	res, err = ex.Execute(testCtx(t), embedCall(t, map[string]cty.Value{"text": cty.StringVal("hi there"), "model": cty.StringVal("nomic-embed-text")}))
	if err != nil || fmt.Sprint(vectorsOf(t, res.Outputs["vectors"])) != "[[8 1 1]]" {
		t.Fatalf("one text: %v %v", err, res)
	}
	if srv.requests[len(srv.requests)-1].Model != "nomic-embed-text" {
		t.Errorf("the step's model was not sent")
	}
	if k, _ := ex.CacheKey(embedCall(t, map[string]cty.Value{"text": cty.StringVal("x")})); k != "embeddings model=text-embedding-3-small" {
		t.Errorf("cache key %q", k)
	}
}

// TestEmbedCachePerText: with a cache, editing one of several documents
// sends only that document's changed chunks, however the texts fall into
// batches (the edited chunk moves every batch boundary after it), and a
// server failure is retried as llm calls are.
func TestEmbedCachePerText(t *testing.T) {
	srv := newEmbedServer(t)
	cfg := srv.config()
	cfg.EmbeddingsModel = "m"
	ex := NewExecutor(cfg)
	cache := &memCache{}
	docs := map[string][]string{}
	for _, d := range []string{"a", "b", "c"} {
		for i := range 5 {
			docs[d] = append(docs[d], fmt.Sprintf("document %s chunk %d", d, i))
		}
	}
	all := func() []string {
		var out []string
		for _, d := range []string{"a", "b", "c"} {
			out = append(out, docs[d]...)
		}
		return out
	}
	run := func() (int, [][]float64) {
		t.Helper()
		before := len(srv.sent())
		call := embedCall(t, map[string]cty.Value{"texts": stringList(all()...), "batch_size": cty.NumberIntVal(4)})
		call.Cache = cache
		res, err := ex.Execute(testCtx(t), call)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := res.Outputs["embedded"].AsBigFloat().Int64()
		distinct := map[string]bool{}
		for _, s := range srv.sent()[before:] {
			distinct[s] = true
		}
		if int(n) != len(distinct) {
			t.Errorf("embedded %d, the server received %d texts", n, len(distinct))
		}
		return len(distinct), vectorsOf(t, res.Outputs["vectors"])
	}
	if n, _ := run(); n != 15 {
		t.Fatalf("first run sent %d texts, want 15", n)
	}
	if n, _ := run(); n != 0 {
		t.Errorf("an unchanged run sent %d texts", n)
	}
	// Edit document b: one chunk changed, one added at its start.
	docs["b"][2] = "document b chunk 2, edited at some length"
	docs["b"] = append([]string{"document b new first chunk"}, docs["b"]...)
	srv.mu.Lock()
	failAt := len(srv.requests)
	srv.mu.Unlock()
	srv.fail = func(n int, w http.ResponseWriter) bool {
		if n == failAt { // the first request after the edit fails once
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	before := len(srv.sent())
	n, vecs := run()
	sent := srv.sent()[before:]
	if n != 2 || len(sent) != 4 || !strings.Contains(strings.Join(sent, "|"), "document b chunk 2, edited at some length") { // 2 texts, the failed request sent again
		t.Errorf("after editing b the server received %q", sent)
	}
	for _, s := range sent {
		if !strings.HasPrefix(s, "document b") {
			t.Errorf("an unchanged document's chunk was sent again: %q", s)
		}
	}
	if len(vecs) != 16 || fmt.Sprint(vecs[5]) != "[26 4 1]" || fmt.Sprint(vecs[8]) != "[41 7 1]" || fmt.Sprint(vecs[0]) != "[18 3 1]" {
		t.Errorf("vectors after the edit: %v", vecs)
	}
}

// TestEmbedStepErrors: what cannot be embedded is a step error saying
// why.
func TestEmbedStepErrors(t *testing.T) {
	srv := newEmbedServer(t)
	cfg := srv.config()
	noModel := NewExecutor(cfg)
	cfg.EmbeddingsModel = "m"
	ex := NewExecutor(cfg)
	for _, tc := range []struct {
		ex     *Executor
		inputs map[string]cty.Value
		fail   func(w http.ResponseWriter)
		want   string
	}{
		{ex, map[string]cty.Value{}, nil, "give embed the texts to embed"},
		{ex, map[string]cty.Value{"text": cty.StringVal("a"), "texts": stringList("b")}, nil, "texts or text, not both"},
		{ex, map[string]cty.Value{"texts": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.NullVal(cty.String)})}, nil, "text 1 of texts is null"},
		{noModel, map[string]cty.Value{"text": cty.StringVal("a")}, nil, "no embeddings model is set"},
		{NewExecutor(Config{}), map[string]cty.Value{"text": cty.StringVal("a"), "model": cty.StringVal("m")}, nil, "no model server is configured"},
		{ex, map[string]cty.Value{"text": cty.StringVal("a")}, func(w http.ResponseWriter) {
			http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		}, "has no embeddings endpoint (404 Not Found"},
		{ex, map[string]cty.Value{"text": cty.StringVal("a")}, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[],"model":"m"}`)
		}, "returned 0 embeddings for 1 texts"},
	} {
		srv.fail = nil
		if tc.fail != nil {
			srv.fail = func(_ int, w http.ResponseWriter) bool { tc.fail(w); return true }
		}
		_, err := tc.ex.Execute(testCtx(t), embedCall(t, tc.inputs))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.inputs, err, tc.want)
		}
	}
	if err := embedCall(t, nil).Block.CheckInput("batch_size", cty.NumberIntVal(5000)); err == nil || !strings.Contains(err.Error(), "from 1 to 2048") {
		t.Errorf("batch_size 5000: %v", err)
	}
}

// TestEmbedCountsTokensWhenNeeded: the texts an embed step sends are
// tokenized only for a budget, or when the server does not say how many
// tokens it read; the run's ledger counts the server's figure either way.
func TestEmbedCountsTokensWhenNeeded(t *testing.T) {
	calls := 0
	countEmbedTokens = func(model string, texts []string) int { calls++; return embedTokens(model, texts) }
	t.Cleanup(func() { countEmbedTokens = embedTokens })
	srv := newEmbedServer(t)
	cfg := srv.config()
	cfg.EmbeddingsModel = "text-embedding-3-small"
	ex := NewExecutor(cfg)
	for _, c := range []struct {
		ledger *blocks.Ledger
		counts int
	}{
		{blocks.NewLedger(0, 0, blocks.Usage{}), 0},
		{nil, 0},
		{blocks.NewLedger(1000, 0, blocks.Usage{}), 2}, // a batch of 2, a batch of 1
	} {
		calls = 0
		call := embedCall(t, map[string]cty.Value{"texts": stringList("a b c", "hello", "one two"), "batch_size": cty.NumberIntVal(2)})
		call.Ledger = c.ledger
		res, err := ex.Execute(testCtx(t), call)
		if err != nil {
			t.Fatal(err)
		}
		if calls != c.counts {
			t.Errorf("limits %v: the texts were tokenized %d times, want %d", c.ledger.Limits(), calls, c.counts)
		}
		if res.Usage.PromptTokens != 3 || (c.ledger != nil && c.ledger.Spent().PromptTokens != 3) {
			t.Errorf("usage %+v, ledger %+v", res.Usage, c.ledger.Spent())
		}
	}
}

// TestEmbedCachePacked: a text's vector is cached as its float32s in
// base64, about 5.3 characters a number rather than about 10 as a JSON
// array, and read back exactly; a vector cached as a JSON array (as
// earlier versions did) is still used, not sent again.
func TestEmbedCachePacked(t *testing.T) {
	srv := newEmbedServer(t)
	cfg := srv.config()
	cfg.EmbeddingsModel = "m"
	ex := NewExecutor(cfg)
	cache := &memCache{}
	texts := stringList("one text", "another text")
	call := embedCall(t, map[string]cty.Value{"texts": texts})
	call.Cache = cache
	res, err := ex.Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	want := vectorsOf(t, res.Outputs["vectors"])
	if len(cache.m) != 2 {
		t.Fatalf("%d cache entries", len(cache.m))
	}
	v := []float32{0.1, -2.5e-7, 3, 1e30}
	raw := packVector(v)
	if len(raw) != 2+base64.StdEncoding.EncodedLen(16) {
		t.Errorf("packed: %s", raw)
	}
	if got := cachedVector(raw, true); fmt.Sprint(got) != fmt.Sprint(v) {
		t.Errorf("read back %v, want %v", got, v)
	}
	for k, raw := range cache.m {
		if raw[0] != '"' {
			t.Errorf("entry %s: %s", k, raw)
		}
		vec := cachedVector(raw, true)
		old, _ := json.Marshal(vec)
		cache.m[k] = old // as cached before
	}
	before := len(srv.sent())
	res, err = ex.Execute(testCtx(t), call)
	if err != nil || len(srv.sent()) != before || fmt.Sprint(vectorsOf(t, res.Outputs["vectors"])) != fmt.Sprint(want) {
		t.Errorf("with entries of the earlier form: %v, %d sent, %v", err, len(srv.sent())-before, res)
	}
}
