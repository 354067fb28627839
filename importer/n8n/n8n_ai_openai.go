package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The OpenAI node's (v1) operations besides Text → Message a Model: those
// that send and receive JSON (Analyze Image of image URLs or of the
// items' files, Generate an Image as URLs) are the same request to
// OpenAI's API as an http step, with the credential's key as a secret;
// those that send or receive other files or run OpenAI's assistants
// (threads and runs) are errors that say so.

// openAIURL is OpenAI's API, n8n's default for an OpenAI credential.
const openAIURL = "https://api.openai.com/v1"

// openAIOperation converts the OpenAI node's operation other than Text →
// Message a Model, or reports why not.
func (n *n8n) openAIOperation(node *n8nNode, in n8nItems, resource, op string) []n8nItems {
	p := node.params
	why := ""
	switch {
	case resource == "image" && op == "analyze":
		return n.openAIAnalyzeImage(node, in)
	case resource == "image" && (op == "" || op == "generate"):
		return n.openAIGenerateImage(node, in)
	case resource == "audio" && (op == "" || op == "generate"):
		return n.openAISpeech(node, in)
	case resource == "audio":
		why = "OpenAI takes the recording to transcribe or translate as a multipart form, which the http block does not send"
	case resource == "file":
		why = "a file's upload sends the item's binary file, which the flow's items do not carry"
	case resource == "assistant":
		why = "an OpenAI assistant runs through the Assistants API's threads and runs, which no block of the language makes"
	default:
		why = "the operation is none of those converted"
	}
	n.Problem(node.where, p, "Unsupported operation", fmt.Sprintf("resource %q, operation %q: %s. flowctl import converts Text → Message a Model, Analyze Image, Generate an Image and Generate Audio.", resource, op, why))
	return nil
}

// openAIRequest is an http step node.step that posts body to OpenAI's
// API at path, for each item, with the credential's key.
func (n *n8n) openAIRequest(node *n8nNode, in n8nItems, s *n8nScope, path string, body []importer.Member, what string) *hclwrite.Body {
	credName := node.j.Text("credentials", "openAiApi", "name")
	if credName == "" {
		credName = "openAiApi"
	}
	sec := n.credentialSecret(credName, "openAiApi")
	s.flush()
	b, bb := importer.NewStep(node.step, "http")
	bb.SetAttributeRaw("for_each", importer.Clone(in.e))
	bb.SetAttributeValue("method", cty.StringVal("POST"))
	bb.SetAttributeValue("url", cty.StringVal(openAIURL+path))
	bb.SetAttributeRaw("headers", importer.Clone(importer.Object([]importer.Member{
		{Name: "Authorization", Value: importer.Template([]importer.TPart{{Lit: "Bearer "}, {Expr: importer.Ref("secret", sec)}}, false)},
	})))
	bb.SetAttributeRaw("body", importer.Clone(importer.Object(body)))
	n.dependsOn(bb, in)
	n.Step(n.nodeComment(node)+": "+what+" (OpenAI's API, at n8n's default URL for the credential)", b)
	return bb
}

// openAIAnalyzeImage is Analyze Image of image URLs: a chat completion of
// one user message, the text and each URL (the parameter split at commas)
// as an image part; each item is {content} of the first choice, or the
// whole response without Simplify Output.
func (n *n8n) openAIAnalyzeImage(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	model := importer.Str("gpt-4-vision-preview")
	if node.version >= 1.4 {
		model = importer.Str("gpt-4o")
		if v := p.Get("modelId"); v != nil {
			if v.Kind == 'o' {
				v = v.Get("value")
			}
			model = s.textValue(v, "model")
		}
	}
	text := importer.Str("What's in this image?")
	if v := p.Get("text"); v != nil {
		text = s.textValue(v, "text")
	}
	detail := importer.Str("auto")
	if v := p.Get("options", "detail"); v != nil && !(v.Kind == 's' && v.Str == "") {
		detail = s.textValue(v, "detail")
	}
	var images importer.Expr
	if t := p.Text("inputType"); t != "" && t != "url" {
		if images = n.openAIImageFiles(node, in, detail); images == nil {
			return nil
		}
	} else {
		urls := p.Get("imageUrls")
		if urls == nil {
			n.Problem(node.where, p, "Missing image URL", "the node names no image URL, which OpenAI refuses.")
			return nil
		}
		images = importer.Join(`[for u in split(",", `, inline(s.textValue(urls, "image_urls")),
			`) : { type = "image_url", image_url = { url = trimspace(u), detail = `, inline(detail), ` } }]`)
	}
	maxTokens := importer.Code("300")
	if v := p.Get("options", "maxTokens"); v != nil && !(v.Kind == 'n' && v.Num == "0") {
		maxTokens = s.value(v, "max_tokens")
	}
	parts := importer.Join(`concat([{ type = "text", text = `, inline(text), ` }], `, images, `)`)
	n.openAIRequest(node, in, s, "/chat/completions", []importer.Member{
		{Name: "model", Value: model},
		{Name: "messages", Value: importer.Join("[{ role = \"user\", content = ", parts, " }]")},
		{Name: "max_tokens", Value: maxTokens},
	}, "the analysis of each item's images")
	item := "{ content = r.body.choices[0].message.content }"
	if !p.Boolean(true, "simplify") {
		item = "r.body"
	}
	return []n8nItems{pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : "+item+"]"), in, nil)}
}

// imageOptions are Generate an Image's options as the request's fields.
var imageOptions = map[string]string{"n": "n", "dalleQuality": "quality", "quality": "quality", "size": "size", "style": "style"}

// openAIGenerateImage is Generate an Image with Return Image URLs: an
// images request whose response gives URLs; each item is an entry of its
// data ({url, revised_prompt}), paired with the item that asked.
func (n *n8n) openAIGenerateImage(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	model := importer.Str("dall-e-3")
	modelName := "dall-e-3"
	if v := p.Get("model"); v != nil {
		text, ok := literalText(v)
		if !ok {
			n.Problem(node.where, v, "Unsupported expression", "the image model is converted when it is written out: with gpt-image-1 n8n sends no response format.")
			return nil
		}
		model, modelName = importer.Str(text), text
	}
	urls := p.Boolean(false, "options", "returnImageUrls")
	if modelName == "gpt-image-1" && urls {
		n.Problem(node.where, p.Get("model"), "Unsupported operation", "gpt-image-1 gives its images as base64 data, not URLs: n8n sends no response format and reads no URL.")
		return nil
	}
	prompt := p.Get("prompt")
	if prompt == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no prompt, which n8n fails on too.")
		return nil
	}
	body := []importer.Member{{Name: "prompt", Value: s.textValue(prompt, "prompt")}, {Name: "model", Value: model}}
	if urls {
		body = append(body, importer.Member{Name: "response_format", Value: importer.Str("url")})
	}
	opts := p.Get("options")
	for _, k := range opts.Keys {
		if k == "returnImageUrls" || k == "binaryPropertyOutput" {
			continue
		}
		name, ok := imageOptions[k]
		if !ok {
			n.Problem(node.where, opts.Obj[k], "Unsupported option", fmt.Sprintf("option %q is none of n8n's for an image.", k))
			return nil
		}
		body = append(body, importer.Member{Name: name, Value: s.value(opts.Obj[k], name)})
	}
	if !urls {
		return n.openAIImageFilesOut(node, in, s, body, modelName == "gpt-image-1")
	}
	n.openAIRequest(node, in, s, "/images/generations", body, "the images of each item's prompt, as URLs")
	items := importer.Join("flatten([for r in ", importer.Ref("step", node.step), " : r.body.data])")
	paired := importer.Join("flatten([for i, r in ", importer.Ref("step", node.step), " : [for d in r.body.data : i]])")
	return []n8nItems{pairedWith(items, in, paired)}
}

// openAIResource is the resource and operation of an OpenAI node, as n8n
// reads them (text and message by default).
func openAIResource(p *importer.JV) (string, string) {
	r, op := p.Text("resource"), p.Text("operation")
	if r == "" {
		r = "text"
	}
	if r == "text" && op == "" {
		op = "message"
	}
	return r, strings.TrimSpace(op)
}
