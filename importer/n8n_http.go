package importer

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// httpRequest is HTTP Request v4 (n8n's HttpRequestV3 class): one request
// for each input item (for_each), with the query, headers and body the
// parameters give. A status of 400 or more fails the step, as n8n fails
// the node. The items are the answers: JSON as its value (an array one
// item for each element), any other answer as {data = its text}.
func (n *n8n) httpRequest(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if n.tooOld(node, "HTTP Request", 4) {
		return nil
	}
	n.unsupportedHTTPOptions(node)
	s := n.scope(node, in, true)
	b, body := newStep(node.step, "http")
	body.SetAttributeRaw("for_each", clone(in.e))
	method := p.str("method")
	if method == "" {
		method = "GET"
	}
	if method != "GET" {
		body.SetAttributeValue("method", cty.StringVal(method))
	}
	body.SetAttributeRaw("url", clone(s.textValue(p.get("url"), "url")))
	var query, headers []member
	if p.boolean(false, "sendQuery") {
		query = n.httpPairs(s, node, "query", p.str("specifyQuery"), p.get("queryParameters"), p.get("jsonQuery"))
	}
	if p.boolean(false, "sendHeaders") {
		headers = n.httpPairs(s, node, "headers", p.str("specifyHeaders"), p.get("headerParameters"), p.get("jsonHeaders"))
		for i, h := range headers {
			headers[i].Name = strings.ToLower(h.Name)
		}
	}
	auth := n.httpAuth(node, s, &headers, &query)
	if p.boolean(false, "sendBody") {
		n.httpBody(s, node, body, &headers)
	}
	if len(query) > 0 {
		body.SetAttributeRaw("query", clone(mergedObject(query)))
	}
	if len(headers) > 0 {
		body.SetAttributeRaw("headers", clone(mergedObject(headers)))
	}
	timeout := int(p.number(300000, "options", "timeout"))
	body.SetAttributeValue("timeout", cty.StringVal(duration(int64(max(timeout, 1)))))
	if size := int(p.number(0, "options", "batching", "batch", "batchSize")); size > 0 {
		body.SetAttributeValue("parallelism", cty.NumberIntVal(int64(size)))
	}
	n.retry(node, body)
	n.dependsOn(body, in)
	s.flush()
	comment := n.nodeComment(node) + ": " + method + " " + p.str("url")
	if auth != "" {
		comment += " (" + auth + ")"
	}
	n.step(comment, b)
	items := ref("step", node.step)
	var e expr
	switch p.str("options", "response", "response", "responseFormat") {
	case "json":
		e = join("flatten([for r in ", items, " : [r.body]])")
	case "text":
		prop := p.str("options", "response", "response", "outputPropertyName")
		if prop == "" {
			prop = "data"
		}
		e = join("[for r in ", items, " : ", object([]member{{prop, code("r.text")}}), "]")
	default:
		e = join("flatten([for r in ", items, " : concat([for b in [r.body] : b if b != r.text], [for t in [r.text] : { data = t } if r.body == r.text])])")
	}
	local := n.name("local", node.name, node.step)
	n.file.locals = append(n.file.locals, local2(
		fmt.Sprintf("The items of n8n node %q: an answer in JSON is its value (an array, an item for each element), another answer {data = its text}.", node.name),
		local, e))
	return []n8nItems{{e: ref("local", local), lineage: appendLineage(in.lineage, node)}}
}

func local2(comment, name string, value expr) local {
	return local{comment: comment, name: name, value: value}
}

// mergedObject is an object of members, where a member without a name is
// a whole object merged in (JSON headers, a credential's header).
func mergedObject(ms []member) expr {
	var static []member
	var parts []expr
	for _, m := range ms {
		if m.Name == "" {
			if len(static) > 0 {
				parts = append(parts, object(static))
				static = nil
			}
			parts = append(parts, m.Value)
			continue
		}
		static = append(static, m)
	}
	if len(static) > 0 {
		parts = append(parts, object(static))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return call("merge", parts...)
}

// unsupportedHTTPOptions reports the options the http block cannot follow.
func (n *n8n) unsupportedHTTPOptions(node *n8nNode) {
	p := node.params
	opts := p.get("options")
	bad := func(at *jv, what string) {
		n.problem(node.where, at, "Unsupported option", what+" is not converted.")
	}
	if opts != nil {
		if v := opts.get("redirect", "redirect"); v != nil && !v.boolean(true, "followRedirects") {
			bad(v, "Not following redirects")
		}
		if v := opts.get("response", "response"); v != nil {
			if v.boolean(false, "fullResponse") {
				bad(v.get("fullResponse"), "Include Response Headers and Status (fullResponse)")
			}
			if v.boolean(false, "neverError") {
				bad(v.get("neverError"), "Never Error (a status of 400 or more as a result)")
			}
			if v.str("responseFormat") == "file" {
				bad(v.get("responseFormat"), "A file response")
			}
		}
		for _, k := range []string{"proxy", "allowUnauthorizedCerts", "pagination"} {
			if v := opts.get(k); v != nil && !(v.Kind == 'b' && !v.Bool) {
				bad(v, "The option "+k)
			}
		}
	}
	if p.boolean(false, "provideSslCertificates") {
		bad(p.get("provideSslCertificates"), "SSL certificates")
	}
}

// httpPairs reads query parameters or headers: name/value pairs, or JSON.
func (n *n8n) httpPairs(s *n8nScope, node *n8nNode, what, specify string, pairs, jsonText *jv) []member {
	if specify == "json" {
		v := n.jsonParam(s, node, jsonText, what)
		if v == nil {
			return nil
		}
		return []member{{Name: "", Value: v}}
	}
	var out []member
	for i, pair := range pairs.items("parameters") {
		name := pair.str("name")
		if name == "" {
			continue
		}
		var value expr
		if what == "headers" && pair.get("value") != nil && pair.get("value").Kind == 's' && !strings.HasPrefix(pair.str("value"), "=") &&
			isCredentialHeader(name, pair.str("value")) {
			value = n.secretHeader(node, name, pair.str("value"))
		} else if what == "query" {
			value = n.secretValue(name, pair.get("value"), fmt.Sprintf("query parameter of n8n node %q:", node.name))
		}
		if value == nil {
			value = s.textValue(pair.get("value"), fmt.Sprintf("%s %d", what, i))
		}
		out = append(out, member{Name: name, Value: value})
	}
	return out
}

// secretHeader makes a literal credential of a header a secret.
func (n *n8n) secretHeader(node *n8nNode, name, value string) expr {
	scheme, token := splitScheme(value)
	sec := n.addSecret(name, fmt.Sprintf("header %s of n8n node %q", name, node.name), value)
	if token != value {
		return template([]tpart{{Lit: scheme}, {Expr: ref("secret", sec)}}, false)
	}
	return ref("secret", sec)
}

// jsonParam is a JSON parameter (a JSON body, query or headers): JSON
// text whose {{ }} parts are expressions. n8n evaluates them into the text
// and parses it.
func (n *n8n) jsonParam(s *n8nScope, node *n8nNode, v *jv, path string) expr {
	if v == nil {
		return nil
	}
	if v.Kind != 's' {
		return jsonLiteral(v)
	}
	src := strings.TrimPrefix(v.Str, "=")
	if !strings.HasPrefix(v.Str, "=") {
		e, err := jsonTemplate(src, nil, nil, nil)
		if err != nil {
			n.problem(node.where, v, "Invalid JSON", fmt.Sprintf("the %s is not JSON (%v); n8n fails on it too.", path, err))
			return nil
		}
		return e
	}
	chunks := splitN8N(src)
	if len(chunks) == 2 && chunks[0].text == "" && chunks[1].code {
		// The whole value is one expression: its value, or the JSON its
		// text holds.
		return call("try", call("jsondecode", s.value(v, path)), s.value(v, path))
	}
	var spans []span
	var exprs []expr
	for _, c := range chunks {
		if !c.code {
			continue
		}
		e, ok := s.js2hcl(c.text, v)
		if !ok {
			// Some part needs goja: goja evaluates the whole text.
			return call("jsondecode", s.goja(v, path))
		}
		spans = append(spans, span{c.start, c.end})
		exprs = append(exprs, e)
	}
	e, err := jsonTemplate(src, spans, func(i int) expr { return exprs[i] }, func(i int) expr {
		return call("jsondecode", call("tostring", exprs[i]))
	})
	if err != nil {
		return call("jsondecode", s.goja(v, path))
	}
	return e
}

// httpBody sets the body and its type.
func (n *n8n) httpBody(s *n8nScope, node *n8nNode, body *hclwrite.Body, headers *[]member) {
	p := node.params
	ct := p.str("contentType")
	if ct == "" {
		ct = "json"
	}
	switch ct {
	case "json", "form-urlencoded":
		var v expr
		switch p.str("specifyBody") {
		case "json":
			v = n.jsonParam(s, node, p.get("jsonBody"), "body")
		case "string":
			v = n.formString(node, p.get("body"))
		default:
			v = n.nested(s, node, p.items("bodyParameters", "parameters"), ct == "json" && node.version >= 4)
		}
		if v == nil {
			return
		}
		if ct == "form-urlencoded" {
			body.SetAttributeValue("body_type", cty.StringVal("form"))
		}
		body.SetAttributeRaw("body", clone(v))
	case "raw":
		body.SetAttributeValue("body_type", cty.StringVal("text"))
		body.SetAttributeRaw("body", clone(s.textValue(p.get("body"), "body")))
		*headers = append(*headers, member{Name: "content-type", Value: s.textValue(p.get("rawContentType"), "raw content type")})
	default:
		n.problem(node.where, p.get("contentType"), "Unsupported body",
			fmt.Sprintf("a %s body is not converted; JSON, form-urlencoded and raw bodies are.", ct))
	}
}

// formString reads a form body written as a query string.
func (n *n8n) formString(node *n8nNode, v *jv) expr {
	if v == nil || v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
		n.problem(node.where, v, "Unsupported body", "a form body written as text is converted when it is a literal query string.")
		return nil
	}
	q, err := url.ParseQuery(v.Str)
	if err != nil {
		n.problem(node.where, v, "Invalid form body", err.Error())
		return nil
	}
	var ms []member
	for _, k := range sortedKeys(q) {
		ms = append(ms, member{Name: k, Value: str(q.Get(k))})
	}
	return object(ms)
}

// nested builds an object of name/value pairs; with dots (lodash's set)
// a name like a.b is b inside a.
func (n *n8n) nested(s *n8nScope, node *n8nNode, pairs []*jv, dots bool) expr {
	type field struct {
		path  []string
		value expr
	}
	var fields []field
	for i, pair := range pairs {
		name := pair.str("name")
		if name == "" {
			continue
		}
		path := []string{name}
		if dots {
			if strings.ContainsAny(name, "[]") {
				n.problem(node.where, pair.get("name"), "Unsupported field name", "a name with [index] is not converted; use a.b for nested fields.")
				return nil
			}
			path = strings.Split(name, ".")
		}
		v := n.secretValue(path[len(path)-1], pair.get("value"), fmt.Sprintf("body field of n8n node %q:", node.name))
		if v == nil {
			v = s.value(pair.get("value"), fmt.Sprintf("body %d", i))
		}
		fields = append(fields, field{path, v})
	}
	var build func(fs []field) expr
	build = func(fs []field) expr {
		var ms []member
		for i := 0; i < len(fs); i++ {
			key := fs[i].path[0]
			if len(fs[i].path) == 1 {
				ms = append(ms, member{key, fs[i].value})
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
				ms = append(ms, member{key, build(sub)})
			}
		}
		return object(ms)
	}
	return build(fields)
}

// httpAuth applies the node's credential: its values become secrets
// named after the credential. It returns what to say of it.
func (n *n8n) httpAuth(node *n8nNode, s *n8nScope, headers, query *[]member) string {
	p := node.params
	switch p.str("authentication") {
	case "", "none":
		return ""
	case "genericCredentialType":
	default:
		n.problem(node.where, p.get("authentication"), "Unsupported credential",
			"a predefined credential type is not converted; a generic credential (basic, bearer, header or query auth) is.")
		return ""
	}
	kind := p.str("genericAuthType")
	cred := node.j.get("credentials", kind)
	credName := cred.str("name")
	if credName == "" {
		credName = kind
	}
	forWhat := func(part string) string {
		return fmt.Sprintf("the %s of n8n credential %q (%s), used by node %q", part, credName, kind, node.name)
	}
	switch kind {
	case "httpBearerAuth":
		sec := n.addSecret(credName, forWhat("token"), "")
		*headers = append(*headers, member{"authorization", template([]tpart{{Lit: "Bearer "}, {Expr: ref("secret", sec)}}, false)})
	case "httpBasicAuth":
		user := n.addSecret(credName+" user", forWhat("user"), "")
		pass := n.addSecret(credName+" password", forWhat("password"), "")
		pair := template([]tpart{{Expr: ref("secret", user)}, {Lit: ":"}, {Expr: ref("secret", pass)}}, false)
		*headers = append(*headers, member{"authorization", template([]tpart{{Lit: "Basic "}, {Expr: call("base64encode", pair)}}, false)})
	case "httpHeaderAuth", "httpQueryAuth":
		sec := n.addSecret(credName, forWhat("value"), "")
		in := n.name("input", credName+" name", "credential_name")
		where := "header"
		if kind == "httpQueryAuth" {
			where = "query parameter"
		}
		b := hclwrite.NewBlock("input", []string{in})
		b.Body().SetAttributeRaw("type", clone(code("string")))
		b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The %s name of n8n credential %q, which the workflow does not hold", where, credName)))
		n.file.inputs = append(n.file.inputs, decl{block: b})
		n.file.next = append(n.file.next, fmt.Sprintf("Give flow %s the %s name of n8n credential %q: --input %s=NAME (or edit the flow).", n.file.name, where, credName, in))
		m := member{"", object(nil)}
		m.Value = join("{ (", ref("input", in), ") = ", ref("secret", sec), " }")
		if kind == "httpHeaderAuth" {
			*headers = append(*headers, m)
		} else {
			*query = append(*query, m)
		}
	default:
		n.problem(node.where, p.get("genericAuthType"), "Unsupported credential",
			fmt.Sprintf("a %s credential is not converted; basic, bearer, header and query auth are.", kind))
	}
	return "credential " + credName
}
