package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The tools that run steps (a search, then a model's answer) are flows of
// their own, written beside the workflow's flow: the llm step calls them
// as flow.NAME, and the model gives their inputs without a default.

// toolFlow converts a tool into a flow of its own: build declares its
// inputs, steps and outputs in n.File, which is the tool's flow until it
// returns. The flow is named after the workflow's and the tool's, and
// the model calls the tool by that name.
func (n *n8n) toolFlow(root, node *n8nNode, name, description string, build func() bool) (importer.Expr, bool) {
	flow, end := n.SubFlow(name)
	providers, secrets, creds := n.providers, n.credSecrets, n.creds
	n.providers, n.credSecrets, n.creds = map[string]string{}, map[string]string{}, map[string][]string{}
	n.File.Header = []string{fmt.Sprintf("Imported by flowctl import from %s: the tool %q of node %q, which its model calls as flow.%s.", n.nodeComment(node), name, root.name, flow)}
	if description != "" {
		n.File.Description = description
	}
	ok := build()
	n.providers, n.credSecrets, n.creds = providers, secrets, creds
	end(ok)
	if !ok {
		return nil, false
	}
	n.Warn(node.where, node.j.Get("name"), "Tool renamed", fmt.Sprintf("the model calls the tool %s, the flow written beside the workflow's; n8n calls it %s.", flow, name))
	return importer.Ref("flow", flow), true
}

// literalSubNodes reports the first expression in the parameters of a
// node's sub-nodes (and theirs): a tool's flow runs on the model's
// arguments alone, without the workflow's items.
func (n *n8n) literalSubNodes(node *n8nNode) bool {
	for _, kind := range aiKinds {
		for _, sub := range node.ai[kind] {
			if at := firstExpression(sub.params); at != nil {
				n.Problem(sub.where, at, "Unsupported expression",
					fmt.Sprintf("a sub-node of tool %q is converted when its parameters are written out: the tool runs as a flow of its own, on the model's arguments alone.", node.name))
				return false
			}
			if !n.literalSubNodes(sub) {
				return false
			}
		}
	}
	return true
}

// firstExpression is the first n8n expression (a text that starts with
// "=") in a parameter value.
func firstExpression(v *importer.JV) *importer.JV {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case 's':
		if strings.HasPrefix(v.Str, "=") {
			return v
		}
	case 'o':
		for _, k := range v.Keys {
			if e := firstExpression(v.Obj[k]); e != nil {
				return e
			}
		}
	case 'a':
		for _, e := range v.Arr {
			if e := firstExpression(e); e != nil {
				return e
			}
		}
	}
	return nil
}

// qaSystem is langchain's prompt of a question-answering chain over
// documents for a chat model (QA_PROMPT_SELECTOR's), before the
// documents' texts.
const qaSystem = "Use the following pieces of context to answer the users question. \nIf you don't know the answer, just say that you don't know, don't try to make up an answer.\n----------------\n"

// vectorStoreTool is the Vector Store Question Answer Tool: the model's
// question searches the store (the topK documents nearest it) and the
// tool's own chat model answers it from them, as langchain's
// VectorStoreQATool does. It is a flow: an input, a vector_search step,
// an llm step and the answer as its output.
func (n *n8n) vectorStoreTool(root, node *n8nNode) (importer.Expr, bool) {
	p := node.params
	stores := node.subNodes("ai_vectorStore")
	if len(stores) == 0 || stores[0].disabled {
		n.Problem(node.where, node.j, "Missing vector store", "the tool needs a vector store on its Vector Store input, as n8n does.")
		return nil, false
	}
	store := stores[0]
	if _, ok := vectorStores[strings.TrimPrefix(store.fullType, langchainPrefix)]; !ok {
		n.Problem(store.where, store.j.Get("type"), "Unsupported vector store",
			fmt.Sprintf("flowctl import converts the vector stores %s into a collection; not %s.", strings.Join(importer.SortedKeys(vectorStores), ", "), store.fullType))
		return nil, false
	}
	if at := firstExpression(p); at != nil {
		n.Problem(node.where, at, "Unsupported expression", "the tool's name, description and limit are converted when they are written out.")
		return nil, false
	}
	if !n.literalSubNodes(node) {
		return nil, false
	}
	name := p.Text("name")
	if name == "" {
		name = toolName(node)
	}
	// langchain's VectorStoreQATool.getDescription.
	desc := fmt.Sprintf("Useful for when you need to answer questions about %s. Whenever you need information about %s, you should ALWAYS use this. Input should be a fully formed question.", name, p.Text("description"))
	topK := int64(p.Number(4, "topK"))
	return n.toolFlow(root, node, name, desc, func() bool {
		ib := hclwrite.NewBlock("input", []string{"input"})
		ib.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
		ib.Body().SetAttributeValue("description", cty.StringVal("the model's question"))
		n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: ib})
		emb, ok := n.embeddings(store)
		if !ok {
			return false
		}
		coll, ok := n.collection(store, emb)
		if !ok {
			return false
		}
		m, ok := n.languageModel(node, n.scope(node, n8nItems{e: importer.Code("[]")}, false))
		if !ok {
			return false
		}
		store.conv = true
		b, body := importer.NewStep("search", "vector_search")
		body.SetAttributeRaw("collection", importer.Clone(importer.Ref("collection", coll)))
		body.SetAttributeRaw("provider", importer.Clone(importer.Ref("provider", emb.provider)))
		body.SetAttributeValue("model", cty.StringVal(emb.model))
		body.SetAttributeRaw("query", importer.Clone(importer.Code("input.input")))
		body.SetAttributeValue("top_k", cty.NumberIntVal(topK))
		n.Step(n.nodeComment(store)+": the documents nearest the question", b)
		b, body = importer.NewStep("answer", "llm")
		m.stepArgs(body)
		body.SetAttributeRaw("system", importer.Clone(importer.Template([]importer.TPart{{Lit: qaSystem}, {Expr: importer.Code(`join("\n\n", step.search.texts)`)}}, false)))
		body.SetAttributeRaw("prompt", importer.Clone(importer.Code("input.input")))
		n.Step(n.nodeComment(node)+": the answer from those documents", b)
		ob := hclwrite.NewBlock("output", []string{"response"})
		ob.Body().SetAttributeRaw("value", importer.Clone(importer.Code("step.answer.text")))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: ob})
		return true
	})
}

// placeholder is a {name} of an HTTP Request Tool: a value the model
// gives.
var placeholder = regexp.MustCompile(`\{([a-zA-Z0-9_-]+)\}`)

// placeholderTypes are the input types of the placeholders' types.
var placeholderTypes = map[string]string{"": "string", "not specified": "string", "string": "string", "number": "number", "boolean": "bool", "json": "any"}

// httpTool is the HTTP Request Tool: a flow whose inputs are the
// placeholders the model fills ({name} in the URL, the query, the
// headers and the body, and the parameters the model gives), with an
// http step making the request and the answer's text as its output
// response, which n8n gives the model too.
func (n *n8n) httpTool(root, node *n8nNode) (importer.Expr, bool) {
	p := node.params
	// literal is a parameter's text: an expression without {{ }} is its
	// text; one with {{ }} reads the workflow's items, which the tool's
	// flow does not have.
	literal := func(v *importer.JV) (string, bool) {
		if v == nil {
			return "", true
		}
		if v.Kind != 's' {
			n.Problem(node.where, v, "Unsupported parameter", "the tool's parameter is not text.")
			return "", false
		}
		s := v.Str
		if strings.HasPrefix(s, "=") {
			if strings.Contains(s, "{{") {
				n.Problem(node.where, v, "Unsupported expression",
					"the HTTP Request Tool runs as a flow of its own on the model's arguments: an expression that reads the workflow's items is not converted; a {placeholder} the model fills is.")
				return "", false
			}
			s = s[1:]
		}
		return s, true
	}
	url, ok := literal(p.Get("url"))
	if !ok {
		return nil, false
	}
	if strings.TrimSpace(url) == "" {
		n.Problem(node.where, p, "No URL", "the HTTP Request Tool has no URL; n8n fails the tool on it too.")
		return nil, false
	}
	for _, k := range []string{"optimizeResponse", "specifyQuery", "specifyHeaders", "specifyBody"} {
		if k == "optimizeResponse" && p.Boolean(false, k) {
			n.Warn(node.where, p.Get(k), "Response not optimized",
				"the tool gives the model the whole answer's text; n8n's Optimize Response (selected fields, HTML selectors, truncation) is not converted.")
		}
		if v := p.Text(k); v == "model" {
			n.Problem(node.where, p.Get(k), "Unsupported parameter", "parameters the model writes as a whole are not converted; name/value pairs and JSON with {placeholders} are.")
			return nil, false
		}
	}
	type ph struct{ input, typ, desc string }
	defs := map[string]*ph{}
	for _, d := range p.Items("placeholderDefinitions", "values") {
		defs[d.Text("name")] = &ph{typ: placeholderTypes[d.Text("type")], desc: d.Text("description")}
	}
	var order []string
	used := map[string]*ph{}
	var bad *importer.JV
	// input is the input of a placeholder, declared at its first use.
	input := func(name string, at *importer.JV) importer.Expr {
		if d := used[name]; d != nil {
			return importer.Ref("input", d.input)
		}
		d := defs[name]
		if d == nil {
			d = &ph{typ: "string"}
		}
		if d.typ == "" {
			d.typ = "string"
		}
		d.input = importer.Snake(name)
		if d.input == "" && bad == nil {
			bad = at
		}
		used[name] = d
		order = append(order, name)
		return importer.Ref("input", d.input)
	}
	text := func(s string, at *importer.JV) importer.Expr {
		var parts []importer.TPart
		last := 0
		for _, m := range placeholder.FindAllStringSubmatchIndex(s, -1) {
			parts = append(parts, importer.TPart{Lit: s[last:m[0]]}, importer.TPart{Expr: input(s[m[2]:m[3]], at)})
			last = m[1]
		}
		parts = append(parts, importer.TPart{Lit: s[last:]})
		return importer.Template(n.HideCredentials(parts, fmt.Sprintf("n8n node %q", node.name)), false)
	}
	// pairs reads the name/value pairs of the query, the headers or the
	// body, or their JSON.
	pairs := func(specify string, list, jsonText *importer.JV) ([]importer.Member, importer.Expr, bool) {
		if specify == "json" {
			src, ok := literal(jsonText)
			if !ok {
				return nil, nil, false
			}
			var spans []importer.Span
			var names []string
			for _, m := range placeholder.FindAllStringSubmatchIndex(src, -1) {
				spans = append(spans, importer.Span{Start: m[0], End: m[1]})
				names = append(names, src[m[2]:m[3]])
			}
			e, err := importer.JSONTemplate(src, spans,
				func(i int) importer.Expr { return input(names[i], jsonText) },
				func(i int) importer.Expr { return input(names[i], jsonText) })
			if err != nil {
				n.Problem(node.where, jsonText, "Invalid JSON", fmt.Sprintf("the JSON is not JSON once its placeholders are filled: %s.", err))
				return nil, nil, false
			}
			return nil, e, true
		}
		var ms []importer.Member
		for _, v := range list.Items("values") {
			name := v.Text("name")
			switch v.Text("valueProvider") {
			case "fieldValue":
				val, ok := literal(v.Get("value"))
				if !ok {
					return nil, nil, false
				}
				ms = append(ms, importer.Member{Name: name, Value: text(val, v)})
			default: // modelRequired, modelOptional: the model gives it
				ms = append(ms, importer.Member{Name: name, Value: importer.Template([]importer.TPart{{Expr: input(name, v)}}, false)})
			}
		}
		return ms, nil, true
	}
	desc, ok := literal(p.Get("toolDescription"))
	if !ok {
		return nil, false
	}
	method := p.Text("method")
	if method == "" {
		method = "GET"
	}
	return n.toolFlow(root, node, toolName(node), desc, func() bool {
		u := text(url, p.Get("url"))
		var query, headers, bodyPairs []importer.Member
		var queryJSON, headersJSON, bodyJSON importer.Expr
		if p.Boolean(false, "sendQuery") {
			if query, queryJSON, ok = pairs(p.Text("specifyQuery"), p.Get("parametersQuery"), p.Get("jsonQuery")); !ok {
				return false
			}
		}
		if p.Boolean(false, "sendHeaders") {
			if headers, headersJSON, ok = pairs(p.Text("specifyHeaders"), p.Get("parametersHeaders"), p.Get("jsonHeaders")); !ok {
				return false
			}
			for i, h := range headers {
				headers[i].Name = strings.ToLower(h.Name)
			}
		}
		if p.Boolean(false, "sendBody") {
			if bodyPairs, bodyJSON, ok = pairs(p.Text("specifyBody"), p.Get("parametersBody"), p.Get("jsonBody")); !ok {
				return false
			}
		}
		if bad != nil {
			n.Problem(node.where, bad, "Unsupported parameter", "a placeholder's name has no letter or digit to name the flow's input after.")
			return false
		}
		for _, name := range order {
			d := used[name]
			ib := hclwrite.NewBlock("input", []string{d.input})
			ib.Body().SetAttributeRaw("type", importer.Clone(importer.Code(d.typ)))
			if d.desc != "" {
				ib.Body().SetAttributeValue("description", cty.StringVal(d.desc))
			}
			n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: ib})
		}
		errs := n.errorCount()
		auth := n.httpAuth(node, n.scope(node, n8nItems{e: importer.Code("[]")}, false), &headers, &query)
		if n.errorCount() > errs {
			return false
		}
		b, body := importer.NewStep("request", "http")
		if method != "GET" {
			body.SetAttributeValue("method", cty.StringVal(method))
		}
		body.SetAttributeRaw("url", importer.Clone(u))
		switch {
		case queryJSON != nil && len(query) > 0:
			body.SetAttributeRaw("query", importer.Clone(importer.Call("merge", queryJSON, mergedObject(query))))
		case queryJSON != nil:
			body.SetAttributeRaw("query", importer.Clone(queryJSON))
		case len(query) > 0:
			body.SetAttributeRaw("query", importer.Clone(mergedObject(query)))
		}
		switch {
		case headersJSON != nil && len(headers) > 0:
			body.SetAttributeRaw("headers", importer.Clone(importer.Call("merge", headersJSON, mergedObject(headers))))
		case headersJSON != nil:
			body.SetAttributeRaw("headers", importer.Clone(headersJSON))
		case len(headers) > 0:
			body.SetAttributeRaw("headers", importer.Clone(mergedObject(headers)))
		}
		switch {
		case bodyJSON != nil:
			body.SetAttributeRaw("body", importer.Clone(bodyJSON))
		case len(bodyPairs) > 0:
			body.SetAttributeRaw("body", importer.Clone(importer.Object(bodyPairs)))
		}
		comment := n.nodeComment(node) + ": " + method + " " + url
		if auth != "" {
			comment += " (" + auth + ")"
		}
		n.Step(comment, b)
		ob := hclwrite.NewBlock("output", []string{"response"})
		ob.Body().SetAttributeRaw("value", importer.Clone(importer.Code("step.request.text")))
		ob.Body().SetAttributeValue("description", cty.StringVal("the answer's text, which the model reads"))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: ob})
		return true
	})
}

// calculatorTool is the Calculator: langchain's Calculator tool, which
// evaluates the model's expression with expr-eval (the package it uses)
// and says "I don't know how to do that." of one it cannot evaluate. The
// block's package is locked with flowctl lock before a run.
func (n *n8n) calculatorTool(root, node *n8nNode) (importer.Expr, bool) {
	block := n.toolBlockName("calculator")
	b := hclwrite.NewBlock("block", []string{block})
	body := b.Body()
	body.SetAttributeValue("runtime", cty.StringVal("js"))
	body.SetAttributeValue("description", cty.StringVal("Useful for getting the result of a math expression. The input to this tool should be a valid mathematical expression that could be executed by a simple calculator."))
	body.SetAttributeRaw("packages", importer.Clone(importer.Object([]importer.Member{{Name: "expr-eval", Value: importer.Str("2.0.2")}})))
	ib := body.AppendNewBlock("input", []string{"input"}).Body()
	ib.SetAttributeRaw("type", importer.Clone(importer.Code("string")))
	ob := body.AppendNewBlock("output", []string{"response"}).Body()
	ob.SetAttributeRaw("type", importer.Clone(importer.Code("string")))
	body.SetAttributeRaw("source", importer.Clone(importer.Template([]importer.TPart{{Lit: "import { Parser } from \"expr-eval\";\n\n" +
		"function execute(input) {\n" +
		"  try {\n" +
		"    return { response: Parser.evaluate(input.input).toString() };\n" +
		"  } catch (error) {\n" +
		"    return { response: \"I don't know how to do that.\" };\n" +
		"  }\n" +
		"}\n"}}, true)))
	n.File.Blocks = append(n.File.Blocks, importer.Decl{Comment: []string{n.nodeComment(node) + ": a tool of " + fmt.Sprintf("%q", root.name)}, Block: b})
	n.lockNeeded()
	return importer.Ref("block", block), true
}

// lockNeeded tells the user, once, to lock the blocks' packages.
func (n *n8n) lockNeeded() {
	const next = "flowctl lock in the flow's directory, before it runs: blocks of the flow declare npm packages (a Calculator tool's, an HTML or Markdown node's), which a run installs as the lock pins them (apply refuses a block whose packages are not locked)"
	for _, s := range n.File.Next {
		if s == next {
			return
		}
	}
	n.File.Next = append(n.File.Next, next)
}

// wikipediaTool is the Wikipedia tool: langchain's WikipediaQueryRun as
// n8n builds it (English Wikipedia, the first 3 results, at most 4,000
// characters). It is a flow: a search of Wikipedia's API for the model's
// query, the plain-text extract of each page found, and as response each
// page's title and summary, or that none was found.
func (n *n8n) wikipediaTool(root, node *n8nNode) (importer.Expr, bool) {
	return n.toolFlow(root, node, toolName(node), "A tool for interacting with and fetching data from the Wikipedia API.", func() bool {
		ib := hclwrite.NewBlock("input", []string{"input"})
		ib.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
		ib.Body().SetAttributeValue("description", cty.StringVal("what to search Wikipedia for"))
		n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: ib})
		api := "https://en.wikipedia.org/w/api.php"
		b, body := importer.NewStep("search", "http")
		body.SetAttributeValue("url", cty.StringVal(api))
		body.SetAttributeRaw("query", importer.Clone(importer.Code(`{ action = "query", list = "search", srsearch = input.input, format = "json" }`)))
		n.Step(n.nodeComment(node)+": the pages Wikipedia finds", b)
		b, body = importer.NewStep("pages", "http")
		body.SetAttributeRaw("for_each", importer.Clone(importer.Code(`slice(step.search.body.query.search, 0, min(3, length(step.search.body.query.search)))`)))
		body.SetAttributeValue("url", cty.StringVal(api))
		body.SetAttributeRaw("query", importer.Clone(importer.Code(`{ action = "query", prop = "extracts", explaintext = "true", redirects = "1", format = "json", titles = each.value.title }`)))
		n.Step(n.nodeComment(node)+": the plain-text extract of each of the first 3", b)
		ob := hclwrite.NewBlock("output", []string{"response"})
		ob.Body().SetAttributeRaw("value", importer.Clone(importer.Code(
			`length(step.pages) == 0 ? "No good Wikipedia Search Result was found" : substr(join("\n\n", [for i, p in step.pages : "Page: ${step.search.body.query.search[i].title}\nSummary: ${values(p.body.query.pages)[0].extract}"]), 0, 4000)`)))
		ob.Body().SetAttributeValue("description", cty.StringVal("each page's title and summary, as langchain's tool gives them"))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: ob})
		return true
	})
}

// vectorRetrieveTool is a vector store in Retrieve Documents (As Tool for
// AI Agent) mode: a flow searching the store's collection with the
// model's query, whose response is n8n's list of the documents found,
// each {type = "text", text = the document's JSON}.
func (n *n8n) vectorRetrieveTool(root, node *n8nNode) (importer.Expr, bool) {
	p := node.params
	if mode := p.Text("mode"); mode != "retrieve-as-tool" {
		n.Problem(node.where, p.Get("mode"), "Unsupported mode",
			fmt.Sprintf("a vector store on an agent's tools is converted in Retrieve Documents (As Tool for AI Agent) mode, not %q.", mode))
		return nil, false
	}
	for _, k := range []string{"toolName", "toolDescription", "topK", "includeDocumentMetadata"} {
		if at := firstExpression(p.Get(k)); at != nil {
			n.Problem(node.where, at, "Unsupported expression", "the tool's name, description and limit are converted when they are written out.")
			return nil, false
		}
	}
	if !n.literalSubNodes(node) {
		return nil, false
	}
	name := p.Text("toolName")
	if node.version >= 1.3 || name == "" {
		name = toolName(node)
	}
	topK := int64(p.Number(4, "topK"))
	doc := "{ pageContent = m.text, metadata = m.metadata }"
	if !p.Boolean(true, "includeDocumentMetadata") {
		doc = "{ pageContent = m.text }"
	}
	return n.toolFlow(root, node, name, p.Text("toolDescription"), func() bool {
		ib := hclwrite.NewBlock("input", []string{"input"})
		ib.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
		ib.Body().SetAttributeValue("description", cty.StringVal("what to search the documents for"))
		n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: ib})
		emb, ok := n.embeddings(node)
		if !ok {
			return false
		}
		coll, ok := n.collection(node, emb)
		if !ok {
			return false
		}
		b, body := importer.NewStep("search", "vector_search")
		body.SetAttributeRaw("collection", importer.Clone(importer.Ref("collection", coll)))
		body.SetAttributeRaw("provider", importer.Clone(importer.Ref("provider", emb.provider)))
		body.SetAttributeValue("model", cty.StringVal(emb.model))
		body.SetAttributeRaw("query", importer.Clone(importer.Code("input.input")))
		body.SetAttributeValue("top_k", cty.NumberIntVal(topK))
		n.Step(n.nodeComment(node)+": the documents nearest the query", b)
		ob := hclwrite.NewBlock("output", []string{"response"})
		ob.Body().SetAttributeRaw("value", importer.Clone(importer.Code(`jsonencode([for m in step.search.matches : { type = "text", text = jsonencode(`+doc+`) }])`)))
		ob.Body().SetAttributeValue("description", cty.StringVal("the documents found, as n8n gives them to the model"))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: ob})
		return true
	})
}
