package index

import (
	"math"
	"slices"

	"github.com/flowctl/flowctl/blocks"
)

// Relevance says how much a block is about a purpose (a required block's
// name and description): the share of the purpose's terms, weighted by
// how rare each is among the indexed blocks, that the block's name, tags,
// description or use_when contain — from 0 (none) to 1 (all). Shared are
// those terms, as the purpose writes them (stemmed). A block that is not
// in the index has relevance 0.
func (ix *Index) Relevance(b *blocks.Block, purpose string) (score float64, shared []string) {
	var d *document
	for _, doc := range ix.docs {
		if doc.block == b {
			d = doc
			break
		}
	}
	terms := slices.Compact(slices.Sorted(slices.Values(tokenize(purpose))))
	if d == nil || len(terms) == 0 {
		return 0, nil
	}
	n := float64(len(ix.docs))
	var total, found float64
	for _, t := range terms {
		df := float64(ix.df[t])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		total += idf
		for f := range numFields {
			if d.tf[f][t] > 0 {
				found += idf
				shared = append(shared, t)
				break
			}
		}
	}
	if total == 0 {
		return 0, shared
	}
	return found / total, shared
}
