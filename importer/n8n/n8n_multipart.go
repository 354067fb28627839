package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// jsIndexKey is a name a JavaScript object puts before its other keys
// (an array index), whatever the order it was set in.
var jsIndexKey = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// httpMultipartBody is an HTTP Request's multipart-form-data body (n8n's
// HttpRequestV3: prepareRequestBody, then form-data): its body
// parameters, each a field (Form Data: its value as text) or a file
// (n8n Binary File: the item's binary field, with its file name and
// type), in their order, as an http step's body_type "multipart". From
// version 4.2 n8n appends them in order, a name repeated; before, it
// collects them into an object first (a name kept once, its last value;
// index-like names first), which is the same order only when the names
// are distinct and none is index-like: other cases are refused.
func (n *n8n) httpMultipartBody(s *n8nScope, node *n8nNode, in n8nItems, body *hclwrite.Body, method string) {
	p := node.params
	refuse := func(at *importer.JV, why string) {
		n.Problem(node.where, at, "Unsupported body", "a multipart-form-data body is not converted: "+why+".")
	}
	switch method {
	case "POST", "PUT", "PATCH", "GET":
	default:
		// n8n makes it the form only with these methods.
		refuse(p.Get("method"), fmt.Sprintf("n8n sends it as a form with POST, PUT, PATCH and GET only, not with %s", method))
		return
	}
	if p.Text("authentication") == "genericCredentialType" && p.Text("genericAuthType") == "httpCustomAuth" {
		refuse(p.Get("genericAuthType"), "a Custom Auth credential may add fields to the body, which a multipart body's parts do not take in")
		return
	}
	if p.Boolean(false, "sendHeaders") {
		if p.Text("specifyHeaders") == "json" {
			refuse(p.Get("specifyHeaders"), "with headers given as JSON, which may set a Content-Type other than the form's")
			return
		}
		for _, h := range p.Items("headerParameters", "parameters") {
			if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h.Text("name"), "=")), "content-type") {
				refuse(h.Get("name"), "the node sets a Content-Type header of its own, whose effect on the form n8n sends (its boundary) the flow does not reproduce")
				return
			}
		}
	}
	seen := map[string]bool{}
	var parts []importer.Expr
	for i, pair := range p.Items("bodyParameters", "parameters") {
		name, ok := literalText(pair.Get("name"))
		if !ok {
			at := pair.Get("name")
			if at == nil {
				at = pair
			}
			refuse(at, "a part's name is converted when it is text, not an expression")
			return
		}
		if node.version < 4.2 && (seen[name] || jsIndexKey.MatchString(name)) {
			refuse(pair.Get("name"), fmt.Sprintf("before version 4.2 n8n collects the parts into an object, which keeps a name once and puts index-like names first; %q is one of those", name))
			return
		}
		seen[name] = true
		if pair.Text("parameterType") != "formBinaryData" {
			v := s.textValue(pair.Get("value"), fmt.Sprintf("body %d", i))
			parts = append(parts, importer.Object([]importer.Member{{Name: "name", Value: importer.Str(name)}, {Name: "value", Value: v}}))
			continue
		}
		file := n.multipartFile(node, in, pair)
		if file == nil {
			return
		}
		parts = append(parts, importer.Object([]importer.Member{
			{Name: "name", Value: importer.Str(name)},
			{Name: "data", Value: importer.Index(file, "data")},
			{Name: "filename", Value: importer.Index(file, "fileName")},
			{Name: "content_type", Value: importer.Index(file, "mimeType")},
		}))
	}
	body.SetAttributeValue("body_type", cty.StringVal("multipart"))
	body.SetAttributeRaw("body", importer.Clone(importer.Tuple(parts)))
}

// multipartFile is the file a formBinaryData part sends, for the item
// each.key, or nil after a diagnostic: its binary field must be one the
// flow carries with its type and its file name as n8n has them.
func (n *n8n) multipartFile(node *n8nNode, in n8nItems, pair *importer.JV) importer.Expr {
	at := pair.Get("inputDataFieldName")
	prop, ok := literalText(at)
	if at == nil || !ok || prop == "" {
		n.Problem(node.where, pair, "Unsupported body", "a file part is converted when its Input Data Field Name is a name, not empty or an expression.")
		return nil
	}
	if prop = n.binaryField(node, in, prop, at, at); prop == "" {
		return nil
	}
	switch {
	case !in.binary.props[prop]:
		n.Problem(node.where, at, "Binary data",
			fmt.Sprintf("n8n sends the file %q with the type it finds from its name or its bytes, which the flow does not know.", prop))
		return nil
	case !in.binary.names[prop]:
		from := "the node before it"
		if in.owner != nil {
			from = fmt.Sprintf("%q (%s)", in.owner.name, in.owner.fullType)
		}
		n.Problem(node.where, at, "Binary data",
			fmt.Sprintf("n8n sends the file %q with the file name %s gave it, which the flow does not know (it knows the names Convert to File gives).", prop, from))
		return nil
	}
	return importer.Index(importer.Join("(", in.binary.e, ")[each.key]"), prop)
}

// convertedFileName is the name n8n's Convert to File gives the files of
// operation op ("toText", "toBinary") with its options (createBinaryFromJson,
// then prepareBinaryData: the base of the fileName option, else file.txt
// for a text file), or "" when the flow cannot know it: a name that is an
// expression or a path, or a name n8n makes from the type's extension.
func convertedFileName(op string, opts *importer.JV) string {
	v := opts.Get("fileName")
	name, ok := "", true
	if v != nil {
		name, ok = literalText(v)
	}
	switch {
	case !ok, strings.Contains(name, "/"):
		return ""
	case name == "" && op == "toText":
		return "file.txt"
	}
	return name
}
