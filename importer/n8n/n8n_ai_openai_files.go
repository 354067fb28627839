package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
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
