package blocks

import (
	"context"
	"fmt"

	"github.com/flowctl/flowctl/lang"
)

// The distances a collection may rank by (lang.CollectionDistances).
const (
	DistanceCosine    = "cosine"
	DistanceEuclidean = "euclidean"
	DistanceDot       = "dot"
)

// Distances are the distances a collection block may declare.
var Distances = lang.CollectionDistances

// CollectionSpec is what a `collection` block declares.
type CollectionSpec struct {
	Name       string
	Dimensions int
	Distance   string // one of Distances
}

// Collections opens the vector collections of a run's state. The
// runtime hands a step of vector_upsert, vector_delete or vector_search
// the collection it names (Call.Collection), opened through the state's
// Collections; blocks never reach the state otherwise.
type Collections interface {
	Collection(ctx context.Context, spec CollectionSpec) (Collection, error)
}

// Collection is a named set of vectors with their texts and metadata,
// kept by the state. Its methods are safe for concurrent use.
type Collection interface {
	Spec() CollectionSpec
	// Upsert stores items, replacing those with the same ids. With
	// replace, the items whose metadata match it are deleted first, in
	// the same transaction: a document's chunks are replaced as a unit,
	// and a search sees either all the old ones or all the new.
	Upsert(ctx context.Context, items []VectorItem, replace Filter) error
	// Delete removes the items with the given ids, and, when where is
	// not empty, those whose metadata match it; it returns how many.
	Delete(ctx context.Context, ids []string, where Filter) (int, error)
	// Search returns the items closest to q, best first.
	Search(ctx context.Context, q VectorQuery) ([]VectorMatch, error)
}

// VectorItem is one entry of a collection. Metadata values are strings,
// float64s or bools.
type VectorItem struct {
	ID       string
	Vector   []float32
	Text     string
	Metadata map[string]any
}

// Filter selects items by metadata, every condition at once: a key's
// value equal to Eq, or within the bounds of a range.
type Filter []Condition

// Condition is one key's test. Eq is a string, float64 or bool; the
// bounds are numbers (nil: unbounded).
type Condition struct {
	Key             string
	Eq              any
	GT, GTE, LT, LE *float64
}

// Match reports whether metadata satisfies every condition of f.
func (f Filter) Match(metadata map[string]any) bool {
	for _, c := range f {
		v, ok := metadata[c.Key]
		if !ok {
			return false
		}
		if c.Eq != nil {
			if fmt.Sprint(v) != fmt.Sprint(c.Eq) || typeName(v) != typeName(c.Eq) {
				return false
			}
			continue
		}
		n, ok := v.(float64)
		if !ok {
			return false
		}
		if c.GT != nil && !(n > *c.GT) || c.GTE != nil && !(n >= *c.GTE) ||
			c.LT != nil && !(n < *c.LT) || c.LE != nil && !(n <= *c.LE) {
			return false
		}
	}
	return true
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	}
	return fmt.Sprintf("%T", v)
}

// Search modes.
const (
	SearchVector = "vector" // nearest vectors only
	SearchHybrid = "hybrid" // BM25 over the texts and vectors, fused by reciprocal rank
)

// VectorQuery is a search of a collection.
type VectorQuery struct {
	Vector []float32
	// Query is the text BM25 ranks by in hybrid mode.
	Query  string
	Mode   string // SearchVector (also for "") or SearchHybrid
	TopK   int
	Filter Filter
	// MinScore drops matches scoring below it; nil: none dropped. In
	// vector mode the score is the similarity (cosine: 1 - the cosine
	// distance; euclidean: -the distance; dot: the dot product), in
	// hybrid mode the fused reciprocal-rank score.
	MinScore *float64
}

// VectorMatch is one item a search found.
type VectorMatch struct {
	ID       string
	Score    float64
	Text     string
	Metadata map[string]any
}

// DimensionError is the error of a vector whose length is not the
// collection's dimensions.
type DimensionError struct {
	Collection string
	What       string // "the vector of item \"a\"", "the query vector"
	Got, Want  int
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("collection %q has %d dimensions, and %s has %d", e.Collection, e.Want, e.What, e.Got)
}
