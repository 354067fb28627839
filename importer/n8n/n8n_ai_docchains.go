package n8n

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The AI chains over documents: the Retrieval QA chain (the documents its
// retriever finds for each item's question, stuffed into the system
// message, as langchain's createRetrievalChain does) and the Summarization
// Chain (an item's documents summarized with n8n's prompts: stuff or map
// reduce). Their prompts are langchain templates, read here as langchain
// reads them.

// fpart is a part of a langchain f-string template: literal text, or the
// name of a placeholder.
type fpart struct{ lit, name string }

// fstring parses a langchain f-string template (langchain's parseFString):
// {name} is a placeholder, {{ and }} are braces. A placeholder that is not
// one of vars is an error, as langchain's format fails on it.
func fstring(tmpl string, vars ...string) ([]fpart, error) {
	var out []fpart
	var lit strings.Builder
	for i := 0; i < len(tmpl); {
		switch {
		case strings.HasPrefix(tmpl[i:], "{{"):
			lit.WriteByte('{')
			i += 2
		case strings.HasPrefix(tmpl[i:], "}}"):
			lit.WriteByte('}')
			i += 2
		case tmpl[i] == '{':
			j := strings.IndexByte(tmpl[i:], '}')
			if j < 0 {
				return nil, errors.New("a '{' is not closed")
			}
			name := tmpl[i+1 : i+j]
			if !slices.Contains(vars, name) {
				return nil, fmt.Errorf("placeholder {%s} is none of %s", name, "{"+strings.Join(vars, "}, {")+"}")
			}
			out = append(out, fpart{lit: lit.String()}, fpart{name: name})
			lit.Reset()
			i += j + 1
		case tmpl[i] == '}':
			return nil, errors.New("a '}' is not opened")
		default:
			lit.WriteByte(tmpl[i])
			i++
		}
	}
	return append(out, fpart{lit: lit.String()}), nil
}

// fill is a parsed template with its placeholders given by values.
func fill(parts []fpart, values map[string]importer.Expr) importer.Expr {
	var tp []importer.TPart
	for _, p := range parts {
		if p.name != "" {
			tp = append(tp, importer.TPart{Expr: inline(values[p.name])})
		} else if p.lit != "" {
			tp = append(tp, importer.TPart{Lit: p.lit})
		}
	}
	if len(tp) == 0 {
		return importer.Str("")
	}
	return importer.Template(tp, false)
}

// hasPlaceholder reports whether a template has placeholder name.
func hasPlaceholder(parts []fpart, name string) bool {
	return slices.ContainsFunc(parts, func(p fpart) bool { return p.name == name })
}

// qaSystemTemplate is the Retrieval QA chain's system prompt template
// (n8n's SYSTEM_PROMPT_TEMPLATE).
const qaSystemTemplate = "You are an assistant for question-answering tasks. Use the following pieces of retrieved context to answer the question.\nIf you don't know the answer, just say that you don't know, don't try to make up an answer.\n----------------\nContext: {context}"

// retrievalQANode is the Retrieval QA chain: for each item, the documents
// its Vector Store Retriever finds for the question (a vector_search
// step), joined by blank lines into the system message's {context}, and
// the question as the user message (an llm step). Each item is
// {response} (from v1.5; {response: {text}} before).
func (n *n8n) retrievalQANode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c, ok := n.modelCall(node, in, s)
	if !ok {
		return nil
	}
	tmpl := qaSystemTemplate
	if v := p.Get("options", "systemPromptTemplate"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "the system prompt template is converted when it is written out: n8n reads it as a template of {context} and {input}.")
			return nil
		}
		tmpl = v.Str
	}
	if node.version < 1.5 {
		tmpl = strings.ReplaceAll(tmpl, "{question}", "{input}") // n8n's LEGACY_INPUT_TEMPLATE_KEY
	}
	parts, err := fstring(tmpl, "context", "input")
	if err != nil {
		n.Problem(node.where, p.Get("options", "systemPromptTemplate"), "Unsupported template", "the system prompt template does not read as langchain's template, which n8n fails on: "+err.Error()+".")
		return nil
	}
	search, ok := n.retriever(node)
	if !ok {
		return nil
	}
	query := n.aiPrompt(node, s, 1.2, "query", map[float64]string{1: "={{ $json.input }}", 1.1: "={{ $json.chat_input }}", 1.2: "={{ $json.chatInput }}"})
	name := n.Name("step", node.step+"_documents", node.step+"_documents")
	docs := importer.Join(`join("\n\n", `, importer.Ref("step", name), "[each.key].texts)")
	c.system = fill(parts, map[string]importer.Expr{"context": docs, "input": query})
	c.prompt = query
	n.writeLLM(c, "the answer to each item's question from the documents found for it")
	search.step(n, node, name, in, query)
	if node.version >= 1.5 {
		return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { response = r.text }]"), in, nil)}
	}
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { response = { text = r.text } }]"), in, nil)}
}

// aiSearch is a Vector Store Retriever: its collection, embeddings and
// how many documents it finds.
type aiSearch struct {
	coll string
	emb  aiEmbedding
	topK int64
}

// retriever converts the Vector Store Retriever on a root's ai_retriever
// input, with its vector store and the store's embeddings.
func (n *n8n) retriever(root *n8nNode) (aiSearch, bool) {
	rets := root.subNodes("ai_retriever")
	if len(rets) == 0 {
		n.Problem(root.where, root.j, "Missing retriever", "the chain needs a retriever on its Retriever input, as n8n does.")
		return aiSearch{}, false
	}
	ret := rets[0]
	if short := strings.TrimPrefix(ret.fullType, langchainPrefix); short != "retrieverVectorStore" || ret.disabled {
		n.Problem(ret.where, ret.j.Get("type"), "Unsupported retriever", fmt.Sprintf("the Vector Store Retriever is converted (a vector_search step); not %s.", ret.fullType))
		return aiSearch{}, false
	}
	topK := int64(4)
	if v := ret.params.Get("topK"); v != nil {
		k, err := strconv.ParseInt(v.Num, 10, 64)
		if v.Kind != 'n' || err != nil || k < 1 || k > 1000 {
			n.Problem(ret.where, v, "Unsupported option", "the limit is converted when it is a whole number from 1 to 1000, written out.")
			return aiSearch{}, false
		}
		topK = k
	}
	stores := ret.subNodes("ai_vectorStore")
	if len(stores) == 0 || stores[0].disabled {
		n.Problem(ret.where, ret.j, "Missing vector store", "the retriever needs a vector store on its Vector Store input, as n8n does.")
		return aiSearch{}, false
	}
	store := stores[0]
	if _, ok := vectorStores[strings.TrimPrefix(store.fullType, langchainPrefix)]; !ok {
		n.Problem(store.where, store.j.Get("type"), "Unsupported vector store",
			fmt.Sprintf("flowctl import converts the vector stores %s into a collection; not %s.", strings.Join(importer.SortedKeys(vectorStores), ", "), store.fullType))
		return aiSearch{}, false
	}
	if opts := store.params.Get("options"); opts != nil && opts.Kind == 'o' {
		for _, k := range opts.Keys {
			if k != "pineconeNamespace" { // a collection of its own
				n.Problem(store.where, opts.Obj[k], "Unsupported option",
					fmt.Sprintf("the store's option %q (a filter) is not converted: the flow searches its whole collection.", k))
				return aiSearch{}, false
			}
		}
	}
	emb, ok := n.embeddings(store)
	if !ok {
		return aiSearch{}, false
	}
	coll, ok := n.collection(store, emb)
	if !ok {
		return aiSearch{}, false
	}
	ret.conv, store.conv = true, true
	return aiSearch{coll: coll, emb: emb, topK: topK}, true
}

// step writes the vector_search step name: the documents nearest each
// item's query, best first, as the retriever gives them.
func (a aiSearch) step(n *n8n, root *n8nNode, name string, in n8nItems, query importer.Expr) {
	b, body := importer.NewStep(name, "vector_search")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("collection", importer.Clone(importer.Ref("collection", a.coll)))
	body.SetAttributeRaw("provider", importer.Clone(importer.Ref("provider", a.emb.provider)))
	body.SetAttributeValue("model", cty.StringVal(a.emb.model))
	body.SetAttributeRaw("query", importer.Clone(query))
	body.SetAttributeValue("top_k", cty.NumberIntVal(a.topK))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(root)+": the documents its retriever finds for each item", b)
}

// summaryDefaultPrompt is langchain's summarization prompt (n8n's
// DEFAULT_PROMPT_TEMPLATE), which reads the documents.
const summaryDefaultPrompt = "Write a concise summary of the following:\n\n\n\"{text}\"\n\n\nCONCISE SUMMARY:"

// n8nExprPart is an n8n expression's {{ }} part.
var n8nExprPart = regexp.MustCompile(`\{\{[\s\S]*?\}\}`)

// summarizationNode is the Summarization Chain whose prompt does not read
// the documents ({text}): its documents (the item's strings, a loader's)
// change nothing in the request, which is the prompt as a user message,
// once for each item. With Stuff that is the one request n8n makes; with
// Map Reduce the combine prompt's, which n8n asks without a map step while
// the prompt is under 3,000 tokens (and after map steps whose replies it
// does not read above that: a warning says so). A prompt that reads the
// documents is an error: the flow does not have them as n8n makes them.
// Each item is {response = {text}} ({output = {text}} from v2.1).
func (n *n8n) summarizationNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	method, prompts := p.Text("type"), p.Get("options")
	if node.version >= 2 {
		prompts = p.Get("options", "summarizationMethodAndPrompts", "values")
		method = prompts.Text("summarizationMethod")
	}
	if method == "" {
		method = "map_reduce"
	}
	at := p
	if prompts != nil {
		at = prompts
	}
	if method != "stuff" && method != "map_reduce" {
		n.Problem(node.where, at, "Unsupported summarization method",
			fmt.Sprintf("method %q is not converted (Refine asks the model for each document in turn); Stuff and Map Reduce are, when the prompt does not read the documents.", method))
		return nil
	}
	src := prompts.Get("prompt")
	raw := summaryDefaultPrompt
	if src != nil {
		if src.Kind != 's' {
			n.Problem(node.where, src, "Unsupported template", "the prompt is not text, which n8n fails on.")
			return nil
		}
		raw = src.Str
	}
	expr := strings.HasPrefix(raw, "=")
	if expr && node.version < 2 {
		n.Problem(node.where, src, "Unsupported expression", "v1 reads its prompts for the first item only; its prompts are converted when they are written out.")
		return nil
	}
	lits := raw
	if expr {
		lits = n8nExprPart.ReplaceAllString(strings.TrimPrefix(raw, "="), "")
	}
	parts, err := fstring(lits, "text")
	if err != nil {
		n.Problem(node.where, src, "Unsupported template", "the prompt does not read as langchain's template, which n8n fails on: "+err.Error()+".")
		return nil
	}
	if hasPlaceholder(parts, "text") {
		n.Problem(node.where, at, "Unsupported documents", n.summaryDocuments(node)+"; a prompt that does not read {text} is converted.")
		return nil
	}
	if !n.summarySources(node) {
		return nil
	}
	c, ok := n.modelCall(node, in, s)
	if !ok {
		return nil
	}
	if expr {
		// n8n reads the prompt, once its expressions are evaluated, as a
		// langchain template: a brace in a value makes it fail (or read
		// {text}); the step fails on such a prompt instead of sending it.
		v := s.textValue(src, "prompt")
		c.prompt = importer.Join(`can(regex("[{}]", `, inline(v), ")) ? null : ", inline(v))
		n.Warn(node.where, src, "Prompt read as a template",
			"n8n reads the prompt, once its expressions are evaluated, as a langchain template: a value with a brace makes n8n fail (or put the documents there); the flow's step fails on it.")
	} else {
		c.prompt = fill(parts, nil)
	}
	if method == "map_reduce" {
		n.Warn(node.where, at, "Map step left out",
			"when the prompt is 3,000 tokens or more, n8n first asks the model to summarize each document (up to 10 rounds), replies the prompt does not read; the flow asks the prompt alone.")
	}
	n.writeLLM(c, "the summary of each item")
	key := "response"
	if node.version >= 2.1 {
		key = "output"
	}
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { "+key+" = { text = r.text } }]"), in, nil)}
}

// summaryDocuments says where a Summarization Chain's documents come
// from, and why the flow does not make them.
func (n *n8n) summaryDocuments(node *n8nNode) string {
	mode := node.params.Text("operationMode")
	switch {
	case node.version < 2 || mode == "documentLoader":
		return "the prompt reads the documents of the chain's document loader ({text}), which are not converted for a summary"
	case mode == "nodeInputBinary":
		return "the prompt reads the documents of the item's binary file ({text}), which the flow does not have"
	default:
		return "the prompt reads the documents ({text}) n8n makes of every string of the item's JSON, in the order of its keys, which the flow does not keep"
	}
}

// summarySources checks the documents a Summarization Chain makes, which
// its prompt does not read, for what fails in n8n: a binary file the item
// may lack, or a loader of another kind; its loader and splitter run, and
// convert with it.
func (n *n8n) summarySources(node *n8nNode) bool {
	mode := node.params.Text("operationMode")
	if node.version >= 2 && mode == "nodeInputBinary" {
		n.Problem(node.where, node.params.Get("operationMode"), "Unsupported documents", "n8n reads each item's binary file, and fails on an item without one, which the flow does not check.")
		return false
	}
	if node.version >= 2 && mode != "documentLoader" {
		for _, sp := range node.subNodes("ai_textSplitter") {
			if !n.splitterValid(sp) {
				return false
			}
			sp.conv = true
		}
		return true
	}
	loaders := node.subNodes("ai_document")
	if len(loaders) == 0 {
		n.Problem(node.where, node.j, "Missing document loader", "the chain needs a document loader on its Document input, as n8n does.")
		return false
	}
	l := loaders[0]
	if strings.TrimPrefix(l.fullType, langchainPrefix) != "documentDefaultDataLoader" || l.params.Text("dataType") == "binary" {
		n.Problem(l.where, l.params, "Unsupported document loader", "the Default Data Loader of JSON data is converted for a summary whose prompt does not read the documents; not a binary file's loader, nor "+l.fullType+".")
		return false
	}
	for _, sp := range l.subNodes("ai_textSplitter") {
		if !n.splitterValid(sp) {
			return false
		}
		sp.conv = true
	}
	l.conv = true
	return true
}

// literalText is the text of a parameter written out: a string, or an
// expression without {{ }}, which n8n evaluates to its text ("=COLLECTION"
// is COLLECTION).
func literalText(v *importer.JV) (string, bool) {
	if v == nil || v.Kind != 's' {
		return "", false
	}
	if rest, ok := strings.CutPrefix(v.Str, "="); ok {
		return rest, !strings.Contains(rest, "{{")
	}
	return v.Str, true
}

// inline is an expression that may stand inside another on one line: a
// heredoc, whose closing marker ends its line, is put in parentheses
// that close on the next.
func inline(e importer.Expr) importer.Expr {
	if len(e) == 0 || e[len(e)-1].Type != hclsyntax.TokenCHeredoc {
		return e
	}
	out := importer.Expr{{Type: hclsyntax.TokenOParen, Bytes: []byte("(")}}
	out = append(out, importer.Clone(e)...)
	return append(out, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}, &hclwrite.Token{Type: hclsyntax.TokenCParen, Bytes: []byte(")")})
}

// splitterValid reports a text splitter n8n fails on: langchain's
// TextSplitter refuses an overlap that is not under the chunk size.
func (n *n8n) splitterValid(sp *n8nNode) bool {
	size, overlap := sp.params.Number(1000, "chunkSize"), sp.params.Number(0, "chunkOverlap")
	if overlap >= size {
		n.Problem(sp.where, sp.params, "Invalid text splitter",
			fmt.Sprintf("its overlap (%g) is not under its chunk size (%g): n8n fails on it (Cannot have chunkOverlap >= chunkSize).", overlap, size))
		return false
	}
	return true
}
