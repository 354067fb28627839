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
		c.mem.skipFailed = continues(node)
		n.declareMemory(c.mem, turn, node.step, reply)
	} else if len(c.messages) > 0 {
		body.SetAttributeRaw("messages", importer.Clone(importer.Tuple(c.messages)))
	}
	if prompt != nil {
		body.SetAttributeRaw("prompt", importer.Clone(prompt))
	}
	if len(c.tools) > 0 {
		body.SetAttributeRaw("tools", importer.Clone(importer.Tuple(c.tools)))
		if c.maxCalls != nil {
			body.SetAttributeRaw("max_tool_calls", importer.Clone(c.maxCalls))
		}
	}
	if continues(node) {
		body.SetAttributeValue("on_error", cty.StringVal("continue"))
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
	case "reActAgent":
		if !n.reActAgent(node) {
			return nil
		}
	default:
		n.Problem(node.where, p.Get("agent"), "Unsupported agent",
			fmt.Sprintf("the %s is not converted; the Tools Agent (and the conversational, OpenAI functions and ReAct agents, as a Tools Agent) is.", kind))
		return nil
	}
	opts := p.Get("options")
	if opts.Boolean(false, "returnIntermediateSteps") {
		n.Problem(node.where, opts.Get("returnIntermediateSteps"), "Unsupported option",
			"the intermediate steps (the tool calls and their results) are not in the step's outputs; they are in its call trace (flowctl runs show RUN --calls).")
		return nil
	}
	c, ok := n.modelCall(node, in, s)
	if !ok {
		return nil
	}
	c.prompt = n.aiPrompt(node, s, 1.2, "text", map[float64]string{1: "={{ $json.input }}", 1.1: "={{ $json.chat_input }}", 1.2: "={{ $json.chatInput }}"})
	if sys := opts.Get("systemMessage"); sys != nil {
		c.system = s.textValue(sys, "system")
	} else if node.version < 1.9 && kind != "reActAgent" {
		c.system = importer.Str("You are a helpful assistant")
	}
	if kind != "reActAgent" {
		if c.mem, ok = n.memory(node, s); !ok {
			return nil
		}
	}
	if c.tools, ok = n.tools(node); !ok {
		return nil
	}
	if mi := opts.Get("maxIterations"); mi != nil && len(c.tools) > 0 {
		c.maxCalls = s.value(mi, "max_iterations")
	}
	typ, parsed, ok, wrapped := n.outputParser(node)
	if !ok {
		return nil
	}
	if parsed && wrapped && p.Boolean(true, "hasOutputParser") {
		n.Problem(node.where, node.j, "Unsupported output parser",
			"the agent's Structured Output Parser v1 (its answer wrapped in __structured__output) is converted for the LLM chain only; v1.1 on is converted here.")
		return nil
	}
	if parsed && p.Boolean(true, "hasOutputParser") {
		c.outputs = func(body *hclwrite.Body) { outputBlock(body, "output", typ, "", nil, false) }
		n.writeLLM(c, "the agent, for each item")
		return []n8nItems{llmItems(node, in, "{ output = r.output }")}
	}
	n.writeLLM(c, "the agent, for each item")
	return []n8nItems{llmItems(node, in, "{ output = r.text }")}
}

// chainNode is the Basic LLM Chain: its messages, then the prompt; each
// item is {text} (the reply, trimmed), or {output} with an output parser.
func (n *n8n) chainNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c, ok := n.modelCall(node, in, s)
	if !ok {
		return nil
	}
	c.prompt = n.aiPrompt(node, s, 1.3, "prompt", map[float64]string{1: "={{ $json.input }}", 1.1: "={{ $json.chat_input }}", 1.3: "={{ $json.chatInput }}"})
	roles := map[string]string{"SystemMessagePromptTemplate": "system", "AIMessagePromptTemplate": "assistant", "HumanMessagePromptTemplate": "user"}
	for i, m := range n.chainMessages(c) {
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
			why := map[string]string{
				"imageBinary": "an image of the item's binary data, which the flow's items do not carry",
				"imageUrl":    "an image by URL, which the llm step's messages (text) cannot hold",
			}[mt]
			if why == "" {
				why = fmt.Sprintf("a message of type %q", mt)
			}
			n.Problem(node.where, m.Get("messageType"), "Unsupported message", why+" is not converted; text messages are.")
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
	typ, parsed, ok, wrapped := n.outputParser(node)
	if !ok {
		return nil
	}
	if parsed && hasParser && wrapped {
		// The item is the object or {data = the array}, exactly one of the
		// two (n8n's parser fails otherwise, and so does the index).
		c.outputs = func(body *hclwrite.Body) { outputBlock(body, "__structured__output", typ, "", nil, false) }
		n.writeLLM(c, "the chain, for each item")
		w := importer.Join("r.__structured__output")
		both := importer.Join("concat([for v in [", w, ".__structured__output__object] : v if v != null], [for v in [", w, ".__structured__output__array] : { data = v } if v != null])")
		return []n8nItems{llmItems(node, in, "[for v in ", both, " : v if length(", both, ") == 1][0]")}
	}
	if parsed && hasParser {
		c.outputs = func(body *hclwrite.Body) { outputBlock(body, "output", typ, "", nil, false) }
		n.writeLLM(c, "the chain, for each item")
		return []n8nItems{llmItems(node, in, "{ output = r.output }")}
	}
	if n.refuseJSONFormat(c) {
		return nil
	}
	n.writeLLM(c, "the chain, for each item")
	return []n8nItems{llmItems(node, in, "{ text = trimspace(r.text) }")}
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
	if r, op := openAIResource(p); r != "text" || op != "message" {
		return n.openAIOperation(node, in, r, op)
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
	// The messages end with a system or an assistant message: the step
	// sends them as they are, without a prompt, as n8n does.
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

// chatTrigger is the flow's start for a chat message: the inputs
// chat_input and session_id give n8n's item {sessionId, action,
// chatInput}.
func (n *n8n) chatTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	n.chatTrigger = node
	for _, in := range []struct{ name, desc string }{
		{"chat_input", "The chat message (n8n's chatInput); none when another trigger starts the flow"},
		{"session_id", "The chat's session (n8n's sessionId): the conversation a memory continues"},
	} {
		name := n.Name("input", in.name, in.name)
		n.chatInputs = append(n.chatInputs, name)
		b := hclwrite.NewBlock("input", []string{name})
		b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
		b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
		b.Body().SetAttributeValue("description", cty.StringVal(in.desc))
		n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
	}
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: a chat message, given as the inputs chat_input and session_id (without chat_input, as when another trigger starts the flow, it gives no item).", n.nodeComment(node)))
	return []n8nItems{{e: importer.Code(`(input.chat_input == null ? [] : [{ sessionId = input.session_id, action = "sendMessage", chatInput = input.chat_input }])`)}}
}

// modelCall starts the llm step of an AI root node: its chat model (the
// sub-node on its ai_languageModel input), for each item of in.
func (n *n8n) modelCall(node *n8nNode, in n8nItems, s *n8nScope) (*llmCall, bool) {
	c := &llmCall{node: node, in: in, s: s}
	var ok bool
	c.model, ok = n.languageModel(node, s)
	return c, ok
}
