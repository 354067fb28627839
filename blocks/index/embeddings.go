package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/flowctl/flowctl/blocks"
)

// Embedder turns texts into embedding vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// VectorCache keeps embedding vectors between runs. Keys are opaque
// strings that already name the model (see VectorKey).
type VectorCache interface {
	Get(key string) ([]float32, bool)
	Put(key string, v []float32) error
}

// textWeight is the share of the BM25 score in the combined score; the
// rest is the vector similarity's.
const textWeight = 0.5

// embeddings are the vectors an index searches with.
type embeddings struct {
	e     Embedder
	cache VectorCache // nil: none
	model string
	vecs  [][]float32 // per document, unit length
}

// VectorKey is the cache key of the embedding of text by model: the hex
// SHA-256 of both, so one cache can hold the vectors of several models.
func VectorKey(model, text string) string {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// UseEmbeddings embeds every block's text with e, taking the vectors that
// cache (which may be nil) has and storing the ones it computes, all in one
// call of e for the blocks the cache lacks. From then on SearchContext
// embeds its queries too and ranks by BM25 and cosine similarity together.
// On an error (the provider has no embeddings endpoint, the model is
// unknown, the cache cannot be written) nothing changes: the index goes on
// with BM25 alone, and the caller can say so once.
func (ix *Index) UseEmbeddings(ctx context.Context, e Embedder, cache VectorCache, model string) error {
	vecs := make([][]float32, len(ix.docs))
	var missing []int
	for i, d := range ix.docs {
		if cache != nil {
			if v, ok := cache.Get(VectorKey(model, d.text)); ok && len(v) > 0 {
				vecs[i] = v
				continue
			}
		}
		missing = append(missing, i)
	}
	if len(missing) > 0 {
		texts := make([]string, len(missing))
		for j, i := range missing {
			texts[j] = ix.docs[i].text
		}
		got, err := e.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embedding the blocks with model %q: %w", model, err)
		}
		if len(got) != len(texts) {
			return fmt.Errorf("embedding the blocks with model %q: %d vectors came back for %d texts", model, len(got), len(texts))
		}
		for j, i := range missing {
			if len(got[j]) == 0 {
				return fmt.Errorf("embedding the blocks with model %q: the vector of block %q is empty", model, ix.docs[i].block.Name)
			}
			vecs[i] = got[j]
		}
	}
	for i := range vecs {
		if len(vecs[i]) != len(vecs[0]) {
			return fmt.Errorf("embedding the blocks with model %q: the vector of block %q has %d dimensions, that of block %q %d",
				model, ix.docs[i].block.Name, len(vecs[i]), ix.docs[0].block.Name, len(vecs[0]))
		}
	}
	if cache != nil {
		var errs []error
		for _, i := range missing {
			if err := cache.Put(VectorKey(model, ix.docs[i].text), vecs[i]); err != nil {
				errs = append(errs, err)
			}
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("storing the vectors of model %q: %w", model, err)
		}
	}
	for i := range vecs {
		vecs[i] = unit(vecs[i])
	}
	ix.mu.Lock()
	ix.emb = &embeddings{e: e, cache: cache, model: model, vecs: vecs}
	ix.mu.Unlock()
	return nil
}

// SearchContext is Search, and with embeddings (UseEmbeddings) it embeds
// the query and ranks every block by the BM25 score and the cosine
// similarity together (see the package documentation). When the query
// cannot be embedded it returns Search's hits with the error.
func (ix *Index) SearchContext(ctx context.Context, query string, limit int) ([]Hit, error) {
	ix.mu.RLock()
	emb := ix.emb
	ix.mu.RUnlock()
	if emb == nil || len(ix.docs) == 0 || strings.TrimSpace(query) == "" {
		return ix.Search(query, limit), nil
	}
	q, err := emb.query(ctx, query)
	if err != nil {
		return ix.Search(query, limit), err
	}
	if len(q) != len(emb.vecs[0]) {
		return ix.Search(query, limit), fmt.Errorf("embedding the query with model %q: the vector has %d dimensions, the blocks' %d", emb.model, len(q), len(emb.vecs[0]))
	}
	text := ix.textScores(query)
	maxText := 0.0
	for _, s := range text {
		maxText = max(maxText, s)
	}
	sims := make([]float64, len(ix.docs))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range ix.docs {
		sims[i] = dot(q, emb.vecs[i])
		lo, hi = min(lo, sims[i]), max(hi, sims[i])
	}
	hits := make([]Hit, len(ix.docs))
	for i, d := range ix.docs {
		var t, v float64
		if maxText > 0 {
			t = text[i] / maxText
		}
		switch {
		case hi > lo:
			v = (sims[i] - lo) / (hi - lo)
		case sims[i] > 0:
			v = 1
		}
		hits[i] = Hit{Block: d.block, Score: textWeight*t + (1-textWeight)*v, Text: text[i], Vector: sims[i]}
	}
	return rank(hits, limit), nil
}

// query embeds a query, through the cache.
func (emb *embeddings) query(ctx context.Context, query string) ([]float32, error) {
	key := VectorKey(emb.model, query)
	if emb.cache != nil {
		if v, ok := emb.cache.Get(key); ok && len(v) > 0 {
			return unit(v), nil
		}
	}
	got, err := emb.e.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embedding the query with model %q: %w", emb.model, err)
	}
	if len(got) != 1 || len(got[0]) == 0 {
		return nil, fmt.Errorf("embedding the query with model %q: no vector came back", emb.model)
	}
	if emb.cache != nil {
		if err := emb.cache.Put(key, got[0]); err != nil {
			return nil, fmt.Errorf("storing the query's vector: %w", err)
		}
	}
	return unit(got[0]), nil
}

// embeddingText is what is embedded for a block: its name in words, what
// it does, when to use it, its tags and the names of its fields.
func embeddingText(b *blocks.Block) string {
	var sb strings.Builder
	sb.WriteString(strings.Join(words(b.Name), " "))
	for _, s := range []string{b.Description, b.UseWhen} {
		if s != "" {
			sb.WriteString(". ")
			sb.WriteString(strings.TrimRight(s, ". "))
		}
	}
	for _, part := range []struct {
		label string
		items []string
	}{{"Tags", b.Tags}, {"Inputs", b.InputNames()}, {"Outputs", b.OutputNames()}} {
		if len(part.items) > 0 {
			sb.WriteString(". " + part.label + ": " + strings.Join(part.items, ", "))
		}
	}
	return sb.String()
}

// unit returns v scaled to length 1, as float32s (a zero vector stays
// zero), so that a dot product is the cosine similarity.
func unit(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	n := math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
