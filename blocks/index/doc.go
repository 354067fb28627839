// Package index finds blocks for a need: the search behind
// `flowctl blocks search` and the thinker's search stage (docs/design.md, "The thinker").
//
// An Index is built once from the blocks of a registry (the built-ins and
// the user blocks). Search ranks them by BM25 over four fields of each
// block: its name (split at underscores and camelCase humps), tags,
// description and use_when. The fields are weighted in the manner of BM25F:
// a query term in the name counts three times, in the tags twice, in the
// description or use_when once, each field normalized by its own average
// length. Text is lower-cased, English stop words are dropped and the
// remaining words are stemmed, so that "fetches pages" finds "fetch a web
// page". Ties are broken by name, so the order is stable.
//
// The stemmer is the Snowball (Porter2) English stemmer of
// github.com/kljensen/snowball, a dependency-free implementation tested
// against Snowball's own vocabulary. The scoring is written here: the Go
// BM25 libraries score one flat text per document and cannot weight fields,
// and BM25F over a few hundred short documents is a few dozen lines.
//
// With UseEmbeddings, SearchContext also embeds the query and ranks by a
// mix of the two: the BM25 score divided by the best one, and the cosine
// similarity to the block's embedding rescaled so that the least similar
// block is 0 and the most similar 1, in equal parts (relative score
// fusion). Block vectors are kept in a VectorCache under a key made from
// the model and the SHA-256 of the embedded text, so a registry is embedded
// once per model and again only where a block changes. Which provider
// computes the vectors is the caller's business: package blocks/llm has an
// Embedder for OpenAI-compatible servers, package runtime/state a
// VectorCache in the state database.
//
// Compatible decides whether a found block can serve as the block the
// thinker asked for, by the types of its inputs and outputs, and says why
// not when it cannot.
package index
