package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// The first OpenAI node's Text → Complete (n8n-nodes-base.openAi v1,
// v1.1, TextDescription.js): a declarative request to OpenAI's
// Completions API, /v1/completions, which the llm block does not make
// and an http step does, as n8n sends it. Simplify (the default) makes
// each of the response's choices an item, its text trimmed; without it
// the item is the whole response.

// legacyCompleteOptions are the options n8n sends, by the body field each
// is sent as.
var legacyCompleteOptions = map[string]string{
	"echo": "echo", "frequency_penalty": "frequency_penalty", "maxTokens": "max_tokens", "n": "n",
	"presence_penalty": "presence_penalty", "temperature": "temperature", "topP": "top_p",
}

// legacyOpenAIComplete converts Text → Complete.
func (n *n8n) legacyOpenAIComplete(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	model := importer.Str("gpt-3.5-turbo-instruct") // n8n's default
	if v := p.Get("model"); v != nil {
		model = s.textValue(v, "model")
	}
	prompt := importer.Str("")
	if v := p.Get("prompt"); v != nil {
		prompt = s.textValue(v, "prompt")
	}
	body := []importer.Member{{Name: "model", Value: model}, {Name: "prompt", Value: prompt}}
	opts := p.Get("options")
	for _, k := range opts.Keys {
		name, ok := legacyCompleteOptions[k]
		if !ok {
			n.Problem(node.where, opts.Obj[k], "Unsupported option", fmt.Sprintf("option %q is none of n8n's for a completion.", k))
			return nil
		}
		v := opts.Obj[k]
		if v.Kind == 's' && !strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("option %s is the text %q, not a number: OpenAI refuses the request.", k, v.Str))
			return nil
		}
		body = append(body, importer.Member{Name: name, Value: s.value(v, name)})
	}
	n.openAIRequest(node, in, s, "/completions", body, "the completion of each item's prompt")
	if !p.Boolean(true, "simplifyOutput") {
		return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : r.body]"), in, nil)}
	}
	items := importer.Join("flatten([for r in ", importer.Ref("step", node.step), " : [for c in r.body.choices : merge(c, { text = trimspace(c.text) })]])")
	paired := importer.Join("flatten([for i, r in ", importer.Ref("step", node.step), " : [for c in r.body.choices : i]])")
	return []n8nItems{pairedWith(items, in, paired)}
}
