package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// The OpenAI node's operations on the items' files (n8n's binary data,
// which the flow carries as n8n_binary.go says).

// openAIImageFiles are the image parts of Analyze Image of Binary
// File(s): for each of the node's binary fields (a name, or names
// separated by commas), the item's file as a data URL of its mimeType
// and base64 bytes, as n8n sends it. Nil after a diagnostic: a field
// named by an expression, items whose files the flow does not carry, a
// field they do not have or whose type n8n sniffs from the bytes.
func (n *n8n) openAIImageFiles(node *n8nNode, in n8nItems, detail importer.Expr) importer.Expr {
	v := node.params.Get("binaryPropertyName")
	names := "data"
	if v != nil {
		text, ok := literalText(v)
		if !ok {
			n.Problem(node.where, v, "Unsupported expression", "the names of the binary fields are converted when they are written out, not computed.")
			return nil
		}
		names = text
	}
	if in.binary == nil {
		n.noFiles(node, in, node.params.Get("inputType"))
		return nil
	}
	var parts []importer.Expr
	for _, prop := range strings.Split(names, ",") {
		prop = strings.TrimSpace(prop)
		known, ok := in.binary.props[prop]
		switch {
		case !ok:
			n.Problem(node.where, v, "No binary field",
				fmt.Sprintf("the items have no binary field %q (they have %s); n8n fails the node on it.", prop, strings.Join(sortedProps(in.binary.props), ", ")))
			return nil
		case !known:
			n.Problem(node.where, v, "Binary data",
				fmt.Sprintf("n8n sends the file %q with the type it finds from its name or its bytes, which the flow does not know.", prop))
			return nil
		}
		file := importer.Index(importer.Join("(", in.binary.e, ")[each.key]"), prop)
		url := importer.Template([]importer.TPart{
			{Lit: "data:"}, {Expr: importer.Index(file, "mimeType")}, {Lit: ";base64,"}, {Expr: importer.Index(file, "data")},
		}, false)
		parts = append(parts, importer.Join(`{ type = "image_url", image_url = { url = `, url, `, detail = `, inline(detail), ` } }`))
	}
	return importer.Tuple(parts)
}

// readsImages reports whether node is an OpenAI node analyzing images of
// the items' files.
func readsImages(node *n8nNode) bool {
	r, op := openAIResource(node.params)
	return node.fullType == "@n8n/n8n-nodes-langchain.openAi" && r == "image" && op == "analyze" &&
		node.params.Text("inputType") != "" && node.params.Text("inputType") != "url"
}

// filesOnly is "" when nothing reads the json of node's items, only
// their files: some node comes after it, every node right after it is
// one whose items are not its input's (an HTTP Request, an app's
// request) and whose parameters read no item ($json, $input, $item,
// $data), and no node names it. Else it is why not.
func (n *n8n) filesOnly(node *n8nNode) string {
	for _, m := range n.nodes {
		if m != node && stringsOf(m.params, func(s string) bool {
			return strings.Contains(s, `'`+node.name+`'`) || strings.Contains(s, `"`+node.name+`"`) || strings.Contains(s, "`"+node.name+"`")
		}) {
			return fmt.Sprintf("node %q names it", m.name)
		}
	}
	leaf := true
	for _, out := range node.outs {
		for _, e := range out {
			leaf = false
			if !filesReaders[e.node.typ] {
				return fmt.Sprintf("node %q (%s) after it may read or pass on its items' json", e.node.name, e.node.fullType)
			}
			if stringsOf(e.node.params, func(s string) bool {
				return strings.Contains(s, "$json") || strings.Contains(s, "$input") || strings.Contains(s, "$item") || strings.Contains(s, "$data")
			}) {
				return fmt.Sprintf("node %q after it reads its items' json", e.node.name)
			}
		}
	}
	if leaf {
		return "its items are an output of the flow"
	}
	return ""
}

// filesReaders are the nodes whose items are what they get from a
// service, not their input items.
var filesReaders = map[string]bool{"httpRequest": true, "telegram": true, "googleDrive": true, "slack": true, "discord": true, "gmail": true, "linkedIn": true, "facebookGraphApi": true}

// stringsOf reports whether f holds for a string in v.
func stringsOf(v *importer.JV, f func(string) bool) bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case 's':
		return f(v.Str)
	case 'o':
		for _, k := range v.Keys {
			if stringsOf(v.Obj[k], f) {
				return true
			}
		}
	case 'a':
		for _, x := range v.Arr {
			if stringsOf(x, f) {
				return true
			}
		}
	}
	return false
}

// openAIFilesJSON refuses node's binary output when its items' json may
// be read: n8n makes it the file's metadata with the id of its binary
// data store, which no flow has.
func (n *n8n) openAIFilesJSON(node *n8nNode, what string) bool {
	if why := n.filesOnly(node); why != "" {
		n.Problem(node.where, node.params, "Unsupported operation",
			fmt.Sprintf("%s come back as files (binary data), which the flow carries to the node after it, but n8n makes each item's json the file's metadata with the id of its binary data store, which the flow does not have; it converts where nothing reads that json, and %s.", what, why))
		return false
	}
	return true
}

// openAIOutputField is the binary field the node's files go in (option
// Put Output in Field, "data"), or "" after a diagnostic.
func (n *n8n) openAIOutputField(node *n8nNode) string {
	v := node.params.Get("options", "binaryPropertyOutput")
	if v == nil {
		return "data"
	}
	text, ok := literalText(v)
	if !ok || text == "" {
		n.Problem(node.where, v, "Unsupported field name", "the output field is converted when it is a name written out, not computed.")
		return ""
	}
	return text
}

// openAIImageFilesOut is Generate an Image as files (n8n's default): the
// images request with response_format b64_json (none for gpt-image-1,
// which gives base64 anyway); each item is an image of the response's
// data, paired with the item that asked, its file in the output field
// with the type n8n finds from its bytes. The items' json is {}: the
// node converts only where nothing reads it (filesOnly).
func (n *n8n) openAIImageFilesOut(node *n8nNode, in n8nItems, s *n8nScope, body []importer.Member, gptImage bool) []n8nItems {
	prop := n.openAIOutputField(node)
	if prop == "" || !n.openAIFilesJSON(node, "the images") {
		return nil
	}
	if !gptImage {
		body = append(body[:2:2], append([]importer.Member{{Name: "response_format", Value: importer.Str("b64_json")}}, body[2:]...)...)
	}
	n.openAIRequest(node, in, s, "/images/generations", body, "the images of each item's prompt, as files (base64)")
	items := importer.Join("flatten([for r in ", importer.Ref("step", node.step), " : [for d in r.body.data : {}]])")
	paired := importer.Join("flatten([for i, r in ", importer.Ref("step", node.step), " : [for d in r.body.data : i]])")
	out := pairedWith(items, in, paired)
	file := importer.Object([]importer.Member{{Name: prop, Value: importer.Object([]importer.Member{{Name: "data", Value: importer.Code("d.b64_json")}, {Name: "mimeType", Value: importer.Code("null")}})}})
	out.binary = n.binaryLocal(node, importer.Join("flatten([for r in ", importer.Ref("step", node.step), " : [for d in r.body.data : ", file, "]])"), map[string]bool{prop: false})
	return []n8nItems{out}
}

// speechFormats are the Generate Audio formats n8n offers.
var speechFormats = map[string]bool{"mp3": true, "opus": true, "aac": true, "flac": true}

// openAISpeech is Audio → Generate Audio: for each item, OpenAI's speech
// request as n8n sends it ({model, input, voice, response_format,
// speed}), the answer's bytes the item's file, its type
// audio/FORMAT as n8n gives it. The items' json is {}: the node
// converts only where nothing reads it (filesOnly).
func (n *n8n) openAISpeech(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	opts := p.Get("options")
	for _, k := range opts.Keys {
		if k != "response_format" && k != "speed" && k != "binaryPropertyOutput" {
			n.Problem(node.where, opts.Obj[k], "Unsupported option", fmt.Sprintf("option %q is none of n8n's for speech.", k))
			return nil
		}
	}
	format := "mp3"
	if v := opts.Get("response_format"); v != nil {
		text, ok := literalText(v)
		if !ok || !speechFormats[text] {
			n.Problem(node.where, v, "Unsupported option", "the audio format is converted when it is one of n8n's (mp3, opus, aac, flac), written out: its file's type is audio/FORMAT.")
			return nil
		}
		format = text
	}
	prop := n.openAIOutputField(node)
	if prop == "" || !n.openAIFilesJSON(node, "the speech") {
		return nil
	}
	text := func(name, def string) importer.Expr {
		if v := p.Get(name); v != nil {
			return s.textValue(v, name)
		}
		return importer.Str(def)
	}
	speed := importer.Code("1")
	if v := opts.Get("speed"); v != nil && !(v.Kind == 'n' && v.Num == "0") {
		speed = s.value(v, "speed")
	}
	body := []importer.Member{
		{Name: "model", Value: text("model", "tts-1")},
		{Name: "input", Value: text("input", "")},
		{Name: "voice", Value: text("voice", "alloy")},
		{Name: "response_format", Value: importer.Str(format)},
		{Name: "speed", Value: speed},
	}
	bb := n.openAIRequest(node, in, s, "/audio/speech", body, "the speech of each item's text, as a file (base64)")
	bb.SetAttributeValue("response", cty.StringVal("base64"))
	out := pairedWith(importer.Join("[for r in ", importer.Ref("step", node.step), " : {}]"), in, nil)
	file := importer.Object([]importer.Member{{Name: prop, Value: importer.Object([]importer.Member{{Name: "data", Value: importer.Code("r.body")}, {Name: "mimeType", Value: importer.Str("audio/" + format)}})}})
	out.binary = n.binaryLocal(node, importer.Join("[for r in ", importer.Ref("step", node.step), " : ", file, "]"), map[string]bool{prop: true})
	return []n8nItems{out}
}
