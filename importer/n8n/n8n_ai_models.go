package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// Text completion models (n8n's "Model" nodes, not "Chat Model"): the
// model is given one text and continues it. langchain's Ollama LLM sends
// that text to Ollama's /api/generate as the prompt, which Ollama puts in
// the model's chat template as one user message (with the Modelfile's
// system message), as it does with a chat request of that one message:
// the model reads the same input through Ollama's OpenAI-compatible chat
// endpoint.

// completionModels are the completion model nodes converted, as the chat
// models are (a provider per credential, the model and its options on
// the step).
var completionModels = map[string]chatModel{
	"lmOllama": {"ollamaApi", "http://localhost:11434/v1", "model", "llama3.2", 0, true},
}

// completionRoots are the root nodes that send a completion model their
// prompt alone, as one text: Basic LLM Chain (n8n's createPromptTemplate
// gives a non-chat model the query template only, without the Chat
// Messages). Other roots give it their messages joined as one text
// ("System: …\nHuman: …"), which an llm step does not send.
var completionRoots = map[string]bool{"chainLlm": true}

// completionModel is the conversion of a completion model node on root,
// or false with the problem reported.
func (n *n8n) completionModel(root, node *n8nNode, short string) (chatModel, bool) {
	cm := completionModels[short]
	rootShort := strings.TrimPrefix(root.fullType, langchainPrefix)
	if !completionRoots[rootShort] {
		n.Problem(node.where, node.j.Get("type"), "Unsupported chat model",
			fmt.Sprintf("%s is a text completion model: %s gives it its messages joined as one text (\"System: …\\nHuman: …\"), which an llm step does not send; on a Basic LLM Chain, which gives it the prompt alone, it converts.", node.fullType, root.fullType))
		return chatModel{}, false
	}
	return cm, true
}

// chainMessages are a chain's Chat Messages, none when its model is a
// completion model, to which n8n sends the prompt alone (a warning).
func (n *n8n) chainMessages(c *llmCall) []*importer.JV {
	msgs := c.node.params.Items("messages", "messageValues")
	if !c.model.completion || len(msgs) == 0 {
		return msgs
	}
	n.Warn(c.node.where, c.node.params.Get("messages"), "Messages left out",
		"the chain's model is a text completion model, to which n8n sends the prompt alone: its Chat Messages are left out, as n8n leaves them.")
	return nil
}

// jsonFormatOption is a chat model's option that asks for JSON replies
// (OpenAI's Response Format JSON, Ollama's Format JSON), or nil. With one,
// n8n's Basic LLM Chain without an output parser parses the reply
// (getOutputParserForLLM: NaiveJsonOutputParser) and gives the object
// (from v1.6; before, its JSON text as JavaScript writes it), where the
// llm step's text is the reply as the model wrote it.
func jsonFormatOption(opts *importer.JV) *importer.JV {
	if v := opts.Get("responseFormat"); v != nil && v.Kind == 's' && v.Str == "json_object" {
		return v
	}
	if v := opts.Get("format"); v != nil && v.Kind == 's' && v.Str == "json" {
		return v
	}
	return nil
}

// refuseJSONFormat reports a chain without an output parser whose model
// asks for JSON replies, which n8n parses.
func (n *n8n) refuseJSONFormat(c *llmCall) bool {
	v := c.model.jsonFormat
	if v == nil {
		return false
	}
	n.Problem(c.node.where, c.node.j, "Unsupported option",
		fmt.Sprintf("its chat model asks for JSON replies (%s), which n8n's chain parses, giving the object (its JSON text before v1.6) where the llm step gives the reply's text; with a Structured Output Parser, or without the JSON format, the chain converts.", v.Str))
	return true
}
