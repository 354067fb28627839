package llm

import (
	"context"
	"fmt"
	"net/http"

	"github.com/flowctl/flowctl/blocks/index"
	openai "github.com/sashabaranov/go-openai"
)

// embedBatch is how many texts one embeddings request carries; OpenAI
// takes up to 2048, local servers often fewer.
const embedBatch = 256

// Embedder embeds texts with the server's embeddings endpoint, for
// registry search (package blocks/index). It has the configuration, the
// limits and the retries of the Executor's requests, but limits of its
// own.
type Embedder struct {
	model string
	t     *transport // nil: no server configured
}

var _ index.Embedder = (*Embedder)(nil)

// NewEmbedder returns an Embedder for cfg that asks for model's
// embeddings; an empty model means cfg.EmbeddingsModel. Without a server
// (an API key or a base URL) or a model it still returns an Embedder,
// whose calls fail saying what to set.
func NewEmbedder(cfg Config, model string) *Embedder {
	cfg = cfg.withDefaults()
	if model == "" {
		model = cfg.EmbeddingsModel
	}
	e := &Embedder{model: model}
	if cfg.configured() {
		e.t = newTransport(cfg)
	}
	return e
}

// Model is the embeddings model.
func (e *Embedder) Model() string { return e.model }

// Embed returns the embedding of every text, in order, in requests of at
// most embedBatch texts.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	switch {
	case e.t == nil:
		return nil, errNotConfigured
	case e.model == "":
		return nil, fmt.Errorf("no embeddings model is set: set %s to a model of the server, such as text-embedding-3-small", EnvEmbeddingsModel)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		vecs, _, err := e.embed(ctx, texts[start:min(start+embedBatch, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// embed sends one request, retrying as the Executor's requests are
// retried: after a 429, a 5xx, a timeout or a broken connection, with
// backoff, honouring Retry-After. It returns the prompt tokens the server
// reports, 0 when it reports none.
func (e *Embedder) embed(ctx context.Context, texts []string) ([][]float32, int, error) {
	req := openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(e.model)}
	for try := 0; ; try++ {
		if err := e.t.acquire(ctx); err != nil {
			return nil, 0, err
		}
		resp, err := e.t.client.CreateEmbeddings(ctx, req)
		<-e.t.sem
		if err == nil {
			vecs, err := e.vectors(resp, len(texts))
			return vecs, resp.Usage.PromptTokens, err
		}
		if err := e.t.retryAfterFailure(ctx, e.classify(ctx, err, resp.Header()), try); err != nil {
			return nil, 0, err
		}
	}
}

// classify is transport.classify with the messages that differ for
// embeddings: an unknown model is FLOWCTL_EMBEDDINGS_MODEL's, and a 404 is
// a server without an embeddings endpoint.
func (e *Embedder) classify(ctx context.Context, err error, h http.Header) *failure {
	status, code, msg := statusOf(err)
	if ctx.Err() != nil || (status != http.StatusNotFound && !modelNotFound(status, code, msg)) {
		return e.t.classify(ctx, err, h, &request{model: e.model})
	}
	detail := fmt.Sprintf("%d %s", status, http.StatusText(status))
	if msg = e.t.scrub(msg); msg != "" {
		detail += ": " + msg
	}
	f := &failure{status: status, serverMsg: msg, err: err}
	if modelNotFound(status, code, msg) {
		f.msg = fmt.Sprintf("the embeddings model %q was not found at %s (%s); set %s to an embeddings model the server offers",
			e.model, e.t.baseURL, detail, EnvEmbeddingsModel)
	} else {
		f.msg = fmt.Sprintf("the model server at %s has no embeddings endpoint (%s); unset %s to search without embeddings",
			e.t.baseURL, detail, EnvEmbeddingsModel)
	}
	return f
}

// vectors puts the vectors of a reply in the order of the texts.
func (e *Embedder) vectors(resp openai.EmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("the model server at %s returned %d embeddings for %d texts", e.t.baseURL, len(resp.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("the model server at %s returned embeddings with an index %d out of place", e.t.baseURL, d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("the model server at %s returned an empty embedding", e.t.baseURL)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}
