package blocks

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// DefaultMaxBytes is the default response limit of http and scrape.
const DefaultMaxBytes = 10 << 20

// MaxBodyBytes is the largest max_bytes of http and scrape: a response is
// held in memory, and a step's outputs are stored in the state.
const MaxBodyBytes = 64 << 20

// UsageType is the type of an llm step's usage output.
var UsageType = cty.Object(map[string]cty.Type{
	"prompt_tokens":     cty.Number,
	"completion_tokens": cty.Number,
	"total_tokens":      cty.Number,
})

func field(name string, ty cty.Type, def cty.Value, desc string) *lang.Field {
	return &lang.Field{Name: name, Type: lang.TypeSpec{Type: ty}, Default: def, Description: desc}
}

// required is a field with no default.
func required(name string, ty cty.Type, desc string) *lang.Field {
	return field(name, ty, cty.NilVal, desc)
}

// optional is a field whose default is null.
func optional(name string, ty cty.Type, desc string) *lang.Field {
	return field(name, ty, cty.NullVal(ty), desc)
}

func out(name string, ty cty.Type, desc string) *lang.Field {
	return field(name, ty, cty.NilVal, desc)
}

// MessagesType is the type of the llm built-in's messages: a list of
// { role, content } objects, a tool message with the id of the call it
// answers.
var MessagesType = cty.List(cty.ObjectWithOptionalAttrs(map[string]cty.Type{
	"role": cty.String, "content": cty.String, "tool_call_id": cty.String,
}, []string{"tool_call_id"}))

// MessageRoles are the roles a message of messages may have.
var MessageRoles = []string{"system", "user", "assistant", "tool"}

// MaxTokensLimit is the largest max_tokens: what a 32-bit server takes.
const MaxTokensLimit = 1<<31 - 1

// Builtins returns the built-in blocks (docs/design.md, "Blocks"), in catalog order. Each call
// returns fresh values.
func Builtins() []*Block {
	stringMap := cty.Map(cty.String)
	return append([]*Block{
		{
			Name:        "http",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteNetwork,
			Description: "Make an HTTP request and return the status, headers and body",
			UseWhen:     "You need to call a web or REST API, fetch a URL or the raw HTML of a page, post data, or download a JSON document or a file over HTTP",
			Tags:        []string{"web", "api", "http", "rest", "request", "download", "network"},
			Inputs: []*lang.Field{
				required("url", cty.String, "The URL to request"),
				field("method", cty.String, cty.StringVal("GET"), "The HTTP method"),
				optional("headers", stringMap, "Request headers"),
				optional("query", stringMap, "Query parameters added to the URL"),
				optional("body", cty.DynamicPseudoType, "The request body"),
				field("body_type", cty.String, cty.StringVal("json"), "How the body is encoded: json, form, text, base64 (a base64 string sent as its bytes), or multipart (multipart/form-data: a list of fields {name, value} and files {name, data, filename, content_type})"),
				field("response", cty.String, cty.StringVal("auto"), "How the response body is given: auto (parsed JSON, else text) or base64 (its bytes, base64-encoded)"),
				field("max_bytes", cty.Number, cty.NumberIntVal(DefaultMaxBytes), "The largest response body accepted"),
			},
			Checks: map[string]func(cty.Value) error{
				"method":    checkMethod,
				"body_type": checkOneOf("json", "form", "text", "base64", "multipart"),
				"response":  checkOneOf("auto", "base64"),
				"max_bytes": checkMaxBytes,
			},
			Outputs: []*lang.Field{
				out("status", cty.Number, "The HTTP status code"),
				out("headers", stringMap, "Response headers"),
				out("body", cty.DynamicPseudoType, "The body, parsed when it is JSON, else a string; with response base64, its bytes in base64"),
				out("text", cty.String, "The body as text; empty with response base64"),
			},
			TypedOutputs: []string{"body"},
		},
		{
			Name:        "llm",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteModel,
			Description: "Ask a language model; declare output fields for structured, type-checked replies",
			UseWhen:     "You need a language model to summarize, classify, extract, translate, rewrite, answer or generate text, or to turn text into structured data",
			Tags:        []string{"llm", "ai", "model", "prompt", "text", "summarize", "generate"},
			Inputs: []*lang.Field{
				optional("prompt", cty.String, "The prompt: the last user message"),
				optional("system", cty.String, "The system message"),
				optional("messages", MessagesType, "The conversation, sent as given between the system message and the prompt"),
				optional("model", cty.String, "The model; default FLOWCTL_MODEL"),
				optional("temperature", cty.Number, "Sampling temperature, 0 to 2"),
				optional("top_p", cty.Number, "Nucleus sampling: the probability mass to sample from, 0 to 1"),
				optional("seed", cty.Number, "A seed for sampling, for servers that make replies repeatable"),
				optional("stop", cty.List(cty.String), "Texts at which the model stops"),
				optional("max_tokens", cty.Number, "The most tokens to generate"),
				optional("stream", cty.Bool, "Stream the reply, relaying its text as it comes; default: the provider's stream setting, else true"),
			},
			Checks: map[string]func(cty.Value) error{
				"temperature": checkRange(0, 2),
				"top_p":       checkRange(0, 1),
				"seed":        checkSeed,
				"max_tokens":  checkMaxTokens,
				"messages":    checkMessages,
			},
			Outputs: []*lang.Field{
				out("text", cty.String, "The model's reply"),
				out("usage", UsageType, "Tokens used"),
			},
			OpenOutputs:         true,
			PropagatesSensitive: true,
		},
		{
			Name:        "scrape",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteNetwork,
			Description: "Fetch a web page and extract its title, text and links",
			UseWhen:     "You need the readable text, the title or the links of a web page or website, as a person would see it in a browser",
			Tags:        []string{"web", "page", "html", "scrape", "crawl", "network"},
			Inputs: []*lang.Field{
				required("url", cty.String, "The page's URL"),
				optional("selector", cty.String, "A CSS selector limiting what is extracted"),
				field("max_bytes", cty.Number, cty.NumberIntVal(DefaultMaxBytes), "The largest page accepted"),
			},
			Checks: map[string]func(cty.Value) error{"max_bytes": checkMaxBytes},
			Outputs: []*lang.Field{
				out("title", cty.String, "The page title"),
				out("text", cty.String, "The visible text"),
				out("links", cty.List(cty.String), "The absolute URLs of the links"),
				out("html", cty.String, "The HTML inside the page, or inside each element the selector matches, one a line"),
			},
		},
		{
			Name:        "sql",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteNetwork,
			Description: "Run one SQL statement on PostgreSQL or SQLite and return its rows",
			UseWhen:     "You need to query or change a PostgreSQL or SQLite database with one SQL statement and its parameters",
			Tags:        []string{"sql", "database", "postgres", "postgresql", "sqlite", "query"},
			Inputs: []*lang.Field{
				required("url", cty.String, "postgres://USER:PASSWORD@HOST/DB (a secret), or sqlite:PATH, the file relative to the flow file"),
				required("query", cty.String, "One SQL statement; $1, $2… (? in SQLite) are the params"),
				optional("params", cty.DynamicPseudoType, "A list of the statement's parameters, each typed: text, a number, a bool, null; lists and objects as JSON"),
			},
			Outputs: []*lang.Field{
				out("rows", cty.DynamicPseudoType, "The rows the statement returns, a list of objects by column name"),
				out("count", cty.Number, "How many rows it returned"),
			},
		},
		{
			Name:        "file",
			Runtime:     RuntimeBuiltin,
			Description: "Read a text file next to the flow",
			UseWhen:     "You need the contents of a local text file, such as a prompt, a template or data kept next to the flow",
			Tags:        []string{"file", "local", "read", "disk"},
			Inputs: []*lang.Field{
				required("path", cty.String, "The path, relative to the flow file"),
			},
			Checks: map[string]func(cty.Value) error{"path": checkLocalPath},
			Outputs: []*lang.Field{
				out("text", cty.String, "The file's text"),
				out("sha256", cty.String, "The hex SHA-256 of the file"),
			},
			CacheDefault: true,
		},
		// Retrieval (docs/retrieval.md): documents, chunks, embeddings.
		{
			Name:        "document",
			Runtime:     RuntimeBuiltin,
			Description: "Read a Markdown, text, HTML or PDF document into text: HTML's main content as Markdown, a PDF's text page by page",
			UseWhen:     "You need the text of a local document (Markdown, text, an HTML page, a PDF) to chunk, embed, summarize or search",
			Tags:        []string{"retrieval", "rag", "document", "pdf", "html", "markdown", "file", "local"},
			Inputs: []*lang.Field{
				optional("path", cty.String, "The file, relative to the flow file; its type from its extension or its first bytes"),
				optional("content", cty.String, "The document's text itself (Markdown, text or HTML), instead of a path"),
				optional("content_base64", cty.String, "The document's bytes in base64 (a PDF, HTML or text, as an http step's response base64 gives them), instead of a path; its type from media_type, else its first bytes"),
				optional("media_type", cty.String, "text/markdown, text/plain, text/html or application/pdf; needed with content"),
			},
			Checks: map[string]func(cty.Value) error{
				"path":       checkLocalPath,
				"media_type": checkOneOf(DocumentMediaTypes...),
			},
			Outputs: []*lang.Field{
				out("text", cty.String, "The text: Markdown and text as they are, HTML's main content as Markdown, a PDF's pages"),
				out("title", cty.String, "The title: the first level-one heading, the page's or the PDF's title, else the first line"),
				out("media_type", cty.String, "The media type read"),
				out("pages", cty.List(cty.String), "A PDF's text page by page; empty for the other types"),
				out("metadata", stringMap, "source (the path), sha256, bytes, and what the document says (pages, author, byline, language)"),
			},
			CacheDefault:        true,
			PlanTime:            true,
			PropagatesSensitive: true,
		},
		{
			Name:        "chunk",
			Runtime:     RuntimeBuiltin,
			Description: "Split a text into chunks of at most max_tokens tokens, by Markdown sections, sentences or tokens",
			UseWhen:     "You need to cut a long text or document into pieces small enough to embed, index or give a model, keeping headings with their sections",
			Tags:        []string{"retrieval", "rag", "chunk", "split", "text", "tokens"},
			Inputs: []*lang.Field{
				required("text", cty.String, "The text to split"),
				field("max_tokens", cty.Number, cty.NumberIntVal(400), "The most tokens a chunk has (cl100k_base, the LLM layer's tokenizer)"),
				field("overlap", cty.Number, cty.NumberIntVal(40), "About how many tokens of the end of a chunk the next one starts with"),
				field("by", cty.String, cty.StringVal("markdown"), "markdown (sections, then sentences), sentence or tokens"),
			},
			Checks: map[string]func(cty.Value) error{
				"max_tokens": checkMaxTokens,
				"overlap":    checkCount,
				"by":         checkOneOf("markdown", "sentence", "tokens"),
			},
			Outputs: []*lang.Field{
				out("chunks", cty.List(ChunkType), "The chunks in order: text, start and end (characters, end excluded), tokens, heading"),
				out("count", cty.Number, "How many chunks"),
			},
			PropagatesSensitive: true,
			PlanTime:            true,
		},
		{
			Name:        "embed",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteModel,
			Description: "Embed texts into vectors with a provider's /embeddings endpoint, caching each text's vector",
			UseWhen:     "You need embedding vectors of texts or chunks, to store in a vector collection, search by meaning or compare texts",
			Tags:        []string{"retrieval", "rag", "embed", "embeddings", "vector", "ai", "model"},
			Inputs: []*lang.Field{
				optional("texts", cty.List(cty.String), "The texts to embed"),
				optional("text", cty.String, "One text to embed, instead of texts"),
				optional("model", cty.String, "The embeddings model; default FLOWCTL_EMBEDDINGS_MODEL"),
				field("batch_size", cty.Number, cty.NumberIntVal(256), "The most texts one request carries (the provider's limit)"),
			},
			Checks: map[string]func(cty.Value) error{
				"batch_size": checkBatchSize,
			},
			Outputs: []*lang.Field{
				out("vectors", cty.List(cty.List(cty.Number)), "The vectors, one per text, in order"),
				out("vector", cty.List(cty.Number), "The first text's vector (text's, when text is given)"),
				out("dimensions", cty.Number, "The vectors' length"),
				out("embedded", cty.Number, "How many texts were sent to the provider; the others' vectors were cached"),
				out("usage", UsageType, "Tokens used"),
			},
			CacheDefault:        true,
			PropagatesSensitive: true,
		},
		{
			Name:        "value",
			Runtime:     RuntimeBuiltin,
			Description: "Return a value unchanged",
			UseWhen:     "You need a named intermediate value or a constant, or to pass a value on unchanged",
			Tags:        []string{"core", "constant", "identity"},
			Inputs: []*lang.Field{
				required("value", cty.DynamicPseudoType, "Any value"),
			},
			Outputs: []*lang.Field{
				out("value", cty.DynamicPseudoType, "The same value"),
			},
			// Not cached: its inputs are evaluated to make the cache
			// key, and after that there is nothing left to do, so a
			// lookup and a stored entry would only cost.
			PropagatesSensitive: true,
			OutputTypeFrom:      map[string]string{"value": "value"},
		},
		{
			Name:        "approval",
			Runtime:     RuntimeBuiltin,
			Description: "Wait for a person to approve or reject before the flow goes on",
			UseWhen:     "A person must review and approve what the flow is about to do, such as sending emails, publishing or spending money, before it does it",
			Tags:        []string{"core", "human", "approval", "review", "wait"},
			Inputs: []*lang.Field{
				required("message", cty.String, "The question, shown to whoever decides"),
			},
			Outputs: []*lang.Field{
				out("approved", cty.Bool, "Always true: a rejection fails the step"),
				out("comment", cty.String, "The comment given with the decision"),
				out("by", cty.String, "Who decided"),
				out("decided_at", cty.String, "When, as an RFC 3339 time"),
			},
		},
		{
			Name:        "mcp",
			Runtime:     RuntimeBuiltin,
			Remote:      RemoteMCP,
			Description: "Call a tool of an MCP server declared with an mcp_server block",
			UseWhen:     "You need a tool that an external Model Context Protocol server provides, such as a search engine, a database or an issue tracker",
			Tags:        []string{"mcp", "tool", "agent", "integration", "network"},
			Inputs: []*lang.Field{
				required("server", cty.String, "The name of an mcp_server block of the flow"),
				required("tool", cty.String, "The name of the server's tool"),
				optional("arguments", cty.DynamicPseudoType, "The tool's arguments, an object (none when null)"),
			},
			Outputs: []*lang.Field{
				out("result", cty.DynamicPseudoType, "The tool's structured result, else its text parsed when it is JSON, else the text"),
				out("text", cty.String, "The text of the result"),
			},
			TypedOutputs:        []string{"result"},
			PropagatesSensitive: true,
		},
		// Retrieval: the vector collections (blocks/retrieval/vector.go).
		{
			Name:        "vector_upsert",
			Runtime:     RuntimeBuiltin,
			Description: "Store vectors with their texts and metadata in a collection, replacing those with the same ids",
			UseWhen:     "You need to index embedded chunks of documents for retrieval (RAG), or to replace a document's chunks as a unit when it changes",
			Tags:        []string{"retrieval", "rag", "vector", "embedding", "index", "collection"},
			Inputs: []*lang.Field{
				optional("id", cty.String, "The id of one item"),
				optional("vector", cty.List(cty.Number), "The vector of the one item, of the collection's dimensions"),
				field("text", cty.String, cty.StringVal(""), "The text of the one item, returned by searches and ranked by hybrid search"),
				optional("metadata", cty.DynamicPseudoType, "The metadata of the one item: an object of strings, numbers and booleans"),
				optional("items", cty.DynamicPseudoType, "Several items, a list of { id, vector, text, metadata }, stored at once"),
				optional("replace", cty.DynamicPseudoType, "A filter, such as { source = \"notes/a.md\" }: the items it matches are removed in the same transaction, but for those given"),
			},
			Outputs: []*lang.Field{
				out("count", cty.Number, "How many items were stored"),
				out("ids", cty.List(cty.String), "Their ids"),
			},
		},
		{
			Name:        "vector_delete",
			Runtime:     RuntimeBuiltin,
			Description: "Remove items from a collection by id or by metadata",
			UseWhen:     "You need to remove a document's chunks from a vector collection, such as when the document is gone",
			Tags:        []string{"retrieval", "rag", "vector", "index", "collection", "delete"},
			Inputs: []*lang.Field{
				optional("ids", cty.List(cty.String), "The ids of the items to remove"),
				optional("where", cty.DynamicPseudoType, "A filter, such as { source = \"notes/old.md\" }: the items it matches are removed"),
			},
			Outputs: []*lang.Field{
				out("deleted", cty.Number, "How many items were removed"),
			},
		},
		{
			Name:        "vector_search",
			Runtime:     RuntimeBuiltin,
			Description: "Find the items of a collection nearest a vector, optionally fused with BM25 over their texts",
			UseWhen:     "You need the passages most relevant to a question from an indexed set of documents (retrieval for RAG), semantic search, or nearest neighbours",
			Tags:        []string{"retrieval", "rag", "vector", "search", "semantic", "similarity", "collection"},
			Inputs: []*lang.Field{
				optional("vector", cty.List(cty.Number), "The query's vector, of the collection's dimensions"),
				optional("query", cty.String, "The query's text: embedded with the step's provider and model when no vector is given; hybrid mode also ranks by BM25 for it"),
				optional("model", cty.String, "The embeddings model that embeds the query, the one that embedded the collection; default FLOWCTL_EMBEDDINGS_MODEL"),
				field("top_k", cty.Number, cty.NumberIntVal(10), "How many matches to return"),
				optional("filter", cty.DynamicPseudoType, "Metadata conditions, all met: { source = \"a.md\", page = { gte = 2, lt = 10 } }"),
				optional("min_score", cty.Number, "Drop matches scoring below it"),
				field("mode", cty.String, cty.StringVal(SearchVector), "vector, or hybrid: BM25 over the texts and vectors, fused by reciprocal rank"),
			},
			Checks: map[string]func(cty.Value) error{
				"top_k": CheckTopK,
				"mode":  checkOneOf(SearchVector, SearchHybrid),
			},
			Outputs: []*lang.Field{
				out("matches", cty.DynamicPseudoType, "The matches, best first: a list of { id, score, text, metadata }"),
				out("ids", cty.List(cty.String), "The matches' ids, best first"),
				out("texts", cty.List(cty.String), "The matches' texts, best first"),
			},
			TypedOutputs: []string{"matches"},
		},
		{
			Name:        "sleep",
			Runtime:     RuntimeBuiltin,
			Description: "Wait for a duration",
			UseWhen:     "You need a pause or a delay between steps, for example to stay under a rate limit",
			Tags:        []string{"core", "time", "delay", "wait"},
			Inputs: []*lang.Field{
				required("duration", cty.String, "How long, such as \"500ms\" or \"2s\""),
			},
			Checks: map[string]func(cty.Value) error{"duration": checkDuration},
			Outputs: []*lang.Field{
				out("slept_ms", cty.Number, "How long the step slept, in milliseconds"),
			},
		},
	}, mailBuiltins()...)
}

func checkOneOf(options ...string) func(cty.Value) error {
	return func(v cty.Value) error {
		for _, o := range options {
			if v.AsString() == o {
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %s", v.AsString(), strings.Join(options, ", "))
	}
}

func checkMethod(v cty.Value) error {
	m := v.AsString()
	if m == "" || strings.ContainsFunc(m, func(r rune) bool { return r < 'A' || r > 'Z' }) {
		return fmt.Errorf("%q is not an HTTP method; use an upper-case method such as GET or POST", m)
	}
	return nil
}

func checkPositive(v cty.Value) error {
	if v.AsBigFloat().Sign() <= 0 {
		return fmt.Errorf("must be greater than zero, not %s", v.AsBigFloat().Text('g', -1))
	}
	return nil
}

func checkMaxBytes(v cty.Value) error {
	if err := checkPositive(v); err != nil {
		return err
	}
	if n, _ := v.AsBigFloat().Float64(); n > MaxBodyBytes {
		return fmt.Errorf("must be at most %d (64 MiB), not %.0f: a response is held in memory and stored in the state", MaxBodyBytes, n)
	}
	return nil
}

func checkMaxTokens(v cty.Value) error {
	bf := v.AsBigFloat()
	if n, acc := bf.Int64(); !bf.IsInt() || acc != 0 || n < 1 || n > MaxTokensLimit {
		return fmt.Errorf("must be a whole number from 1 to %d, not %s", MaxTokensLimit, bf.Text('g', -1))
	}
	return nil
}

// checkCount is a whole number, zero or more.
func checkCount(v cty.Value) error {
	bf := v.AsBigFloat()
	if n, acc := bf.Int64(); !bf.IsInt() || acc != 0 || n < 0 || n > MaxTokensLimit {
		return fmt.Errorf("must be a whole number from 0 to %d, not %s", MaxTokensLimit, bf.Text('g', -1))
	}
	return nil
}

// MaxEmbedBatch is the largest batch_size: OpenAI's limit of inputs a
// request.
const MaxEmbedBatch = 2048

func checkBatchSize(v cty.Value) error {
	bf := v.AsBigFloat()
	if n, acc := bf.Int64(); !bf.IsInt() || acc != 0 || n < 1 || n > MaxEmbedBatch {
		return fmt.Errorf("must be a whole number from 1 to %d, not %s", MaxEmbedBatch, bf.Text('g', -1))
	}
	return nil
}

func checkSeed(v cty.Value) error {
	bf := v.AsBigFloat()
	if _, acc := bf.Int64(); !bf.IsInt() || acc != 0 {
		return fmt.Errorf("must be a whole number that fits in 64 bits, not %s", bf.Text('g', -1))
	}
	return nil
}

// checkMessages checks each message's role, and that a tool message
// says which call it answers.
func checkMessages(v cty.Value) error {
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, m := it.Element()
		if m.IsNull() {
			return fmt.Errorf("message %d is null", i)
		}
		role, content := m.GetAttr("role"), m.GetAttr("content")
		if role.IsNull() || !slices.Contains(MessageRoles, role.AsString()) {
			got := "null"
			if !role.IsNull() {
				got = fmt.Sprintf("%q", role.AsString())
			}
			return fmt.Errorf("message %d has the role %s; a role is one of %s", i, got, strings.Join(MessageRoles, ", "))
		}
		if content.IsNull() {
			return fmt.Errorf("message %d has no content", i)
		}
		if id := m.GetAttr("tool_call_id"); role.AsString() == "tool" && (id.IsNull() || id.AsString() == "") {
			return fmt.Errorf("message %d is a tool message without the tool_call_id of the call it answers", i)
		}
	}
	return nil
}

func checkRange(lo, hi float64) func(cty.Value) error {
	return func(v cty.Value) error {
		f, _ := v.AsBigFloat().Float64()
		if f < lo || f > hi {
			return fmt.Errorf("must be between %g and %g, not %g", lo, hi, f)
		}
		return nil
	}
}

func checkDuration(v cty.Value) error {
	d, err := time.ParseDuration(v.AsString())
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a duration such as \"500ms\", \"30s\" or \"2m\"", v.AsString())
	case d < 0:
		return fmt.Errorf("%q is negative", v.AsString())
	}
	return nil
}

// checkLocalPath refuses paths that leave the flow's directory; whether the
// file exists is known only when the step runs.
func checkLocalPath(v cty.Value) error {
	p := v.AsString()
	if p == "" || filepath.IsAbs(p) || !filepath.IsLocal(filepath.FromSlash(p)) {
		return fmt.Errorf("the path %q must be relative to the flow's directory and stay inside it", p)
	}
	return nil
}
