package llm

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// isEmbed reports whether call is one of the embed built-in, which runs
// on the Executor (blocks.Executors.For gives it the llm runtime's).
func isEmbed(call *blocks.Call) bool {
	return call != nil && call.Block != nil && call.Block.Builtin() && call.Block.Name == "embed"
}

// embedModel is the embeddings model of an embed call: its model input,
// else FLOWCTL_EMBEDDINGS_MODEL.
func (e *Executor) embedModel(call *blocks.Call) string {
	if m, ok := stringInput(call, "model"); ok && m != "" {
		return m
	}
	return e.cfg.EmbeddingsModel
}

// executeEmbed runs the embed built-in. Each text's vector is cached by
// itself (call.Cache, under the server, the model and the text's hash),
// and only the texts without one are sent, in batches of batch_size:
// editing one of many documents sends that document's changed chunks
// alone, however the texts fall into batches. The requests are retried
// as llm calls are; the tokens of the texts sent (as the server reports
// them, else counted) are the step's usage.
func (e *Executor) executeEmbed(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	texts, err := embedTexts(call)
	if err != nil {
		return nil, err
	}
	t, err := e.transportFor(call)
	if err != nil {
		return nil, err
	}
	model := e.embedModel(call)
	if model == "" {
		return nil, fmt.Errorf("no embeddings model is set: give the step a model, or set %s to a model of the server, such as text-embedding-3-small", EnvEmbeddingsModel)
	}
	batch := embedBatch
	if v := call.Inputs["batch_size"]; known(v) {
		n, _ := v.AsBigFloat().Int64()
		batch = int(n)
	}
	vecs := make([][]float32, len(texts))
	keys := make([]string, len(texts))
	// The texts to send, each once, and where their vectors go.
	var send []string
	where := map[string][]int{}
	for i, text := range texts {
		keys[i] = embedKey(t.baseURL, model, text)
		if call.Cache != nil {
			raw, ok, err := call.Cache.Get(keys[i])
			if err != nil {
				return nil, err
			}
			if v := cachedVector(raw, ok); v != nil {
				vecs[i] = v
				continue
			}
		}
		if _, ok := where[text]; !ok {
			send = append(send, text)
		}
		where[text] = append(where[text], i)
	}
	usage := &blocks.Usage{}
	em := &Embedder{model: model, t: t}
	for start := 0; start < len(send); start += batch {
		part := send[start:min(start+batch, len(send))]
		got, err := e.embedBatch(ctx, call, em, part, usage)
		if err != nil {
			return &blocks.Result{Usage: usage}, err
		}
		for j, v := range got {
			for _, i := range where[part[j]] {
				vecs[i] = v
			}
			if call.Cache != nil {
				call.Cache.Put(keys[where[part[j]][0]], packVector(v))
			}
		}
	}
	dims := 0
	rows := make([]cty.Value, len(vecs))
	for i, v := range vecs {
		if i == 0 {
			dims = len(v)
		} else if len(v) != dims {
			return nil, fmt.Errorf("the model server at %s returned vectors of %d and of %d dimensions for model %q (a cached vector of another model under the same name?)", t.baseURL, dims, len(v), model)
		}
		rows[i] = vectorValue(v)
	}
	all := cty.ListValEmpty(cty.List(cty.Number))
	first := cty.NullVal(cty.List(cty.Number))
	if len(rows) > 0 {
		all, first = cty.ListVal(rows), rows[0]
	}
	return &blocks.Result{Outputs: map[string]cty.Value{
		"vectors":    all,
		"vector":     first,
		"dimensions": cty.NumberIntVal(int64(dims)),
		"embedded":   cty.NumberIntVal(int64(len(send))),
		"usage":      usageValue(usage),
	}, Usage: usage}, nil
}

// packVector is how a text's vector is cached: a JSON string of its
// float32s, little-endian, in base64 (4 bytes a number in 5.3 characters,
// written and read at once; as a JSON array of numbers, 10 characters
// a number, and encoding them was a tenth of an ingest).
func packVector(v []float32) json.RawMessage {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(b))+2)
	out = append(out, '"')
	out = base64.StdEncoding.AppendEncode(out, b)
	return append(out, '"')
}

// cachedVector reads a cached vector (found: the cache had one): as
// packVector wrote it, or as a JSON array of numbers, as earlier
// versions cached it. It is nil when there is none, or none of use.
func cachedVector(raw json.RawMessage, found bool) []float32 {
	if !found || len(raw) == 0 {
		return nil
	}
	if raw[0] != '"' {
		var v []float32
		if json.Unmarshal(raw, &v) != nil || len(v) == 0 {
			return nil
		}
		return v
	}
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return nil
	}
	b, err := base64.StdEncoding.AppendDecode(nil, raw[1:len(raw)-1])
	if err != nil || len(b) == 0 || len(b)%4 != 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// embedKey is the key of a text's vector in the PartCache.
func embedKey(baseURL, model, text string) string {
	sum := sha256.Sum256([]byte("embed\x00" + baseURL + "\x00" + model + "\x00" + text))
	return hex.EncodeToString(sum[:])
}

var _ blocks.PartCounter = (*Executor)(nil)

// CountParts says how many texts an embed call would embed: of its
// texts, those whose vectors call.Cache holds, and the others (each
// distinct text once), which it would send. Plan shows them.
func (e *Executor) CountParts(call *blocks.Call) (blocks.PartCount, bool, error) {
	var c blocks.PartCount
	if !isEmbed(call) {
		return c, false, nil
	}
	texts, err := embedTexts(call)
	if err != nil {
		return c, false, err
	}
	t, err := e.transportFor(call)
	if err != nil {
		return c, false, err
	}
	model := e.embedModel(call)
	c.Parts = len(texts)
	seen := map[string]bool{}
	for _, text := range texts {
		if call.Cache != nil {
			raw, ok, err := call.Cache.Get(embedKey(t.baseURL, model, text))
			if err != nil {
				return c, false, err
			}
			if cachedVector(raw, ok) != nil {
				c.Cached++
				continue
			}
		}
		if !seen[text] {
			seen[text] = true
			c.New++
		}
	}
	return c, true, nil
}

// embedTexts are the texts of an embed call: texts, or text.
func embedTexts(call *blocks.Call) ([]string, error) {
	list, one := call.Inputs["texts"], call.Inputs["text"]
	switch {
	case known(list) && known(one):
		return nil, errors.New("give embed texts or text, not both")
	case known(one):
		return []string{one.AsString()}, nil
	case !known(list):
		return nil, errors.New("give embed the texts to embed (texts = [...]) or one text (text = \"...\")")
	}
	out := make([]string, 0, list.LengthInt())
	i := 0
	for it := list.ElementIterator(); it.Next(); i++ {
		_, v := it.Element()
		if v.IsNull() {
			return nil, fmt.Errorf("text %d of texts is null", i)
		}
		out = append(out, v.AsString())
	}
	return out, nil
}

// countEmbedTokens is embedTokens; a test counts its calls.
var countEmbedTokens = embedTokens

// embedTokens counts the tokens of texts as the model's tokenizer does
// (cl100k_base, an estimate, for models tiktoken does not know).
func embedTokens(model string, texts []string) int {
	c, _ := codecFor(model)
	n := 0
	for _, s := range texts {
		k, err := c.Count(s)
		if err != nil {
			k = len(s) / 4
		}
		n += k
	}
	return n
}

func vectorValue(v []float32) cty.Value {
	if len(v) == 0 {
		return cty.ListValEmpty(cty.Number)
	}
	out := make([]cty.Value, len(v))
	for i, x := range v {
		out[i] = cty.NumberFloatVal(float64(x))
	}
	return cty.ListVal(out)
}

var _ blocks.QueryEmbedder = (*Executor)(nil)

// EmbedQuery embeds the query of a vector_search step that gives no
// vector, as an embed step with text = query would: through the step's
// provider, else the environment's, with its model input, else
// FLOWCTL_EMBEDDINGS_MODEL, retried as llm calls are. The query's vector
// is not cached (a search step is not).
func (e *Executor) EmbedQuery(ctx context.Context, call *blocks.Call, query string) ([]float32, *blocks.Usage, error) {
	t, err := e.transportFor(call)
	if err != nil {
		return nil, nil, err
	}
	model := e.embedModel(call)
	if model == "" {
		return nil, nil, fmt.Errorf("no embeddings model is set: give the step the model that embedded the collection (model = \"...\"), or set %s", EnvEmbeddingsModel)
	}
	em := &Embedder{model: model, t: t}
	usage := &blocks.Usage{}
	got, err := e.embedBatch(ctx, call, em, []string{query}, usage)
	if err != nil {
		return nil, usage, err
	}
	if len(got) != 1 || len(got[0]) == 0 {
		return nil, usage, fmt.Errorf("the model server at %s returned no vector for the query", t.baseURL)
	}
	return got[0], usage, nil
}

// embedBatch embeds texts in one request, under the run's budget as a
// model call is (their tokens, counted locally, reserved before it is
// sent), and adds its tokens and cost, at the model's price, to usage.
//
// The texts are counted only when a budget needs them before the request
// or the server does not say how many tokens it read: tokenizing every
// chunk again took a tenth of an ingest.
func (e *Executor) embedBatch(ctx context.Context, call *blocks.Call, em *Embedder, texts []string, usage *blocks.Usage) ([][]float32, error) {
	counted := -1
	count := func() int {
		if counted < 0 {
			counted = countEmbedTokens(em.model, texts)
		}
		return counted
	}
	price, priced := e.price(call, em.model)
	var hold *blocks.Hold
	if call != nil && call.Ledger != nil {
		est, tokens := 0.0, 0
		if call.Ledger.Limits() {
			tokens = count()
		}
		if priced {
			est = costOf(price, tokens, 0)
		}
		var err error
		if hold, err = call.Ledger.Reserve(em.model, tokens, est, priced); err != nil {
			return nil, err
		}
	}
	got, tokens, err := em.embed(ctx, texts)
	if err != nil {
		hold.Settle(blocks.Usage{})
		return nil, err
	}
	if tokens <= 0 { // a server that does not say: count them
		tokens = count()
	}
	u := blocks.Usage{PromptTokens: tokens, TotalTokens: tokens, Calls: 1}
	if priced {
		c := costOf(price, tokens, 0)
		u.CostUSD = &c
	} else {
		u.Unpriced = 1
	}
	hold.Settle(u)
	usage.Add(u)
	return got, nil
}
