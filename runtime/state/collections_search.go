package state

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
)

// Searching a collection: by vector (the HNSW graph, or pgvector), and
// hybrid (BM25 over the texts, fused by reciprocal rank).

// Search implements blocks.Collection.
func (c *collection) Search(ctx context.Context, q blocks.VectorQuery) ([]blocks.VectorMatch, error) {
	if q.TopK < 1 {
		return nil, fmt.Errorf("collection %q: top_k must be at least 1, not %d", c.spec.Name, q.TopK)
	}
	hybrid := q.Mode == blocks.SearchHybrid
	if q.Mode != "" && q.Mode != blocks.SearchVector && !hybrid {
		return nil, fmt.Errorf("collection %q: mode %q is not vector or hybrid", c.spec.Name, q.Mode)
	}
	if q.Vector == nil && !hybrid {
		return nil, fmt.Errorf("collection %q: a vector search needs a vector", c.spec.Name)
	}
	if hybrid && q.Query == "" {
		return nil, fmt.Errorf("collection %q: a hybrid search needs the query's text, which BM25 ranks by", c.spec.Name)
	}
	var vec []blocks.VectorMatch
	if q.Vector != nil {
		if err := c.check("the query vector", q.Vector); err != nil {
			return nil, err
		}
		k := q.TopK
		if hybrid {
			k = max(q.TopK, hybridDepth)
		}
		var err error
		if c.graph != nil {
			vec, err = c.graph.search(ctx, q.Vector, k, q.Filter)
		} else {
			vec, err = c.searchPostgres(ctx, q.Vector, k, q.Filter)
		}
		if err != nil {
			return nil, fmt.Errorf("searching collection %q: %w", c.spec.Name, err)
		}
	}
	out := vec
	if hybrid {
		docs, err := c.texts(ctx, q.Filter)
		if err != nil {
			return nil, fmt.Errorf("searching collection %q: %w", c.spec.Name, err)
		}
		out = fuse(vec, bm25Ranking(docs, q.Query, hybridDepth))
	}
	if q.MinScore != nil {
		out = slices.DeleteFunc(out, func(m blocks.VectorMatch) bool { return m.Score < *q.MinScore })
	}
	if len(out) > q.TopK {
		out = out[:q.TopK]
	}
	return out, nil
}

// hybridDepth is how many of each ranking a hybrid search fuses.
const hybridDepth = 50

// rrfK is reciprocal rank fusion's constant: a match at rank r (from 1)
// adds 1/(rrfK + r).
const rrfK = 60

// texts are the live items that match f, for BM25.
func (c *collection) texts(ctx context.Context, f blocks.Filter) ([]blocks.VectorMatch, error) {
	if c.graph != nil {
		return c.graph.texts(ctx, f)
	}
	where, args := filterSQL(true, f)
	rows, err := c.s.db.QueryContext(ctx, `SELECT id, text, metadata FROM collection_items WHERE collection = ? AND live = 1`+where,
		append([]any{c.spec.Name}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []blocks.VectorMatch
	for rows.Next() {
		var m blocks.VectorMatch
		var meta string
		if err := rows.Scan(&m.ID, &m.Text, &meta); err != nil {
			return nil, err
		}
		if m.Metadata, err = decodeMetadata(meta); err != nil {
			return nil, err
		}
		if f.Match(m.Metadata) {
			out = append(out, m)
		}
	}
	return out, rows.Err()
}

// bm25Ranking ranks docs by BM25 for query (blocks/index's), the best
// limit of those that share a term with it.
func bm25Ranking(docs []blocks.VectorMatch, query string, limit int) []blocks.VectorMatch {
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	scores := index.BM25(texts, query)
	var out []blocks.VectorMatch
	for i, s := range scores {
		if s > 0 {
			d := docs[i]
			d.Score = s
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b blocks.VectorMatch) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// fuse merges rankings by reciprocal rank: an item's score is the sum of
// 1/(rrfK + rank) over the rankings it is in.
func fuse(rankings ...[]blocks.VectorMatch) []blocks.VectorMatch {
	byID := map[string]*blocks.VectorMatch{}
	var order []string
	for _, r := range rankings {
		for i, m := range r {
			f := byID[m.ID]
			if f == nil {
				m := m
				m.Score = 0
				f = &m
				byID[m.ID] = f
				order = append(order, m.ID)
			}
			f.Score += 1 / float64(rrfK+i+1)
		}
	}
	out := make([]blocks.VectorMatch, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	slices.SortStableFunc(out, func(a, b blocks.VectorMatch) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}
