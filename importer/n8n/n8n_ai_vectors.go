package n8n

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The vector stores as root nodes: Insert Documents (the Default Data
// Loader's text of each item, split by its text splitter, embedded by its
// embeddings model) becomes chunk, embed and vector_upsert steps into a
// collection of the flow; Get Many a vector_search step. A store flowctl
// does not host (Pinecone, Qdrant, Supabase, PGVector…) is a collection of
// the flow's state, with a warning that says so.

// vectorStores are the stores converted, with the parameter naming the
// index or collection and its default, and what hosts it ("" for n8n's
// in-memory store).
var vectorStores = map[string]struct{ param, def, host string }{
	"vectorStoreInMemory": {"memoryKey", "vector_store_key", ""},
	"vectorStorePinecone": {"pineconeIndex", "", "Pinecone"},
	"vectorStoreQdrant":   {"qdrantCollection", "", "Qdrant"},
	"vectorStoreSupabase": {"tableName", "", "Supabase"},
	"vectorStorePGVector": {"tableName", "n8n_vectors", "PostgreSQL (PGVector)"},
}

// embeddingModels are the embeddings nodes converted: credential, URL,
// model parameter and default (by version: the first whose version the
// node is at least).
var embeddingModels = map[string]struct{ cred, url, param, def, v1def string }{
	"embeddingsOpenAi":       {"openAiApi", "https://api.openai.com/v1", "model", "text-embedding-3-small", "text-embedding-ada-002"},
	"embeddingsGoogleGemini": {"googlePalmApi", "https://generativelanguage.googleapis.com/v1beta/openai", "modelName", "models/text-embedding-004", ""},
	"embeddingsMistralCloud": {"mistralCloudApi", "https://api.mistral.ai/v1", "model", "mistral-embed", ""},
	"embeddingsOllama":       {"ollamaApi", "http://localhost:11434/v1", "model", "llama3.2", ""},
}

// embeddingDimensions are the lengths of the vectors of known models.
var embeddingDimensions = map[string]int{
	"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536,
	"text-embedding-004": 768, "embedding-001": 768, "gemini-embedding-001": 3072, "mistral-embed": 1024,
	"nomic-embed-text": 768, "mxbai-embed-large": 1024, "all-minilm": 384, "snowflake-arctic-embed": 1024,
}

// aiEmbedding is what an embeddings sub-node gives: the provider, the
// model and the length of its vectors.
type aiEmbedding struct {
	provider, model string
	dimensions      int
}

func (n *n8n) embeddings(root *n8nNode) (aiEmbedding, bool) {
	subs := root.subNodes("ai_embedding")
	if len(subs) == 0 {
		n.Problem(root.where, root.j, "Missing embeddings", "the vector store needs an embeddings model on its Embedding input, as n8n does.")
		return aiEmbedding{}, false
	}
	node := subs[0]
	short := strings.TrimPrefix(node.fullType, langchainPrefix)
	em, ok := embeddingModels[short]
	if !ok || node.disabled {
		n.Problem(node.where, node.j.Get("type"), "Unsupported embeddings",
			fmt.Sprintf("flowctl import converts the embeddings of OpenAI-compatible servers (%s); not %s.", strings.Join(importer.SortedKeys(embeddingModels), ", "), node.fullType))
		return aiEmbedding{}, false
	}
	p := node.params
	model := em.def
	if node.version < 1.1 && em.v1def != "" {
		model = em.v1def
	}
	if v := p.Get(em.param); v != nil {
		if v.Kind == 'o' {
			v = v.Get("value")
		}
		text, ok := literalText(v)
		if !ok {
			n.Problem(node.where, p.Get(em.param), "Unsupported expression", "the embeddings model is converted when it is written out: it sets the collection's dimensions.")
			return aiEmbedding{}, false
		}
		model = text
	}
	model = strings.TrimPrefix(model, "models/")
	dims := embeddingDimensions[strings.SplitN(model, ":", 2)[0]]
	if d := p.Number(0, "options", "dimensions"); d > 0 {
		dims = int(d)
	}
	if dims == 0 {
		n.Problem(node.where, p, "Unknown dimensions",
			fmt.Sprintf("the length of model %q's vectors is not known to flowctl import, and a collection declares it; set the node's Dimensions option.", model))
		return aiEmbedding{}, false
	}
	credName := node.j.Text("credentials", em.cred, "name")
	if credName == "" {
		credName = short
	}
	url := em.url
	// OpenAI's embeddings call the Base URL option's server when it is
	// set, before v1.2: from v1.2 n8n hides the option (hide: @version
	// >= 1.2), and a hidden option is dropped from the node's parameters
	// (NodeHelpers.getNodeParameters), so the credential's URL is called.
	if b := p.Get("options", "baseURL"); b != nil && short == "embeddingsOpenAi" && node.version < 1.2 {
		text, ok := literalText(b)
		if !ok {
			n.Problem(node.where, b, "Unsupported option", "a base URL is converted when it is written out, not an expression: a provider's base_url is a literal.")
			return aiEmbedding{}, false
		}
		if text != "" {
			url = strings.TrimSuffix(text, "/")
		}
	}
	cm := chatModel{cred: em.cred, url: url, urlInCredential: em.cred == "ollamaApi"}
	node.conv = true
	return aiEmbedding{provider: n.provider(credName, cm, url, short), model: model, dimensions: dims}, true
}

// collection declares the collection of a store (once for a name) and
// returns its name.
func (n *n8n) collection(node *n8nNode, emb aiEmbedding) (string, bool) {
	vs := vectorStores[strings.TrimPrefix(node.fullType, langchainPrefix)]
	p := node.params
	// Rerank Results (shown in the modes that search) has the reranker
	// on the store's Reranker input reorder and cut the documents found.
	if mode := p.Text("mode"); mode != "insert" && mode != "update" && p.Boolean(false, "useReranker") {
		n.Problem(node.where, p.Get("useReranker"), "Unsupported option",
			"Rerank Results has the reranker (Cohere) reorder the documents found and keep its Top N, which the flow's vector_search does not; the store converts without it.")
		return "", false
	}
	key := vs.def
	if v := p.Get(vs.param); v != nil {
		if v.Kind == 'o' {
			v = v.Get("value")
		}
		text, ok := literalText(v)
		if !ok || text == "" {
			n.Problem(node.where, p.Get(vs.param), "Unsupported expression", "the index (or collection, or table) is converted when it is written out: it names the flow's collection.")
			return "", false
		}
		key = text
	}
	if key == "" {
		n.Problem(node.where, p, "Missing collection", "the node names no index, which n8n fails on too.")
		return "", false
	}
	// A Pinecone namespace is a part of the index that a search sees
	// alone: a collection of its own.
	what, name := strconv.Quote(key), importer.Snake(key)
	if v := p.Get("options", "pineconeNamespace"); v != nil && strings.HasSuffix(node.fullType, ".vectorStorePinecone") {
		ns, ok := literalText(v)
		if !ok {
			n.Problem(node.where, v, "Unsupported expression", "the namespace is converted when it is written out: it names the flow's collection.")
			return "", false
		}
		if ns != "" {
			what, name = fmt.Sprintf("%q, namespace %q", key, ns), importer.Snake(key+" "+ns)
		}
	}
	if name == "" {
		name = "vectors"
	}
	for _, d := range n.File.Collections {
		if d.Block.Labels()[0] == name {
			return name, true
		}
	}
	b := hclwrite.NewBlock("collection", []string{name})
	b.Body().SetAttributeValue("dimensions", cty.NumberIntVal(int64(emb.dimensions)))
	where := "n8n's in-memory store"
	if vs.host != "" {
		where = vs.host
		n.Warn(node.where, p.Get(vs.param), "Vector store kept by flowctl",
			fmt.Sprintf("n8n keeps these vectors in %s (%s); flowctl does not host %s: the flow keeps them in its collection %s, in its state.", vs.host, what, vs.host, name))
	}
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The vectors n8n keeps in %s %s", where, what)))
	n.File.Collections = append(n.File.Collections, importer.Decl{Comment: []string{n.nodeComment(node)}, Block: b})
	return name, true
}

// vectorStoreNode is a vector store on the items: Insert Documents or
// Get Many.
func (n *n8n) vectorStoreNode(node *n8nNode, in n8nItems) []n8nItems {
	switch mode := node.params.Text("mode"); mode {
	case "insert":
		return n.vectorInsert(node, in)
	case "load":
		return n.vectorLoad(node, in)
	default:
		if mode == "" {
			mode = "retrieve"
		}
		n.Problem(node.where, node.params.Get("mode"), "Unsupported mode",
			fmt.Sprintf("a vector store on the items is converted in the modes insert and load; not %q.", mode))
		return nil
	}
}

// vectorInsert embeds each item's text, split by the loader's splitter,
// into the collection; its items are the chunks, as n8n gives them.
func (n *n8n) vectorInsert(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if p.Boolean(false, "clearStore") || p.Boolean(false, "options", "clearNamespace") {
		n.Problem(node.where, p, "Unsupported option", "clearing the store before inserting is not converted.")
		return nil
	}
	s := n.scope(node, in, true)
	emb, ok := n.embeddings(node)
	if !ok {
		return nil
	}
	coll, ok := n.collection(node, emb)
	if !ok {
		return nil
	}
	loaders := node.subNodes("ai_document")
	if len(loaders) == 0 {
		n.Problem(node.where, node.j, "Missing document loader", "Insert Documents needs a document loader on its Document input, as n8n does.")
		return nil
	}
	loader := loaders[0]
	lp := loader.params
	if strings.TrimPrefix(loader.fullType, langchainPrefix) != "documentDefaultDataLoader" || lp.Text("dataType") == "binary" || lp.Text("jsonMode") != "expressionData" {
		n.Problem(loader.where, lp, "Unsupported document loader", loaderWhy(loader)+"; the Default Data Loader of JSON data given by an expression (Load Specific Data) converts: its text is chunked.")
		return nil
	}
	text := s.textValue(lp.Get("jsonData"), "text")
	var meta []importer.Member
	for _, m := range lp.Items("options", "metadata", "metadataValues") {
		meta = append(meta, importer.Member{Name: m.Text("name"), Value: importer.Call("tostring", s.textValue(m.Get("value"), "metadata "+m.Text("name")))})
	}
	split, ok := n.splitter(loader)
	if !ok {
		return nil
	}
	loader.conv = true
	s.flush()
	chunks := n.Name("step", node.step+"_chunks", node.step+"_chunks")
	n.chunkStep(chunks, split, in, importer.Call("tostring", text), n.nodeComment(node)+": the chunks of each item's document")
	embed := n.Name("step", node.step+"_embed", node.step+"_embed")
	b, body := importer.NewStep(embed, "embed")
	body.SetAttributeRaw("for_each", importer.Clone(importer.Ref("step", chunks)))
	body.SetAttributeRaw("provider", importer.Clone(importer.Ref("provider", emb.provider)))
	body.SetAttributeValue("model", cty.StringVal(emb.model))
	body.SetAttributeRaw("texts", importer.Clone(importer.Code("[for c in each.value.chunks : c.text]")))
	n.Step(n.nodeComment(node)+": their vectors", b)
	// The metadata of each item's documents, which the items need too.
	metaExpr, metaOf := importer.Object(nil), importer.Object(nil)
	if len(meta) > 0 {
		metaStep := n.Name("step", node.step+"_metadata", node.step+"_metadata")
		b, body = importer.NewStep(metaStep, "value")
		body.SetAttributeRaw("for_each", importer.Clone(in.e))
		body.SetAttributeRaw("value", importer.Clone(importer.Object(meta)))
		n.dependsOn(body, in)
		n.Step(n.nodeComment(node)+": the metadata of each item's documents", b)
		metaExpr = importer.Index(importer.Ref("step", metaStep), importer.Code("each.key"), "value")
		metaOf = importer.Index(importer.Ref("step", metaStep), importer.Code("k"), "value")
	}
	b, body = importer.NewStep(node.step, "vector_upsert")
	body.SetAttributeRaw("for_each", importer.Clone(importer.Ref("step", embed)))
	body.SetAttributeRaw("collection", importer.Clone(importer.Ref("collection", coll)))
	body.SetAttributeRaw("items", importer.Clone(importer.Join("[for i, v in each.value.vectors : { id = \"${run.id}/${each.key}/${i}\", vector = v, text = ",
		importer.Ref("step", chunks), "[each.key].chunks[i].text, metadata = ", metaExpr, " }]")))
	n.Step(n.nodeComment(node)+": stored in collection "+coll+" (n8n gives each document a new id, and so does the flow)", b)
	n.Warn(node.where, node.j, "Document metadata",
		"each item is a chunk {pageContent, metadata} with the loader's metadata; n8n's loader adds source, blobType and loc (the chunk's lines), which the flow does not.")
	items := importer.Join("flatten([for k, c in ", importer.Ref("step", chunks), " : [for x in c.chunks : { pageContent = x.text, metadata = ", metaOf, " }]])")
	return []n8nItems{{e: items, deps: []string{node.step}, unpaired: true}}
}

// vectorLoad is Get Many: for each item, the topK documents nearest its
// prompt, each an item {document = {pageContent, metadata}, score}.
func (n *n8n) vectorLoad(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	emb, ok := n.embeddings(node)
	if !ok {
		return nil
	}
	coll, ok := n.collection(node, emb)
	if !ok {
		return nil
	}
	prompt := p.Get("prompt")
	if prompt == nil {
		n.Problem(node.where, p, "Missing prompt", "Get Many needs a prompt to search with, as n8n does.")
		return nil
	}
	q := s.textValue(prompt, "prompt")
	topK := s.value(p.Get("topK"), "top_k")
	if p.Get("topK") == nil {
		topK = importer.Code("4")
	}
	s.flush()
	b, body := importer.NewStep(node.step, "vector_search")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("collection", importer.Clone(importer.Ref("collection", coll)))
	body.SetAttributeRaw("provider", importer.Clone(importer.Ref("provider", emb.provider)))
	body.SetAttributeValue("model", cty.StringVal(emb.model))
	body.SetAttributeRaw("query", importer.Clone(q))
	body.SetAttributeRaw("top_k", importer.Clone(topK))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": the documents nearest each item's prompt", b)
	doc := "{ pageContent = m.text, metadata = m.metadata }"
	if !p.Boolean(true, "includeDocumentMetadata") {
		doc = "{ pageContent = m.text }"
	}
	items := importer.Join("flatten([for r in ", importer.Ref("step", node.step), " : [for m in r.matches : { document = "+doc+", score = m.score }]])")
	// n8n pairs each document found with the item searched for.
	paired := importer.Join("flatten([for i, r in ", importer.Ref("step", node.step), " : [for m in r.matches : i]])")
	return []n8nItems{pairedWith(items, in, paired)}
}

// loaderWhy says why a document loader is not converted.
func loaderWhy(l *n8nNode) string {
	switch p := l.params; {
	case strings.TrimPrefix(l.fullType, langchainPrefix) != "documentDefaultDataLoader":
		return l.fullType + " is not converted"
	case p.Text("dataType") == "binary":
		return "n8n loads the item's binary file (PDF, text, CSV…) with a loader for its type, and the flow's items do not carry binary data"
	default:
		return "n8n makes a document of every string of the item's JSON as langchain's JSONLoader walks it (in the order of the JSON's keys, a nested string once for each level above it), which no block of the language does"
	}
}
