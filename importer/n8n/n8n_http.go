package n8n

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// httpRequest is HTTP Request v4 (n8n's HttpRequestV3 class; older
// versions come through httpRequestOf): one request
// for each input item (for_each), with the query, headers and body the
// parameters give. A status of 400 or more fails the step, as n8n fails
// the node. The items are the answers: JSON as its value (an array one
// item for each element), any other answer as {data = its text}.
func (n *n8n) httpRequest(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if u := p.Get("url"); u == nil || u.Kind == 's' && strings.TrimSpace(strings.TrimPrefix(u.Str, "=")) == "" {
		at := u
		if at == nil {
			at = p
		}
		n.Problem(node.where, at, "No URL", "the HTTP Request has no URL; n8n fails the node on it too.")
		return nil
	}
	n.unsupportedHTTPOptions(node)
	skip, ok := n.httpOnError(node)
	if !ok {
		return nil
	}
	s := n.scope(node, in, true)
	s.env = true // the values go only into the request
	b, body := importer.NewStep(node.step, "http")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	method := p.Text("method")
	if method == "" {
		method = "GET"
	}
	if method != "GET" {
		body.SetAttributeValue("method", cty.StringVal(method))
	}
	body.SetAttributeRaw("url", importer.Clone(s.textValue(p.Get("url"), "url")))
	var query, headers []importer.Member
	if p.Boolean(false, "sendQuery") {
		query = n.httpPairs(s, node, "query", p.Text("specifyQuery"), p.Get("queryParameters"), p.Get("jsonQuery"))
	}
	if p.Boolean(false, "sendHeaders") {
		headers = n.httpPairs(s, node, "headers", p.Text("specifyHeaders"), p.Get("headerParameters"), p.Get("jsonHeaders"))
		for i, h := range headers {
			headers[i].Name = strings.ToLower(h.Name)
		}
	}
	auth := n.httpAuth(node, s, &headers, &query)
	if p.Boolean(false, "sendBody") {
		switch p.Text("contentType") {
		case "binaryData":
			n.httpBinaryBody(node, in, body, &headers)
		case "multipart-form-data":
			n.httpMultipartBody(s, node, in, body, method) // n8n_multipart.go
		default:
			n.httpBody(s, node, body, &headers)
		}
	}
	if auth != "" {
		n.customAuthBody(node, body)
	}
	if len(query) > 0 {
		body.SetAttributeRaw("query", importer.Clone(mergedObject(query)))
	}
	if len(headers) > 0 {
		body.SetAttributeRaw("headers", importer.Clone(mergedObject(headers)))
	}
	timeout := int(p.Number(300000, "options", "timeout"))
	body.SetAttributeValue("timeout", cty.StringVal(importer.Duration(int64(max(timeout, 1)))))
	if size := int(p.Number(0, "options", "batching", "batch", "batchSize")); size > 0 {
		body.SetAttributeValue("parallelism", cty.NumberIntVal(int64(size)))
	}
	n.retry(node, body)
	if skip {
		body.SetAttributeValue("on_error", cty.StringVal("continue"))
	}
	n.dependsOn(body, in)
	s.flush()
	comment := n.nodeComment(node) + ": " + method + " " + p.Text("url")
	if auth != "" {
		comment += " (" + auth + ")"
	}
	n.Step(comment, b)
	switch format := p.Text("options", "response", "response", "responseFormat"); {
	case format == "file":
		return n.httpFileResponse(node, in, body, skip, false)
	case (format == "" || format == "autodetect") && node.version >= 4 && readsFiles(node):
		return n.httpFileResponse(node, in, body, skip, true)
	}
	items := importer.Ref("step", node.step)
	var e, perItem importer.Expr // perItem: the items of answer r
	// A failed request (on_error = "continue") is null: it gives no item.
	ok2 := ""
	if skip {
		ok2 = " if r != null"
	}
	switch p.Text("options", "response", "response", "responseFormat") {
	case "json":
		perItem = importer.Code("[r.body]")
		e = importer.Join("flatten([for r in ", items, " : [r.body]"+ok2+"])")
	case "text":
		prop := p.Text("options", "response", "response", "outputPropertyName")
		if prop == "" {
			prop = "data"
		}
		e = importer.Join("[for r in ", items, " : ", importer.Object([]importer.Member{{Name: prop, Value: importer.Code("r.text")}}), ok2+"]")
	default:
		perItem = importer.Code("concat([for b in [r.body] : b if b != r.text], [for t in [r.text] : { data = t } if r.body == r.text])")
		e = importer.Join("flatten([for r in ", items, " : ", perItem, ok2+"])")
	}
	local := n.Name("local", node.name, node.step)
	n.File.Locals = append(n.File.Locals, local2(
		fmt.Sprintf("The items of n8n node %q: an answer in JSON is its value (an array, an item for each element), another answer {data = its text}.", node.name),
		local, e))
	// Each element of an answer pairs with the item its request was for.
	var paired importer.Expr
	switch {
	case perItem != nil:
		paired = importer.Join("flatten([for k, r in ", items, " : [for e in flatten([", perItem, "]) : k]"+ok2+"])")
	case skip:
		paired = importer.Join("[for k, r in ", items, " : k"+ok2+"]")
	}
	return []n8nItems{pairedWith(importer.Ref("local", local), in, paired)}
}

func local2(comment, name string, value importer.Expr) importer.Local {
	return importer.Local{Comment: comment, Name: name, Value: value}
}

// mergedObject is an object of members, where a member without a name is
// a whole object merged in (JSON headers, a credential's header).
func mergedObject(ms []importer.Member) importer.Expr {
	var static []importer.Member
	var parts []importer.Expr
	for _, m := range ms {
		if m.Name == "" {
			if len(static) > 0 {
				parts = append(parts, importer.Object(static))
				static = nil
			}
			parts = append(parts, m.Value)
			continue
		}
		static = append(static, m)
	}
	if len(static) > 0 {
		parts = append(parts, importer.Object(static))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return importer.Call("merge", parts...)
}

// unsupportedHTTPOptions reports the options the http block cannot
// follow, each with what n8n does that a step does not.
func (n *n8n) unsupportedHTTPOptions(node *n8nNode) {
	p := node.params
	opts := p.Get("options")
	bad := func(at *importer.JV, what, why string) {
		n.Problem(node.where, at, "Unsupported option", what+" is not converted: "+why+".")
	}
	if opts != nil {
		if v := opts.Get("redirect", "redirect"); v != nil && !v.Boolean(true, "followRedirects") {
			bad(v, "Not following redirects", "an http step follows them")
		}
		if v := opts.Get("response", "response"); v != nil {
			if v.Boolean(false, "fullResponse") {
				bad(v.Get("fullResponse"), "Include Response Headers and Status (fullResponse)",
					"n8n's item is then {body, headers, statusCode, statusMessage}, the server's status text and its headers as Node.js reads them, which an http step does not give")
			}
			// "=" is an empty expression: false.
			if nv := v.Get("neverError"); nv != nil && (nv.Kind == 'b' && nv.Bool || nv.Kind == 's' && strings.TrimSpace(strings.TrimPrefix(nv.Str, "=")) != "") {
				bad(nv, "Never Error", "n8n gives the answer to a status of 400 or more as an item; an http step fails on it")
			}
		}
		why := map[string]string{
			"proxy":                  "an http step sends no request through a proxy of the node's",
			"allowUnauthorizedCerts": "an http step always verifies the server's certificate",
			"pagination":             "n8n requests page after page until its condition holds; an http step makes one request",
		}
		for _, k := range []string{"proxy", "allowUnauthorizedCerts", "pagination"} {
			if v := opts.Get(k); v != nil && !(v.Kind == 'b' && !v.Bool) {
				bad(v, "The option "+k, why[k])
			}
		}
		if v := opts.Get("timeout"); v != nil && v.Kind != 'n' {
			bad(v, "A timeout that is not a number", "n8n evaluates it for each item; a step's timeout is one duration")
		}
	}
	if p.Boolean(false, "provideSslCertificates") {
		bad(p.Get("provideSslCertificates"), "SSL certificates", "an http step presents no client certificate")
	}
}

// httpPairs reads query parameters or headers: name/value pairs, or JSON.
func (n *n8n) httpPairs(s *n8nScope, node *n8nNode, what, specify string, pairs, jsonText *importer.JV) []importer.Member {
	if specify == "json" {
		v := n.jsonParam(s, node, jsonText, what)
		if v == nil {
			return nil
		}
		return []importer.Member{{Name: "", Value: v}}
	}
	var out []importer.Member
	for i, pair := range pairs.Items("parameters") {
		name := pair.Text("name")
		if name == "" {
			continue
		}
		var value importer.Expr
		if what == "headers" && pair.Get("value") != nil && pair.Get("value").Kind == 's' && !strings.HasPrefix(pair.Text("value"), "=") &&
			importer.IsCredentialHeader(name, pair.Text("value")) {
			value = n.secretHeader(node, name, pair.Text("value"))
		} else if what == "query" {
			value = n.SecretValue(name, pair.Get("value"), fmt.Sprintf("query parameter of n8n node %q:", node.name))
		}
		if value == nil {
			value = s.textValue(pair.Get("value"), fmt.Sprintf("%s %d", what, i))
		}
		out = append(out, importer.Member{Name: name, Value: value})
	}
	return out
}

// secretHeader makes a literal credential of a header a secret.
func (n *n8n) secretHeader(node *n8nNode, name, value string) importer.Expr {
	scheme, token := importer.SplitScheme(value)
	sec := n.AddSecret(name, fmt.Sprintf("header %s of n8n node %q", name, node.name), value)
	if token != value {
		return importer.Template([]importer.TPart{{Lit: scheme}, {Expr: importer.Ref("secret", sec)}}, false)
	}
	return importer.Ref("secret", sec)
}

// jsonParam is a JSON parameter (a JSON body, query or headers): JSON
// text whose {{ }} parts are expressions. n8n evaluates them into the text
// and parses it.
func (n *n8n) jsonParam(s *n8nScope, node *n8nNode, v *importer.JV, path string) importer.Expr {
	if v == nil {
		return nil
	}
	if v.Kind != 's' {
		return importer.JsonLiteral(v)
	}
	src := strings.TrimPrefix(v.Str, "=")
	if !strings.HasPrefix(v.Str, "=") {
		e, err := importer.JSONTemplate(src, nil, nil, nil)
		if err != nil {
			n.Problem(node.where, v, "Invalid JSON", fmt.Sprintf("the %s is not JSON (%v); n8n fails on it too.", path, err))
			return nil
		}
		return e
	}
	chunks := splitN8N(src)
	if len(chunks) == 2 && chunks[0].text == "" && chunks[1].code {
		// The whole value is one expression: its value, or the JSON its
		// text holds.
		return importer.Call("try", importer.Call("jsondecode", s.value(v, path)), s.value(v, path))
	}
	var spans []importer.Span
	var exprs, texts []importer.Expr
	for _, c := range chunks {
		if !c.code {
			continue
		}
		e, ok := s.js2hcl(c.text, v)
		if !ok {
			// Some part needs goja: goja evaluates the whole text.
			return importer.Call("jsondecode", s.goja(v, path))
		}
		spans = append(spans, importer.Span{Start: c.start, End: c.end})
		exprs = append(exprs, e)
		t, _ := s.textChunk(c.text, v)
		texts = append(texts, t)
	}
	e, err := importer.JSONTemplate(src, spans, func(i int) importer.Expr { return texts[i] }, func(i int) importer.Expr {
		return importer.Call("jsondecode", importer.Call("tostring", exprs[i]))
	})
	if err != nil {
		return importer.Call("jsondecode", s.goja(v, path))
	}
	return e
}

// httpBody sets the body and its type.
func (n *n8n) httpBody(s *n8nScope, node *n8nNode, body *hclwrite.Body, headers *[]importer.Member) {
	p := node.params
	ct := p.Text("contentType")
	if ct == "" {
		ct = "json"
	}
	switch ct {
	case "json", "form-urlencoded":
		var v importer.Expr
		switch p.Text("specifyBody") {
		case "json":
			v = n.jsonParam(s, node, p.Get("jsonBody"), "body")
		case "string":
			v = n.formString(node, p.Get("body"))
		default:
			v = n.nested(s, node, p.Items("bodyParameters", "parameters"), ct == "json" && node.version >= 4)
		}
		if v == nil {
			return
		}
		if ct == "form-urlencoded" {
			body.SetAttributeValue("body_type", cty.StringVal("form"))
		}
		body.SetAttributeRaw("body", importer.Clone(v))
	case "raw":
		body.SetAttributeValue("body_type", cty.StringVal("text"))
		body.SetAttributeRaw("body", importer.Clone(s.textValue(p.Get("body"), "body")))
		*headers = append(*headers, importer.Member{Name: "content-type", Value: s.textValue(p.Get("rawContentType"), "raw content type")})
	default:
		n.Problem(node.where, p.Get("contentType"), "Unsupported body",
			fmt.Sprintf("a %s body is not converted (n8n's HTTP Request v4 has no such body); JSON, form-urlencoded, multipart-form-data, binary and raw bodies are.", ct))
	}
}

// formString reads a form body written as a query string.
func (n *n8n) formString(node *n8nNode, v *importer.JV) importer.Expr {
	if v == nil || v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
		n.Problem(node.where, v, "Unsupported body", "a form body written as text is converted when it is a literal query string.")
		return nil
	}
	q, err := url.ParseQuery(v.Str)
	if err != nil {
		n.Problem(node.where, v, "Invalid form body", err.Error())
		return nil
	}
	var ms []importer.Member
	for _, k := range importer.SortedKeys(q) {
		ms = append(ms, importer.Member{Name: k, Value: importer.Str(q.Get(k))})
	}
	return importer.Object(ms)
}

// nested builds an object of name/value pairs; with dots (lodash's set)
// a name like a.b is b inside a.
func (n *n8n) nested(s *n8nScope, node *n8nNode, pairs []*importer.JV, dots bool) importer.Expr {
	type field struct {
		path  []string
		value importer.Expr
	}
	var fields []field
	for i, pair := range pairs {
		name := pair.Text("name")
		if name == "" {
			continue
		}
		path := []string{name}
		if dots {
			if strings.ContainsAny(name, "[]") {
				n.Problem(node.where, pair.Get("name"), "Unsupported field name", "a name with [index] is not converted; use a.b for nested fields.")
				return nil
			}
			path = strings.Split(name, ".")
		}
		v := n.SecretValue(path[len(path)-1], pair.Get("value"), fmt.Sprintf("body field of n8n node %q:", node.name))
		if v == nil {
			v = s.value(pair.Get("value"), fmt.Sprintf("body %d", i))
		}
		fields = append(fields, field{path, v})
	}
	var build func(fs []field) importer.Expr
	build = func(fs []field) importer.Expr {
		var ms []importer.Member
		for i := 0; i < len(fs); i++ {
			key := fs[i].path[0]
			if len(fs[i].path) == 1 {
				ms = append(ms, importer.Member{Name: key, Value: fs[i].value})
				continue
			}
			var sub []field
			for j := i; j < len(fs); j++ {
				if fs[j].path[0] == key && len(fs[j].path) > 1 {
					sub = append(sub, field{fs[j].path[1:], fs[j].value})
				}
			}
			done := false
			for _, m := range ms {
				done = done || m.Name == key
			}
			if !done {
				ms = append(ms, importer.Member{Name: key, Value: build(sub)})
			}
		}
		return importer.Object(ms)
	}
	return build(fields)
}
