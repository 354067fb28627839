package blocks

import (
	"context"
	"fmt"

	"github.com/zclconf/go-cty/cty"
)

// What the block definitions and Executors need of the retrieval blocks,
// whose executors are in package blocks/retrieval.

// ChunkType is the type of the chunk block's chunks: each one's text, its
// start and end in the text (in characters, end excluded, as substr
// counts), its tokens and the heading of its section.
var ChunkType = cty.Object(map[string]cty.Type{
	"text": cty.String, "start": cty.Number, "end": cty.Number, "tokens": cty.Number, "heading": cty.String,
})

// The media types the document block reads.
const (
	MediaMarkdown = "text/markdown"
	MediaText     = "text/plain"
	MediaHTML     = "text/html"
	MediaPDF      = "application/pdf"
)

// DocumentMediaTypes are the media types the document block reads.
var DocumentMediaTypes = []string{MediaMarkdown, MediaText, MediaHTML, MediaPDF}

// IsVectorBlock reports whether b is one of the built-ins that name a
// collection (collection = collection.NAME).
func IsVectorBlock(b *Block) bool {
	return b != nil && b.Builtin() && (b.Name == "vector_upsert" || b.Name == "vector_delete" || b.Name == "vector_search")
}

// EmbedsQuery reports whether steps of b may embed a query with a model
// (vector_search), and so name a provider.
func EmbedsQuery(b *Block) bool { return b != nil && b.Builtin() && b.Name == "vector_search" }

// MaxTopK bounds vector_search's top_k.
const MaxTopK = 1000

// CheckTopK checks vector_search's top_k.
func CheckTopK(v cty.Value) error {
	bf := v.AsBigFloat()
	if n, acc := bf.Int64(); !bf.IsInt() || acc != 0 || n < 1 || n > MaxTopK {
		return fmt.Errorf("must be a whole number from 1 to %d, not %s", MaxTopK, bf.Text('g', -1))
	}
	return nil
}

// A QueryEmbedder embeds the query of a vector_search step that gives
// no vector, with the step's provider (call.Provider, else the
// environment's) and its model input (else the environment's embeddings
// model), as embed does. The executor of llm blocks is one; Executors.For
// hands it to vector_search.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, call *Call, query string) ([]float32, *Usage, error)
}

// A QueryEmbedderUser is an executor that embeds queries (vector_search's):
// Executors.For gives it the executor of llm blocks, as WithEmbedder's
// copy of it, when it has none.
type QueryEmbedderUser interface {
	Executor
	HasEmbedder() bool
	WithEmbedder(QueryEmbedder) Executor
}
