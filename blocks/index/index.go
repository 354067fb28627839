package index

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/flowctl/flowctl/blocks"
)

// The fields of a block that Search looks at.
const (
	fieldName = iota
	fieldTags
	fieldDescription
	fieldUseWhen
	numFields
)

// fieldWeights are how much a term counts in each field (BM25F): a block's
// name and tags say what it is more surely than its prose.
var fieldWeights = [numFields]float64{
	fieldName:        3,
	fieldTags:        2,
	fieldDescription: 1,
	fieldUseWhen:     1,
}

// BM25 parameters: k1 is how fast repeated terms saturate, b how much a
// field's length counts against it. The usual values.
const (
	k1 = 1.2
	b  = 0.75
)

// Index ranks blocks for a query. Build it with New; it is safe for
// concurrent use.
type Index struct {
	docs   []*document
	df     map[string]int     // documents that contain a term, in any field
	avgLen [numFields]float64 // over the documents in which the field is not empty

	mu  sync.RWMutex
	emb *embeddings // nil until UseEmbeddings succeeds
}

// document is a block as the index sees it.
type document struct {
	block *blocks.Block
	tf    [numFields]map[string]int
	len   [numFields]int
	text  string // what is embedded (embeddingText)
}

// Hit is a block found by a search.
type Hit struct {
	Block *blocks.Block
	// Score is what the hits are ordered by, higher first: the BM25 score
	// alone, or the mix of Text and Vector when embeddings are in use.
	Score float64
	// Text is the BM25 score.
	Text float64
	// Vector is the cosine similarity of the query's and the block's
	// embeddings; 0 without embeddings.
	Vector float64
}

// New indexes blocks: the built-ins and the registry's blocks, as
// blocks.Registry.All returns them.
func New(bs []*blocks.Block) *Index {
	ix := &Index{df: map[string]int{}}
	var total, present [numFields]int
	for _, blk := range bs {
		d := &document{block: blk, text: embeddingText(blk)}
		texts := [numFields][]string{
			fieldName:        {blk.Name},
			fieldTags:        blk.Tags,
			fieldDescription: {blk.Description},
			fieldUseWhen:     {blk.UseWhen},
		}
		seen := map[string]bool{}
		for f, parts := range texts {
			d.tf[f] = map[string]int{}
			for _, p := range parts {
				for _, t := range tokenize(p) {
					d.tf[f][t]++
					d.len[f]++
					if !seen[t] {
						seen[t] = true
						ix.df[t]++
					}
				}
			}
			total[f] += d.len[f]
			if d.len[f] > 0 {
				present[f]++
			}
		}
		ix.docs = append(ix.docs, d)
	}
	// A field's average length is over the blocks that have the field:
	// most blocks have no tags, and counting them would make the tags of
	// those that do look long.
	for f := range numFields {
		if present[f] > 0 {
			ix.avgLen[f] = float64(total[f]) / float64(present[f])
		}
	}
	return ix
}

// Search ranks the blocks that share a term with query by BM25 and returns
// at most limit of them (every one when limit <= 0), best first; blocks
// with equal scores are ordered by name. It never uses embeddings (see
// SearchContext). A query without terms (only stop words or punctuation)
// finds nothing.
func (ix *Index) Search(query string, limit int) []Hit {
	scores := ix.textScores(query)
	var hits []Hit
	for i, s := range scores {
		if s > 0 {
			hits = append(hits, Hit{Block: ix.docs[i].block, Score: s, Text: s})
		}
	}
	return rank(hits, limit)
}

// textScores is the BM25F score of every document for query, in the
// order of ix.docs.
func (ix *Index) textScores(query string) []float64 {
	scores := make([]float64, len(ix.docs))
	terms := slices.Compact(slices.Sorted(slices.Values(tokenize(query))))
	n := float64(len(ix.docs))
	for _, t := range terms {
		df := ix.df[t]
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for i, d := range ix.docs {
			// The weighted, length-normalized frequency of t over the
			// fields, saturated once (BM25F).
			var tf float64
			for f := range numFields {
				c := d.tf[f][t]
				if c == 0 {
					continue
				}
				norm := 1 - b + b*float64(d.len[f])/ix.avgLen[f]
				tf += fieldWeights[f] * float64(c) / norm
			}
			if tf > 0 {
				scores[i] += idf * tf * (k1 + 1) / (tf + k1)
			}
		}
	}
	return scores
}

// rank sorts hits by score, then name, and keeps the first limit.
func rank(hits []Hit, limit int) []Hit {
	slices.SortStableFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.Block.Name, y.Block.Name)
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// BM25 scores each of texts for query by BM25 (one field, the usual
// parameters, this package's terms), in the order of texts: the text
// ranking of a hybrid vector search.
func BM25(texts []string, query string) []float64 {
	tf := make([]map[string]int, len(texts))
	lens := make([]int, len(texts))
	df := map[string]int{}
	total := 0
	for i, t := range texts {
		tf[i] = map[string]int{}
		for _, term := range tokenize(t) {
			if tf[i][term] == 0 {
				df[term]++
			}
			tf[i][term]++
			lens[i]++
		}
		total += lens[i]
	}
	scores := make([]float64, len(texts))
	if total == 0 {
		return scores
	}
	avg := float64(total) / float64(len(texts))
	n := float64(len(texts))
	for _, term := range slices.Compact(slices.Sorted(slices.Values(tokenize(query)))) {
		d := df[term]
		if d == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(d)+0.5)/(float64(d)+0.5))
		for i := range texts {
			c := tf[i][term]
			if c == 0 {
				continue
			}
			f := float64(c) / (1 - b + b*float64(lens[i])/avg)
			scores[i] += idf * f * (k1 + 1) / (f + k1)
		}
	}
	return scores
}
