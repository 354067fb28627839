package n8n

import (
	"fmt"
	"github.com/flowctl/flowctl/importer"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The AI root nodes that ask a model: Agent, Basic LLM Chain, the OpenAI
// node's message operation, Information Extractor, Text Classifier and
// Sentiment Analysis. Each is an llm step for each item (n8n runs them
// once per item), with its model's provider, and gives n8n's items.

// llmCall is an llm step being written for a root node.
type llmCall struct {
	node   *n8nNode
	in     n8nItems
	s      *n8nScope
	model  aiModel
	system importer.Expr
	prompt importer.Expr
	// messages are fixed messages before the prompt (a chain's).
	messages []importer.Expr
	mem      *aiMemory
	tools    []importer.Expr
	maxCalls importer.Expr
	// outputs adds the step's output blocks.
	outputs func(body *hclwrite.Body)
	// reply is what a turn of the conversation stores, from the step's
	// instance r.
	reply importer.Expr
}

// write writes the steps: the turn (the prompt and session of each item)
// when there is a memory, the JavaScript expressions, the llm step.
func (n *n8n) writeLLM(c *llmCall, what string) {
	node := c.node
	c.s.flush()
	b, body := importer.NewStep(node.step, "llm")
	body.SetAttributeRaw("for_each", importer.Clone(c.in.e))
	c.model.stepArgs(body)
	if c.system != nil {
		body.SetAttributeRaw("system", importer.Clone(c.system))
	}
	prompt := c.prompt
	if c.mem != nil {
		turn := n.Name("step", node.step+"_turn", node.step+"_turn")
		tb, tbody := importer.NewStep(turn, "value")
		tbody.SetAttributeRaw("for_each", importer.Clone(c.in.e))
		tbody.SetAttributeRaw("value", importer.Clone(importer.Object([]importer.Member{{Name: "session", Value: c.mem.session}, {Name: "prompt", Value: c.prompt}})))
		n.dependsOn(tbody, c.in)
		n.Step(n.nodeComment(node)+": the session and the message of each item", tb)
		t := importer.Index(importer.Ref("step", turn), importer.Code("each.key"), "value")
		prompt = importer.Index(t, "prompt")
		history := importer.Join("lookup(", importer.Ref("memory", c.mem.name), ", ", importer.Index(t, "session"), ", [])")
		if len(c.messages) > 0 {
			history = importer.Call("concat", importer.Tuple(c.messages), history)
		}
		body.SetAttributeRaw("messages", importer.Clone(history))
		reply := c.reply
		if reply == nil {
			reply = importer.Join(importer.Ref("step", node.step), "[i].text")
		}
		n.declareMemory(c.mem, turn, node.step, reply)
	} else if len(c.messages) > 0 {
		body.SetAttributeRaw("messages", importer.Clone(importer.Tuple(c.messages)))
	}
	body.SetAttributeRaw("prompt", importer.Clone(prompt))
	if len(c.tools) > 0 {
		body.SetAttributeRaw("tools", importer.Clone(importer.Tuple(c.tools)))
		if c.maxCalls != nil {
			body.SetAttributeRaw("max_tool_calls", importer.Clone(c.maxCalls))
		}
	}
	n.dependsOn(body, c.in)
	if c.outputs != nil {
		c.outputs(body)
	}
	n.Step(n.nodeComment(node)+": "+what, b)
}

// agentNode is the AI Agent: an llm step for each item that may call the
// agent's tools, with its memory's conversation; each item is {output}.
func (n *n8n) agentNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	kind := p.Text("agent")
	if kind == "" {
		kind = "toolsAgent"
		if node.version <= 1.5 {
			kind = "conversationalAgent"
		}
	}
	switch kind {
	case "toolsAgent":
	case "conversationalAgent", "openAiFunctionsAgent":
		n.Warn(node.where, p.Get("agent"), "Agent converted as a tools agent",
			fmt.Sprintf("the %s is converted as n8n's Tools Agent: the model calls the tools through the API's tool calls, and its replies are the step's text.", kind))
	default:
		n.Problem(node.where, p.Get("agent"), "Unsupported agent",
			fmt.Sprintf("the %s is not converted; the Tools Agent (and the conversational and OpenAI functions agents, as a Tools Agent) is.", kind))
		return nil
	}
	opts := p.Get("options")
	if opts.Boolean(false, "returnIntermediateSteps") {
		n.Problem(node.where, opts.Get("returnIntermediateSteps"), "Unsupported option",
			"the intermediate steps (the tool calls and their results) are not in the step's outputs; they are in its call trace (flowctl runs show RUN --calls).")
		return nil
	}
	c := &llmCall{node: node, in: in, s: s}
	var ok bool
	if c.model, ok = n.languageModel(node, s); !ok {
		return nil
	}
	c.prompt = n.aiPrompt(node, s, 1.2, "text", map[float64]string{1: "={{ $json.input }}", 1.1: "={{ $json.chat_input }}", 1.2: "={{ $json.chatInput }}"})
	if sys := opts.Get("systemMessage"); sys != nil {
		c.system = s.textValue(sys, "system")
	} else if node.version < 1.9 {
		c.system = importer.Str("You are a helpful assistant")
	}
	if c.mem, ok = n.memory(node, s); !ok {
		return nil
	}
	if c.tools, ok = n.tools(node); !ok {
		return nil
	}
	if mi := opts.Get("maxIterations"); mi != nil && len(c.tools) > 0 {
		c.maxCalls = s.value(mi, "max_iterations")
	}
	typ, parsed, ok := n.outputParser(node)
	if !ok {
		return nil
	}
	if parsed && p.Boolean(true, "hasOutputParser") {
		c.outputs = func(body *hclwrite.Body) { outputBlock(body, "output", typ, "", nil, false) }
		n.writeLLM(c, "the agent, for each item")
		return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { output = r.output }]"), in, nil)}
	}
	n.writeLLM(c, "the agent, for each item")
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { output = r.text }]"), in, nil)}
}

// chainNode is the Basic LLM Chain: its messages, then the prompt; each
// item is {text} (the reply, trimmed), or {output} with an output parser.
func (n *n8n) chainNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c := &llmCall{node: node, in: in, s: s}
	var ok bool
	if c.model, ok = n.languageModel(node, s); !ok {
		return nil
	}
	c.prompt = n.aiPrompt(node, s, 1.3, "prompt", map[float64]string{1: "={{ $json.input }}", 1.1: "={{ $json.chat_input }}", 1.3: "={{ $json.chatInput }}"})
	roles := map[string]string{"SystemMessagePromptTemplate": "system", "AIMessagePromptTemplate": "assistant", "HumanMessagePromptTemplate": "user"}
	for i, m := range p.Items("messages", "messageValues") {
		typ := m.Text("type")
		if typ == "" {
			typ = "SystemMessagePromptTemplate"
		}
		role, known := roles[typ]
		if !known {
			n.Problem(node.where, m.Get("type"), "Unsupported message", fmt.Sprintf("a message of type %q is none of n8n's.", typ))
			return nil
		}
		if mt := m.Text("messageType"); mt != "" && mt != "text" {
			n.Problem(node.where, m.Get("messageType"), "Unsupported message", "an image message is not converted; text messages are.")
			return nil
		}
		content := s.textValue(m.Get("message"), fmt.Sprintf("message %d", i+1))
		c.messages = append(c.messages, importer.Object([]importer.Member{{Name: "role", Value: importer.Str(role)}, {Name: "content", Value: content}}))
	}
	if node.version >= 1.4 && p.Boolean(false, "needsFallback") {
		n.Warn(node.where, p.Get("needsFallback"), "Fallback model left out", "the flow calls the first model only.")
	}
	hasParser := node.version <= 1.3 && node.version != 1.2 || p.Boolean(false, "hasOutputParser")
	if node.version == 1.2 {
		hasParser = p.Boolean(false, "hasOutputParser")
	}
	typ, parsed, ok := n.outputParser(node)
	if !ok {
		return nil
	}
	if parsed && hasParser {
		c.outputs = func(body *hclwrite.Body) { outputBlock(body, "output", typ, "", nil, false) }
		n.writeLLM(c, "the chain, for each item")
		return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { output = r.output }]"), in, nil)}
	}
	n.writeLLM(c, "the chain, for each item")
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { text = trimspace(r.text) }]"), in, nil)}
}

// openAINode is the OpenAI node (v1), its text resource's message
// operation: its messages, the reply as the simplified choice.
func (n *n8n) openAINode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if node.version >= 2 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version",
			"the OpenAI node v2 (the Responses API) is not converted; v1's message operation is.")
		return nil
	}
	if r, op := p.Text("resource"), p.Text("operation"); (r != "" && r != "text") || (op != "" && op != "message") {
		n.Problem(node.where, p, "Unsupported operation", fmt.Sprintf("resource %q, operation %q: flowctl import converts the text resource's message operation.", r, op))
		return nil
	}
	if !p.Boolean(true, "simplify") {
		n.Problem(node.where, p.Get("simplify"), "Unsupported option", "the whole API response is not converted; the simplified one (each choice) is.")
		return nil
	}
	s := n.scope(node, in, true)
	c := &llmCall{node: node, in: in, s: s}
	model := p.Get("modelId")
	if model != nil && model.Kind == 'o' {
		model = model.Get("value")
	}
	if model == nil || model.Kind == 's' && model.Str == "" {
		n.Problem(node.where, p, "Missing model", "the node names no model, which n8n fails on too.")
		return nil
	}
	credName := node.j.Text("credentials", "openAiApi", "name")
	if credName == "" {
		credName = "openAiApi"
	}
	cm := chatModels["lmChatOpenAi"]
	c.model.provider = n.provider(credName, cm, cm.url, "openAi")
	c.model.args = append(c.model.args, importer.Member{Name: "model", Value: s.textValue(model, "model")})
	opts := p.Get("options")
	var skipped []string
	if opts != nil && opts.Kind == 'o' {
		for _, k := range opts.Keys {
			switch k {
			case "temperature", "maxTokens", "topP":
				c.model.args = append(c.model.args, importer.Member{Name: modelOptions[k], Value: s.value(opts.Obj[k], k)})
			case "maxToolsIterations":
			case "n":
				if opts.Obj[k].Num != "1" {
					n.Problem(node.where, opts.Obj[k], "Unsupported option", "several choices (n) are not converted; the llm step gives one reply.")
					return nil
				}
			default:
				skipped = append(skipped, k)
			}
		}
	}
	if len(skipped) > 0 {
		n.Warn(node.where, opts, "Model option not converted", fmt.Sprintf("the llm step has no %s: the model's default applies.", strings.Join(skipped, ", ")))
	}
	msgs := p.Items("messages", "values")
	if p.Get("messages") == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no message, which n8n fails on too.")
		return nil
	}
	json := p.Boolean(false, "jsonOutput")
	if json {
		c.messages = append(c.messages, importer.Object([]importer.Member{{Name: "role", Value: importer.Str("system")}, {Name: "content", Value: importer.Str("You are a helpful assistant designed to output JSON.")}}))
	}
	for i, m := range msgs {
		role := m.Text("role")
		if role == "" {
			role = "user"
		}
		content := s.textValue(m.Get("content"), fmt.Sprintf("message %d", i+1))
		if i == len(msgs)-1 && role == "user" {
			c.prompt = content
			continue
		}
		c.messages = append(c.messages, importer.Object([]importer.Member{{Name: "role", Value: importer.Str(role)}, {Name: "content", Value: content}}))
	}
	if c.prompt == nil {
		n.Problem(node.where, p.Get("messages"), "Unsupported message", "the last message is not the user's: an llm step ends with the user's prompt.")
		return nil
	}
	var ok bool
	if c.tools, ok = n.tools(node); !ok {
		return nil
	}
	if mi := opts.Get("maxToolsIterations"); mi != nil && len(c.tools) > 0 {
		c.maxCalls = s.value(mi, "max_tools_iterations")
	}
	n.Warn(node.where, p, "Reply fields left out",
		"each item is the choice's index and message (role and content); the choice's finish_reason, logprobs and the message's refusal and annotations, which the llm step does not give, are not in it.")
	n.writeLLM(c, "the message, for each item")
	content := "r.text"
	if json {
		content = "jsondecode(r.text)"
	}
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { index = 0, message = { role = \"assistant\", content = "+content+" } }]"), in, nil)}
}

// schemaField is a field of an object a model returns.
type schemaField struct {
	key, name, typ, description string
	required                    bool
}

// objectFields are the fields of a JSON Schema of an object (required
// as its required says), or of an example (all required or none).
func objectFields(schema *importer.JV, example bool, allRequired bool) ([]schemaField, string) {
	props := schema
	if !example {
		props = schema.Get("properties")
		if schema.Text("type") != "object" && props == nil || props == nil || props.Kind != 'o' {
			return nil, "is not an object with properties"
		}
	} else if schema.Kind != 'o' {
		return nil, "is not an object"
	}
	required := map[string]bool{}
	for _, r := range schema.Items("required") {
		required[r.Str] = true
	}
	used := map[string]bool{}
	var out []schemaField
	for _, k := range props.Keys {
		f := schemaField{key: k, name: outputName(k, used)}
		if example {
			f.typ, f.required = exampleType(props.Obj[k], allRequired), allRequired
		} else {
			t, why := importer.JSONSchemaType(props.Obj[k])
			if why != "" {
				t = "any"
			}
			f.typ, f.required, f.description = t, required[k], props.Obj[k].Text("description")
		}
		if f.name != k {
			return nil, fmt.Sprintf("has a property %q that is not an output name of a step", k)
		}
		out = append(out, f)
	}
	return out, ""
}

// fieldsItem is the object of a step instance r's fields, leaving out the
// optional ones the model gave no value (n8n's parser leaves them out).
func fieldsItem(fields []schemaField) importer.Expr {
	var ms []importer.Member
	optional := false
	for _, f := range fields {
		ms = append(ms, importer.Member{Name: f.key, Value: importer.Code("r." + f.name)})
		optional = optional || !f.required
	}
	if !optional {
		return importer.Object(ms)
	}
	return importer.Join("{ for k, v in ", importer.Object(ms), " : k => v if v != null }")
}

// informationExtractorNode asks for the attributes (or the schema) of each
// item's text: each item is {output = the object}.
func (n *n8n) informationExtractorNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c := &llmCall{node: node, in: in, s: s}
	var ok bool
	if c.model, ok = n.languageModel(node, s); !ok {
		return nil
	}
	text := p.Get("text")
	if text == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no text to extract from, which n8n fails on too.")
		return nil
	}
	c.prompt = s.textValue(text, "text")
	sys := "You are an expert extraction algorithm.\nOnly extract relevant information from the text.\nIf you do not know the value of an attribute asked to extract, you may omit the attribute's value."
	if v := p.Get("options", "systemPromptTemplate"); v != nil {
		c.system = s.textValue(v, "system")
	} else {
		c.system = importer.Str(sys)
	}
	var fields []schemaField
	switch st := p.Text("schemaType"); st {
	case "", "fromAttributes":
		attrs := p.Items("attributes", "attributes")
		if len(attrs) == 0 {
			n.Problem(node.where, p, "Missing attributes", "the node has no attribute to extract, which n8n fails on too.")
			return nil
		}
		used := map[string]bool{}
		for _, a := range attrs {
			name := a.Text("name")
			f := schemaField{key: name, name: outputName(name, used), description: a.Text("description"), required: a.Boolean(false, "required")}
			if f.name != name {
				n.Problem(node.where, a.Get("name"), "Unsupported field name", fmt.Sprintf("the attribute %q is not a name an output of a step can have (letters, digits and _, not text or usage).", name))
				return nil
			}
			switch t := a.Text("type"); t {
			case "", "string":
				f.typ = "string"
			case "number":
				f.typ = "number"
			case "boolean":
				f.typ = "bool"
			case "date":
				f.typ = "string"
				n.Warn(node.where, a.Get("type"), "Date as text", fmt.Sprintf("attribute %q is a date: the flow asks for a string and does not check that it is a date (YYYY-MM-DD), as n8n does.", name))
			default:
				f.typ = "any"
			}
			fields = append(fields, f)
		}
	case "fromJson", "manual":
		var schema *importer.JV
		key, def := "jsonSchemaExample", defaultStateExample
		if st == "manual" {
			key, def = "inputSchema", defaultStateSchema
		}
		raw := p.Get(key)
		text := def
		if raw != nil {
			text = raw.Str
		}
		if schema = n.parseJSONParam(node, raw, text); schema == nil {
			return nil
		}
		var why string
		fields, why = objectFields(schema, st == "fromJson", node.version >= 1.2)
		if why != "" {
			n.Problem(node.where, raw, "Unsupported schema", "the schema "+why+": the flow asks for an object whose fields are outputs of the step.")
			return nil
		}
	default:
		n.Problem(node.where, p.Get("schemaType"), "Unsupported schema", fmt.Sprintf("schema type %q is none of n8n's.", st))
		return nil
	}
	c.outputs = func(body *hclwrite.Body) {
		for _, f := range fields {
			outputBlock(body, f.name, f.typ, f.description, nil, !f.required)
		}
	}
	n.writeLLM(c, "the attributes of each item's text")
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : { output = ", fieldsItem(fields), " }]"), in, nil)}
}

// textClassifierNode asks, for each item, which categories its text has
// (a bool for each, as n8n's schema does), and sends the item to the
// output of each category it has.
func (n *n8n) textClassifierNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c := &llmCall{node: node, in: in, s: s}
	var ok bool
	if c.model, ok = n.languageModel(node, s); !ok {
		return nil
	}
	text := p.Get("inputText")
	if text == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no text to classify, which n8n fails on too.")
		return nil
	}
	c.prompt = s.textValue(text, "input_text")
	cats := p.Items("categories", "categories")
	if len(cats) == 0 {
		n.Problem(node.where, p, "Missing categories", "the node has no category, which n8n fails on too (At least one category must be defined).")
		return nil
	}
	opts := p.Get("options")
	multi := opts.Boolean(false, "multiClass")
	fallback := opts.Text("fallback")
	if fallback == "" {
		fallback = "discard"
	}
	var names []string
	for _, cat := range cats {
		names = append(names, cat.Text("category"))
	}
	tmpl := "Please classify the text provided by the user into one of the following categories: {categories}, and use the provided formatting instructions below. Don't explain, and only output the json."
	if v := opts.Get("systemPromptTemplate"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "the system prompt template is converted when it is written out.")
			return nil
		}
		tmpl = v.Str
	}
	multiPrompt := "Categories are mutually exclusive, and only one can be true"
	if multi {
		multiPrompt = "Categories are not mutually exclusive, and multiple can be true"
	}
	fallbackPrompt := map[string]string{
		"other":   `If no categories apply, select the "fallback" option.`,
		"discard": "If there is not a very fitting category, select none of the categories.",
	}[fallback]
	c.system = importer.Str(strings.ReplaceAll(tmpl, "{categories}", strings.Join(names, ", ")) + "\n" + multiPrompt + "\n" + fallbackPrompt)
	used := map[string]bool{}
	type out struct{ name, desc string }
	var outs []out
	for _, cat := range cats {
		name := cat.Text("category")
		outs = append(outs, out{outputName(name, used), fmt.Sprintf("Should be true if the input has category %q (description: %s)", name, cat.Text("description"))})
	}
	if fallback == "other" {
		outs = append(outs, out{outputName("fallback", used), "Should be true if none of the other categories apply"})
	}
	c.outputs = func(body *hclwrite.Body) {
		for _, o := range outs {
			outputBlock(body, o.name, "bool", o.desc, nil, false)
		}
	}
	n.writeLLM(c, "the categories of each item's text")
	var items []n8nItems
	for _, o := range outs {
		cond := importer.Join(importer.Ref("step", node.step), "[i].", importer.Code(o.name))
		items = append(items, pairedWith(importer.Join("[for i, item in ", in.e, " : item if ", cond, "]"), in,
			importer.Join("[for i, item in ", in.e, " : i if ", cond, "]")))
	}
	return items
}

// sentimentNode asks for the sentiment of each item's text (one of the
// categories, with its strength and confidence) and sends the item, with
// sentimentAnalysis added, to the output of its category.
func (n *n8n) sentimentNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c := &llmCall{node: node, in: in, s: s}
	var ok bool
	if c.model, ok = n.languageModel(node, s); !ok {
		return nil
	}
	text := p.Get("inputText")
	if text == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no text to analyse, which n8n fails on too.")
		return nil
	}
	c.prompt = s.textValue(text, "input_text")
	opts := p.Get("options")
	catText := "Positive, Neutral, Negative"
	if v := opts.Get("categories"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "the categories are converted when they are written out: they are the node's outputs.")
			return nil
		}
		catText = v.Str
	}
	var cats []string
	for _, c := range strings.Split(catText, ",") {
		if c = strings.TrimSpace(c); c != "" {
			cats = append(cats, c)
		}
	}
	if len(cats) == 0 {
		n.Problem(node.where, opts.Get("categories"), "Missing categories", "the node has no category, which n8n fails on too.")
		return nil
	}
	tmpl := "You are highly intelligent and accurate sentiment analyzer. Analyze the sentiment of the provided text. Categorize it into one of the following: {categories}. Use the provided formatting instructions. Only output the JSON."
	if v := opts.Get("systemPromptTemplate"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "the system prompt template is converted when it is written out.")
			return nil
		}
		tmpl = v.Str
	}
	c.system = importer.Str(strings.ReplaceAll(tmpl, "{categories}", catText))
	c.outputs = func(body *hclwrite.Body) {
		outputBlock(body, "sentiment", "string", "", cats, false)
		outputBlock(body, "strength", "number", "Strength score for sentiment in relation to the category", nil, false)
		outputBlock(body, "confidence", "number", "", nil, false)
	}
	n.writeLLM(c, "the sentiment of each item's text")
	analysis := "{ category = r.sentiment }"
	if opts.Boolean(false, "includeDetailedResults") {
		analysis = "{ category = r.sentiment, strength = r.strength, confidence = r.confidence }"
	}
	var items []n8nItems
	for _, cat := range cats {
		cond := importer.Join("lower(", importer.Ref("step", node.step), "[i].sentiment) == ", importer.Str(strings.ToLower(cat)))
		items = append(items, pairedWith(importer.Join("[for i, item in ", in.e, " : merge(item, { sentimentAnalysis = ", importer.Code(strings.ReplaceAll(analysis, "r.", "step."+node.step+"[i].")), " }) if ", cond, "]"), in,
			importer.Join("[for i, item in ", in.e, " : i if ", cond, "]")))
	}
	return items
}

// chatTrigger is the flow's start for a chat message: the inputs
// chat_input and session_id give n8n's item {sessionId, action,
// chatInput}.
func (n *n8n) chatTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	n.chatTrigger = node
	for _, in := range []struct{ name, desc string }{
		{"chat_input", "The chat message (n8n's chatInput); none when another trigger starts the flow"},
		{"session_id", "The chat's session (n8n's sessionId): the conversation a memory continues"},
	} {
		b := hclwrite.NewBlock("input", []string{n.Name("input", in.name, in.name)})
		b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
		b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
		b.Body().SetAttributeValue("description", cty.StringVal(in.desc))
		n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
	}
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: a chat message, given as the inputs chat_input and session_id (without chat_input, as when another trigger starts the flow, it gives no item).", n.nodeComment(node)))
	return []n8nItems{{e: importer.Code(`(input.chat_input == null ? [] : [{ sessionId = input.session_id, action = "sendMessage", chatInput = input.chat_input }])`)}}
}
