package n8n

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// n8nBinary is the binary data (files) of items, which n8n keeps beside
// each item's json: an HCL list, one object for each item, of its binary
// properties, each {data = the file's bytes in base64, mimeType}. The flow
// carries it from the node that makes the files (an HTTP Request's
// download, Convert to File, Google Drive's Download) to the nodes right after it that read them
// (Extract from File, an HTTP Request's binary body); any other node's
// items have none known, and a node that reads a file from them is
// refused.
type n8nBinary struct {
	e importer.Expr
	// props are the binary properties every item has, each with whether
	// its mimeType is known (n8n sniffs it from the bytes otherwise).
	props map[string]bool
	// names are the properties whose files carry fileName, the name n8n
	// gives the file (a multipart body sends it).
	names map[string]bool
}

// of is the same files (their properties) as an other expression.
func (b *n8nBinary) of(e importer.Expr) *n8nBinary {
	return &n8nBinary{e: e, props: b.props, names: b.names}
}

// keepsFiles are the nodes whose items are their input items, unchanged,
// files and all: some of them (IF, Filter, Switch, Limit), or all (No
// Operation, Wait).
var keepsFiles = map[string]bool{"if": true, "filter": true, "switch": true, "limit": true, "noOp": true, "wait": true}

// passFiles gives the items of such a node the files of the input items
// they are: item i is input item i, or input item paired[i].
func passFiles(node *n8nNode, in n8nItems, items []n8nItems) {
	if in.binary == nil || !keepsFiles[node.typ] {
		return
	}
	for i := range items {
		o := &items[i]
		switch {
		case o.prev == nil || o.unpaired || o.merged != nil || o.pairsAll:
		case o.paired != nil:
			o.binary = in.binary.of(importer.Join("[for k in ", o.paired, " : (", in.binary.e, ")[k]]"))
		default:
			o.binary = in.binary.of(importer.Join("[for i, it in ", o.e, " : (", in.binary.e, ")[i]]"))
		}
	}
}

// binaryOf is the binary property name of node (parameter param, default
// "data") that items in carry, or "" after a diagnostic: a name that is
// an expression, items whose files the flow does not carry, a property
// they do not have.
func (n *n8n) binaryOf(node *n8nNode, in n8nItems, param string, at *importer.JV) string {
	v := node.params.Get(param)
	prop := node.params.Text(param)
	if prop == "" {
		prop = "data"
	}
	if strings.HasPrefix(prop, "=") {
		n.Problem(node.where, v, "Unsupported expression", "the name of the binary field is converted when it is a name, not an expression.")
		return ""
	}
	return n.binaryField(node, in, prop, v, at)
}

// binaryField is prop, a binary property name that items in carry, or ""
// after a diagnostic (at v for a property they lack, at at for items
// without files).
func (n *n8n) binaryField(node *n8nNode, in n8nItems, prop string, v, at *importer.JV) string {
	if in.binary == nil {
		n.noFiles(node, in, at)
		return ""
	}
	if _, ok := in.binary.props[prop]; !ok {
		n.Problem(node.where, v, "No binary field",
			fmt.Sprintf("the items have no binary field %q (they have %s); n8n fails the node on it.", prop, strings.Join(sortedProps(in.binary.props), ", ")))
		return ""
	}
	return prop
}

// noFiles is the error of node reading the files of items in, which the
// flow does not carry.
func (n *n8n) noFiles(node *n8nNode, in n8nItems, at *importer.JV) {
	from := "the node before it"
	if in.owner != nil {
		from = fmt.Sprintf("%q (%s)", in.owner.name, in.owner.fullType)
	}
	n.Problem(node.where, at, "Binary data",
		fmt.Sprintf("the node reads the file (binary data) of the items of %s, which the flow does not carry: it carries the files an HTTP Request downloads (Response Format File), Convert to File makes, Google Drive downloads and the OpenAI node generates (an image, audio), to the node right after.", from))
}

func sortedProps(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// binaryLocal writes the files of items as a local and returns them.
func (n *n8n) binaryLocal(node *n8nNode, value importer.Expr, props map[string]bool) *n8nBinary {
	local := n.Name("local", node.name+" files", node.step+"_files")
	n.File.Locals = append(n.File.Locals, local2(
		fmt.Sprintf("The files (n8n's binary data) of the items of n8n node %q: for each item, {data = the bytes in base64, mimeType}.", node.name),
		local, value))
	return &n8nBinary{e: importer.Ref("local", local), props: props}
}

// onlyOptions refuses the options of node other than allowed.
func (n *n8n) onlyOptions(node *n8nNode, allowed ...string) bool {
	ok := true
	opts := node.params.Get("options")
	if opts == nil || opts.Kind != 'o' {
		return true
	}
	for _, k := range importer.SortedKeys(opts.Obj) {
		if !slices.Contains(allowed, k) {
			n.Problem(node.where, node.params.Get("options", k), "Unsupported option", fmt.Sprintf("the option %q is not converted.", k))
			ok = false
		}
	}
	return ok
}

// extractFromFile is Extract from File v1: the text, the JSON or the
// base64 of each item's file (the moveTo operations), a CSV file's rows,
// or a PDF's text (the document block). Each item becomes {destination = value}, paired
// with its input item; the file's other binary fields are not carried.
func (n *n8n) extractFromFile(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	op := p.Text("operation")
	if op == "" {
		op = "csv"
	}
	switch op {
	case "text", "fromJson", "binaryToPropery", "pdf", "csv":
	default:
		n.Problem(node.where, p.Get("operation"), "Unsupported operation",
			fmt.Sprintf("Extract from File's %q is not converted: Extract From CSV, Text File, JSON File, PDF and Move File to Base64 String are (another spreadsheet needs a reader of its format, which the flow's blocks do not have).", op))
		return nil
	}
	prop := n.binaryOf(node, in, "binaryPropertyName", node.j.Get("type"))
	if prop == "" {
		return nil
	}
	switch op {
	case "pdf":
		return n.extractPDF(node, in, prop)
	case "csv":
		return n.extractCSV(node, in, prop)
	}
	if !n.onlyOptions(node) {
		return nil
	}
	key := p.Text("destinationKey")
	if key == "" {
		key = "data"
	}
	if strings.HasPrefix(key, "=") || strings.ContainsAny(key, ".[]") {
		n.Problem(node.where, p.Get("destinationKey"), "Unsupported field name", "the destination key is converted when it is a plain name, not a path or an expression.")
		return nil
	}
	data := importer.Index(importer.Code("f"), prop, "data")
	// iconv-lite decodes as n8n does, dropping a byte order mark; text
	// that is not UTF-8 fails the flow (base64decode), not changed.
	text := importer.Join(`trimprefix(base64decode(`, data, `), "\ufeff")`)
	var value importer.Expr
	switch op {
	case "text":
		value = text
	case "fromJson":
		// Not a conditional: its two results' types would have to unify.
		value = importer.Join("[for t in [", text, `] : concat([for x in [t] : {} if x == ""], [for x in [t] : jsondecode(x) if x != ""])[0]][0]`)
	case "binaryToPropery":
		value = data
	}
	local := n.Name("local", node.name, node.step)
	e := importer.Join("[for f in ", in.binary.e, " : ", importer.Object([]importer.Member{{Name: key, Value: value}}), "]")
	n.File.Locals = append(n.File.Locals, local2(fmt.Sprintf("The items of n8n node %q: each item's file %q read (%s).", node.name, prop, op), local, e))
	return []n8nItems{pairedWith(importer.Ref("local", local), in, nil)}
}

// extractCSV reads each item's CSV file as n8n's csv-parse does with a
// header row: an item for each row, its empty cells left out, paired with
// the item of its file. Where n8n stops at a row it cannot read (a blank
// line between rows, a row of another length, a stray quote) and keeps
// the rows before it, the flow fails.
func (n *n8n) extractCSV(node *n8nNode, in n8nItems, prop string) []n8nItems {
	opts := node.params.Get("options")
	if !n.onlyOptions(node, "delimiter", "headerRow", "encoding") {
		return nil
	}
	for _, c := range []struct {
		k  string
		ok bool
	}{
		{"delimiter", opts.Text("delimiter") == "" || opts.Text("delimiter") == ","},
		{"headerRow", opts.Boolean(true, "headerRow")},
		{"encoding", slices.Contains([]string{"", "utf8", "utf-8"}, strings.ToLower(opts.Text("encoding")))},
	} {
		if k := c.k; !c.ok {
			n.Problem(node.where, opts.Get(k), "Unsupported option", fmt.Sprintf("the option %q is converted when it is n8n's default.", k))
			return nil
		}
	}
	data := importer.Index(importer.Code("f"), prop, "data")
	// csv-parse keeps a byte order mark in the first name, as csvdecode.
	text := importer.Join(`[for t in [base64decode(`, data, `)] : length(regexall("\r?\n\r?\n[^\r\n]", t)) > 0 ? null : t][0]`)
	rows := importer.Join("[for f in ", in.binary.e, " : [for r in csvdecode(", text, `) : { for k, v in r : k => v if v != "" }]]`)
	local := n.Name("local", node.name, node.step)
	n.File.Locals = append(n.File.Locals, local2(fmt.Sprintf("The items of n8n node %q: the rows of each item's CSV file %q (a blank line between rows fails, where n8n stops).", node.name, prop), local, importer.Call("flatten", rows)))
	paired := importer.Join("flatten([for k, f in ", in.binary.e, " : [for r in csvdecode(", text, ") : k]])")
	return []n8nItems{pairedWith(importer.Ref("local", local), in, paired)}
}

// extractPDF reads each item's PDF with the document block: its text,
// pages joined by blank lines as n8n joins them, and the count of pages.
func (n *n8n) extractPDF(node *n8nNode, in n8nItems, prop string) []n8nItems {
	if !n.onlyOptions(node) {
		return nil
	}
	n.Warn(node.where, node.j.Get("type"), "PDF text read by flowctl",
		"the text is extracted by the document block (a pure-Go PDF reader), not by n8n's pdf.js: the words are the same, the spaces and line breaks between them may differ; the item has text, numpages and numrender, not n8n's info, metadata and version.")
	b, body := importer.NewStep(node.step, "document")
	body.SetAttributeRaw("for_each", importer.Clone(in.binary.e))
	body.SetAttributeRaw("content_base64", importer.Clone(importer.Index(importer.Code("each.value"), prop, "data")))
	body.SetAttributeValue("media_type", cty.StringVal("application/pdf"))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": the text of each item's PDF", b)
	local := n.Name("local", node.name, node.step)
	e := importer.Join("[for d in ", importer.Ref("step", node.step), " : { numpages = length(d.pages), numrender = length(d.pages), text = d.text }]")
	n.File.Locals = append(n.File.Locals, local2(fmt.Sprintf("The items of n8n node %q: each item's PDF as n8n reads it.", node.name), local, e))
	return []n8nItems{pairedWith(importer.Ref("local", local), in, nil)}
}

// lodashPath matches a source property as lodash's get reads it: names
// joined by dots, with [index] after a name.
var lodashPath = regexp.MustCompile(`^[A-Za-z_$][\w$-]*(\[\d+\])*(\.[A-Za-z_$][\w$-]*(\[\d+\])*)*$`)

// sourceValue is the value at a lodash path of item it (an HCL name):
// missing, the flow fails, as n8n fails the node ("is not set").
func sourceValue(it, path string) importer.Expr {
	e := importer.Code(it)
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		e = importer.Index(e, name)
		if rest != "" {
			for _, ix := range strings.Split(strings.TrimSuffix(rest, "]"), "][") {
				e = importer.Join(e, "["+ix+"]")
			}
		}
	}
	return e
}

// convertToFile is Convert to File v1 and v1.1: Move Base64 String to
// File (toBinary) and Convert to Text File (toText), a file for each item
// whose json is {}. JSON and spreadsheet files are not converted: n8n
// writes an object's keys in their order, which a flow's objects (sorted)
// do not keep.
func (n *n8n) convertToFile(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	op := p.Text("operation")
	if op == "" {
		op = "csv"
	}
	if op != "toBinary" && op != "toText" {
		n.Problem(node.where, p.Get("operation"), "Unsupported operation",
			fmt.Sprintf("Convert to File's %q is not converted: Move Base64 String to File and Convert to Text File are; n8n writes JSON and spreadsheets with the keys of each object in their order, which a flow's objects do not keep.", op))
		return nil
	}
	prop := p.Text("binaryPropertyName")
	if prop == "" {
		prop = "data"
	}
	src := p.Text("sourceProperty")
	if strings.HasPrefix(prop, "=") || !lodashPath.MatchString(src) {
		n.Problem(node.where, p.Get("sourceProperty"), "Unsupported field name", "the source and binary fields are converted when they are names or paths (a.b[0].c), not expressions.")
		return nil
	}
	if !n.onlyOptions(node, "fileName", "mimeType", "dataIsBase64") {
		return nil
	}
	opts := p.Get("options")
	v := sourceValue("it", src)
	var data, mime importer.Expr
	known := true
	switch op {
	case "toText":
		// A string's UTF-8 bytes; an object (JSON.stringify) fails in
		// base64encode, a flow does not keep its keys' order.
		data = importer.Join("base64encode(", v, ")")
		mime = importer.Str("text/plain")
	default:
		if node.version < 1.1 && !opts.Boolean(true, "dataIsBase64") {
			n.Problem(node.where, opts.Get("dataIsBase64"), "Unsupported option", "a source that is not base64 is converted by Convert to Text File.")
			return nil
		}
		data = v
		mime = importer.Code("null")
		if m := opts.Get("mimeType"); m != nil && m.Kind == 's' && m.Str != "" && !strings.HasPrefix(m.Str, "=") {
			mime = importer.Str(m.Str)
		} else {
			// n8n takes it from the file name or sniffs the bytes.
			known = false
		}
	}
	members := []importer.Member{{Name: "data", Value: data}, {Name: "mimeType", Value: mime}}
	fileName := convertedFileName(op, opts) // n8n_multipart.go
	if fileName != "" {
		members = append(members, importer.Member{Name: "fileName", Value: importer.Str(fileName)})
	}
	file := importer.Object(members)
	files := n.binaryLocal(node, importer.Join("[for it in ", in.e, " : ", importer.Object([]importer.Member{{Name: prop, Value: file}}), "]"), map[string]bool{prop: known})
	files.names = map[string]bool{prop: fileName != ""}
	out := pairedWith(importer.Join("[for it in ", in.e, " : {}]"), in, nil)
	out.binary = files
	return []n8nItems{out}
}

// binaryContentTypes are the types an HTTP Request's answer is a file of
// when it detects the response format (n8n's binaryContentTypes).
var binaryContentTypes = []string{
	"image/", "audio/", "video/", "application/octet-stream", "application/gzip", "application/zip", "application/vnd.rar",
	"application/epub+zip", "application/x-bzip", "application/x-bzip2", "application/x-cdf", "application/vnd.amazon.ebook",
	"application/msword", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.ms-fontobject",
	"application/vnd.oasis.opendocument.presentation", "application/pdf", "application/x-tar", "application/vnd.visio",
	"application/vnd.ms-excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/x-7z-compressed",
}

// readsFiles reports whether every node node's items go to reads their
// files (Extract from File, an HTTP Request sending a binary body, an
// OpenAI node analyzing images of binary files): then
// an HTTP Request that detects its response's format downloads a file.
func readsFiles(node *n8nNode) bool {
	any := false
	for _, out := range node.outs {
		for _, e := range out {
			p := e.node.params
			switch {
			case e.node.typ == "extractFromFile", e.node.typ == "httpRequest" && p.Boolean(false, "sendBody") && p.Text("contentType") == "binaryData",
				readsImages(e.node):
				any = true
			default:
				return false
			}
		}
	}
	return any
}

// httpFileResponse sets an HTTP Request's step to give each answer's
// bytes (response base64) and returns its items, as n8n keeps a file
// response: the json of the item the request was for, and the file in
// binary field prop, its mimeType the response's Content-Type without
// parameters. detect: n8n detects the response's format, and an answer
// is a file when its Content-Type is one of binaryContentTypes; another
// has no file (the node after it fails on it, as in n8n).
func (n *n8n) httpFileResponse(node *n8nNode, in n8nItems, body *hclwrite.Body, skip, detect bool) []n8nItems {
	body.SetAttributeValue("response", cty.StringVal("base64"))
	prop := node.params.Text("options", "response", "response", "outputPropertyName")
	if prop == "" {
		prop = "data"
	}
	items := importer.Ref("step", node.step)
	ok := ""
	if skip {
		ok = " if r != null"
	}
	local := n.Name("local", node.name, node.step)
	n.File.Locals = append(n.File.Locals, local2(
		fmt.Sprintf("The items of n8n node %q: the json of the item each file was downloaded for.", node.name),
		local, importer.Join("[for k, r in ", items, " : (", in.e, ")[k]"+ok+"]")))
	mime := importer.Code(`try(split(";", split(" ", r.headers["Content-Type"])[0])[0], null)`)
	if node.version < 3 {
		// HttpRequestV1 and V2 read the type as n8n-core's
		// parseIncomingMessage does: before ";", in lower case.
		mime = importer.Code(`try(lower(split(";", r.headers["Content-Type"])[0]), null)`)
	}
	file := importer.Object([]importer.Member{{Name: "data", Value: importer.Code("r.body")}, {Name: "mimeType", Value: mime}})
	var each importer.Expr = importer.Object([]importer.Member{{Name: prop, Value: file}})
	props, names := map[string]bool{prop: true}, map[string]bool{}
	if detect {
		var types []importer.Expr
		for _, t := range binaryContentTypes {
			types = append(types, importer.Str(t))
		}
		// An object with the file or an empty one (a conditional's two
		// object types would not unify).
		each = importer.Join(`merge([for ok in [length([for t in `, importer.Tuple(types), ` : t if strcontains(try(r.headers["Content-Type"], ""), t)]) > 0] : `, each, ` if ok]...)`)
	}
	if in.binary != nil {
		// n8n copies the item's files, then sets the download's.
		each = importer.Join("merge((", in.binary.e, ")[k], ", each, ")")
		for k, v := range in.binary.props {
			if k != prop {
				props[k] = v
			}
		}
		for k, v := range in.binary.names {
			if k != prop {
				names[k] = v
			}
		}
	}
	var paired importer.Expr
	if skip {
		paired = importer.Join("[for k, r in ", items, " : k"+ok+"]")
	}
	out := pairedWith(importer.Ref("local", local), in, paired)
	out.binary = n.binaryLocal(node, importer.Join("[for k, r in ", items, " : ", each, ok+"]"), props)
	out.binary.names = names
	return []n8nItems{out}
}

// httpBinaryBody sends each item's file as the body of its request, with
// its mimeType as the Content-Type, as n8n does.
func (n *n8n) httpBinaryBody(node *n8nNode, in n8nItems, body *hclwrite.Body, headers *[]importer.Member) {
	prop := n.binaryOf(node, in, "inputDataFieldName", node.params.Get("contentType"))
	if prop == "" {
		return
	}
	if !in.binary.props[prop] {
		n.Problem(node.where, node.params.Get("inputDataFieldName"), "Binary data",
			fmt.Sprintf("n8n sends the file %q with the type it finds from its name or its bytes, which the flow does not know.", prop))
		return
	}
	p := node.params
	if p.Boolean(false, "sendHeaders") && p.Text("specifyHeaders") == "json" {
		n.Problem(node.where, p.Get("specifyHeaders"), "Unsupported body",
			"a binary body with headers given as JSON is not converted: the type n8n sends depends on how the JSON spells Content-Type.")
		return
	}
	// The node's own Content-Type header, however spelled, is sent over
	// the file's type (n8n 2.8.4 does so; case n8n/files).
	own := false
	for _, h := range p.Items("headerParameters", "parameters") {
		if strings.EqualFold(h.Text("name"), "content-type") && p.Boolean(false, "sendHeaders") {
			own = true
		}
	}
	file := importer.Index(importer.Join("(", in.binary.e, ")[each.key]"), prop)
	body.SetAttributeValue("body_type", cty.StringVal("base64"))
	body.SetAttributeRaw("body", importer.Clone(importer.Index(file, "data")))
	if !own {
		*headers = slices.DeleteFunc(*headers, func(m importer.Member) bool { return m.Name == "content-type" })
		*headers = append(*headers, importer.Member{Name: "content-type", Value: importer.Index(file, "mimeType")})
	}
}
