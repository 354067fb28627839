package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// n8n's first OpenAI node (n8n-nodes-base.openAi, v1 and v1.1), a
// declarative node: Chat → Complete posts the messages to OpenAI's chat
// completions for each item, as an llm step does; each item is a choice
// of the reply. Text → Complete is an http step (n8n_ai_openai_complete.go);
// the Text resource's retired Edits API and the Image resource's binary
// images are errors that say so.

// legacyOpenAINode converts the node's Chat → Complete.
func (n *n8n) legacyOpenAINode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	res, op := p.Text("resource"), p.Text("operation")
	if res == "" {
		res = "text" // n8n's default
	}
	if op == "" {
		op = map[string]string{"chat": "complete", "text": "complete", "image": "create"}[res]
	}
	if node.version != 1 && node.version != 1.1 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version",
			fmt.Sprintf("typeVersion %g is none of the node's (1 and 1.1): n8n reads its parameters as v1's, which these are not written for.", node.version))
		return nil
	}
	if res == "text" && op == "complete" {
		return n.legacyOpenAIComplete(node, in)
	}
	if res != "chat" || op != "complete" {
		why := map[string]string{
			"text/edit":     "it calls OpenAI's Edits API (/v1/edits), which OpenAI has retired",
			"text/moderate": "it calls OpenAI's Moderations API, which no block of the language does as n8n gives it",
			"image/create":  "it asks DALL·E for images, which it returns as binary files by default, and the flow's items do not carry",
		}[res+"/"+op]
		if why == "" {
			why = "it is none of the operations converted"
		}
		n.Problem(node.where, p, "Unsupported operation", fmt.Sprintf("resource %q, operation %q: %s.", res, op, why))
		return nil
	}
	if !p.Boolean(true, "simplifyOutput") {
		n.Problem(node.where, p.Get("simplifyOutput"), "Unsupported option", "the whole API response is not converted; the simplified one (each choice) is.")
		return nil
	}
	s := n.scope(node, in, true)
	c := &llmCall{node: node, in: in, s: s}
	credName := node.j.Text("credentials", "openAiApi", "name")
	if credName == "" {
		credName = "openAiApi"
	}
	cm := chatModels["lmChatOpenAi"]
	c.model.provider = n.provider(credName, cm, cm.url, "openAi")
	param := "chatModel"
	if node.version < 1.1 {
		param = "model"
	}
	model := importer.Str("gpt-3.5-turbo") // n8n's default
	if v := p.Get(param); v != nil {
		model = s.textValue(v, "model")
	}
	c.model.args = append(c.model.args, importer.Member{Name: "model", Value: model})
	opts := p.Get("options")
	var skipped []string
	for _, k := range opts.Keys {
		v := opts.Obj[k]
		switch k {
		case "maxTokens", "temperature", "topP":
			if v.Kind == 's' && !strings.HasPrefix(v.Str, "=") {
				n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("option %s is the text %q, not a number: OpenAI refuses the request.", k, v.Str))
				return nil
			}
			c.model.args = append(c.model.args, importer.Member{Name: modelOptions[k], Value: s.value(v, k)})
		case "n":
			if v.Kind != 'n' || v.Num != "1" {
				n.Problem(node.where, v, "Unsupported option", "several choices (n) are not converted; the llm step gives one reply.")
				return nil
			}
		case "echo":
			// The Text resource's: n8n does not send it for a chat.
		default:
			skipped = append(skipped, k)
		}
	}
	if len(skipped) > 0 {
		n.Warn(node.where, opts, "Model option not converted", fmt.Sprintf("the llm step has no %s: the model's default applies.", strings.Join(skipped, ", ")))
	}
	msgs := p.Items("prompt", "messages")
	if len(msgs) == 0 {
		n.Problem(node.where, p, "Missing prompt", "the node has no message, which OpenAI refuses.")
		return nil
	}
	for i, m := range msgs {
		role := m.Text("role")
		if role == "" {
			role = "user"
		}
		content := importer.Str("")
		if v := m.Get("content"); v != nil {
			content = s.textValue(v, fmt.Sprintf("message %d", i+1))
		}
		if i == len(msgs)-1 && role == "user" {
			c.prompt = content
			continue
		}
		c.messages = append(c.messages, importer.Object([]importer.Member{{Name: "role", Value: importer.Str(role)}, {Name: "content", Value: content}}))
	}
	n.Warn(node.where, p, "Reply fields left out",
		"each item is the choice's index and message (role and content); the choice's finish_reason and logprobs, which the llm step does not give, are not in it.")
	n.writeLLM(c, "the chat completion, for each item")
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), ` : { index = 0, message = { role = "assistant", content = r.text } }]`), in, nil)}
}
