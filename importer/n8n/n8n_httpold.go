package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// HTTP Request v1, v2 (n8n's HttpRequestV1, HttpRequestV2) and v3 (the
// class of v4, before v4's changes). v1 and v2 parameters are read into
// v4's shape, which httpRequest converts; what the old versions do
// otherwise (their answers: JSON, text, a file) is converted here.

// httpOld reads an older HTTP Request's parameters into v4's shape
// (node.params), and returns how to make its items from the steps'
// answers (nil: as v4 does); false when the node is not converted.
func (n *n8n) httpOld(node *n8nNode) (answers func(step string) importer.Expr, ok bool) {
	p := node.params
	if node.version >= 3 {
		if r := p.Get("options", "redirect", "redirect"); r == nil || !r.Boolean(false, "followRedirects") {
			n.Warn(node.where, p.Get("options"), "Redirects followed",
				"HTTP Request v3 follows no redirect unless its Redirects option says so (n8n fails on a redirect); the flow's request follows them.")
		}
		return nil, true
	}
	at := func(k string) *importer.JV {
		if v := p.Get(k); v != nil {
			return v
		}
		return p
	}
	str := func(s string, like *importer.JV) *importer.JV {
		return &importer.JV{Kind: 's', Str: s, Ptr: like.Ptr, Rng: like.Rng}
	}
	boolean := func(b bool, like *importer.JV) *importer.JV {
		return &importer.JV{Kind: 'b', Bool: b, Ptr: like.Ptr, Rng: like.Rng}
	}
	out := &importer.JV{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: p.Ptr, Rng: p.Rng}
	set := func(obj *importer.JV, k string, v *importer.JV) {
		if _, had := obj.Obj[k]; !had {
			obj.Keys = append(obj.Keys, k)
		}
		obj.Obj[k] = v
	}
	obj := func(like *importer.JV) *importer.JV {
		return &importer.JV{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: like.Ptr, Rng: like.Rng}
	}
	bad := func(at *importer.JV, what string) (func(string) importer.Expr, bool) {
		n.Problem(node.where, at, "Unsupported option", what+" is not converted.")
		return nil, false
	}
	if u := p.Get("url"); u != nil {
		set(out, "url", u)
	}
	set(out, "method", str(strings.ToUpper(orDefault(p.Text("requestMethod"), "GET")), at("requestMethod")))
	opts := p.Get("options")
	if opts == nil {
		opts = obj(p)
	}
	newOpts := obj(opts)
	set(out, "options", newOpts)
	// n8n's HTTP Request v1 and v2 wait an hour unless told otherwise.
	set(newOpts, "timeout", &importer.JV{Kind: 'n', Num: "3600000", Ptr: opts.Ptr, Rng: opts.Rng})
	bodyType := ""
	for _, k := range opts.Keys {
		v := opts.Obj[k]
		switch k {
		case "timeout", "proxy":
			set(newOpts, k, v)
		case "batchSize", "batchInterval", "useQueryString", "splitIntoItems":
			// Batches only wait between requests; the query is written
			// as a string of its pairs either way.
		case "bodyContentType":
			bodyType = v.Str
		case "followRedirect", "followAllRedirects":
			if v.Kind == 'b' && !v.Bool {
				return bad(v, "Not following redirects")
			}
		case "ignoreResponseCode":
			if v.Kind != 'b' || v.Bool {
				return bad(v, "Ignore Response Code (a status of 400 or more as a result)")
			}
		case "fullResponse":
			if v.Kind != 'b' || v.Bool {
				return bad(v, "Full Response (the headers and status)")
			}
		default:
			return bad(v, "The option "+k)
		}
	}
	if v := p.Get("allowUnauthorizedCerts"); v != nil && !(v.Kind == 'b' && !v.Bool) {
		set(newOpts, "allowUnauthorizedCerts", v)
	}
	if v := p.Get("sendBinaryData"); v != nil && !(v.Kind == 'b' && !v.Bool) {
		n.Problem(node.where, v, "Unsupported body", "a body of binary data is not converted.")
		return nil, false
	}
	// Authentication: v1 names the credential's type, v2 as v4 does.
	if a := p.Get("authentication"); a != nil {
		if node.version >= 2 {
			for _, k := range []string{"authentication", "genericAuthType", "nodeCredentialType"} {
				if v := p.Get(k); v != nil {
					set(out, k, v)
				}
			}
		} else if a.Str != "none" {
			generic := map[string]string{"basicAuth": "httpBasicAuth", "digestAuth": "httpDigestAuth", "headerAuth": "httpHeaderAuth",
				"queryAuth": "httpQueryAuth", "oAuth1": "oAuth1Api", "oAuth2": "oAuth2Api"}[a.Str]
			if generic == "" {
				n.Problem(node.where, a, "Unsupported credential", fmt.Sprintf("the authentication %q is none of HTTP Request v1's.", a.Str))
				return nil, false
			}
			set(out, "authentication", str("genericCredentialType", a))
			set(out, "genericAuthType", str(generic, a))
		}
	}
	// Query, headers and body: name/value pairs, or JSON.
	if p.Boolean(false, "jsonParameters") {
		for _, x := range []struct{ old, send, specify, json string }{
			{"queryParametersJson", "sendQuery", "specifyQuery", "jsonQuery"},
			{"headerParametersJson", "sendHeaders", "specifyHeaders", "jsonHeaders"},
			{"bodyParametersJson", "sendBody", "specifyBody", "jsonBody"},
		} {
			v := p.Get(x.old)
			if v == nil || v.Kind == 's' && v.Str == "" {
				continue
			}
			set(out, x.send, boolean(true, v))
			set(out, x.specify, str("json", v))
			set(out, x.json, v)
		}
	} else {
		for _, x := range []struct{ old, send, params string }{
			{"queryParametersUi", "sendQuery", "queryParameters"},
			{"headerParametersUi", "sendHeaders", "headerParameters"},
			{"bodyParametersUi", "sendBody", "bodyParameters"},
		} {
			v := p.Get(x.old, "parameter")
			if v == nil {
				continue
			}
			if x.old == "queryParametersUi" {
				seen := map[string]bool{}
				for _, q := range v.Arr {
					if seen[q.Text("name")] {
						n.Problem(node.where, q.Get("name"), "Unsupported option", "a query parameter given twice (n8n sends a list) is not converted.")
						return nil, false
					}
					seen[q.Text("name")] = true
				}
			}
			set(out, x.send, boolean(true, v))
			params := obj(v)
			set(params, "parameters", v)
			set(out, x.params, params)
		}
	}
	if out.Obj["sendBody"] != nil {
		switch bodyType {
		case "", "json":
		case "form-urlencoded":
			set(out, "contentType", str("form-urlencoded", opts.Get("bodyContentType")))
		default:
			n.Problem(node.where, opts.Get("bodyContentType"), "Unsupported body",
				fmt.Sprintf("a %s body of HTTP Request v%d is not converted; JSON and form-urlencoded bodies are.", bodyType, int(node.version)))
			return nil, false
		}
	}
	// The answer: JSON (one item, or with Split Into Items one for each
	// element of an array), or text in a field.
	format := orDefault(p.Text("responseFormat"), "json")
	split := opts.Boolean(false, "splitIntoItems")
	switch format {
	case "string":
		resp := obj(opts)
		r := obj(opts)
		set(r, "responseFormat", str("text", at("responseFormat")))
		set(r, "outputPropertyName", str(orDefault(p.Text("dataPropertyName"), "data"), at("dataPropertyName")))
		set(resp, "response", r)
		set(newOpts, "response", resp)
		answers = nil
	case "json":
		answers = func(step string) importer.Expr {
			notJSON := importer.Call("tonumber", importer.Str(fmt.Sprintf("n8n node %q: the answer is not JSON, on which HTTP Request v%d fails", node.name, int(node.version))))
			per := importer.Join("concat([for b in [r.body] : b if b != r.text], [for b in [r.body] : ", notJSON, " if b == r.text])")
			if split {
				return importer.Join("flatten([for r in ", importer.Ref("step", step), " : ", per, "])")
			}
			return importer.Join("[for r in ", importer.Ref("step", step), " : ", per, "[0]]")
		}
	case "file":
		// A download, as v4's file answer (httpFileResponse reads its
		// type as these versions do). With another method, or a body,
		// n8n sends the body as JSON text (a GET's too), with a
		// Content-Type of its own for POST, PUT and PATCH.
		if m := out.Text("method"); m != "GET" || out.Obj["sendBody"] != nil {
			n.Problem(node.where, at("responseFormat"), "Unsupported option",
				fmt.Sprintf("the response format \"file\" is converted for a GET without a body: then HTTP Request v%d sends the body as JSON text, with a Content-Type of its own for POST, PUT and PATCH.", int(node.version)))
			return nil, false
		}
		resp := obj(opts)
		r := obj(opts)
		set(r, "responseFormat", str("file", at("responseFormat")))
		set(r, "outputPropertyName", str(orDefault(p.Text("dataPropertyName"), "data"), at("dataPropertyName")))
		set(resp, "response", r)
		set(newOpts, "response", resp)
		answers = nil
	default:
		n.Problem(node.where, at("responseFormat"), "Unsupported option", fmt.Sprintf("the response format %q is not converted.", format))
		return nil, false
	}
	node.params = out
	return answers, true
}

// httpRequestOf is HTTP Request of any version: an older one's parameters
// read into v4's shape, its answers made into items as it makes them.
func (n *n8n) httpRequestOf(node *n8nNode, in n8nItems) []n8nItems {
	if node.version >= 4 {
		return n.httpRequest(node, in)
	}
	answers, ok := n.httpOld(node)
	if !ok {
		return nil
	}
	locals := len(n.File.Locals)
	items := n.httpRequest(node, in)
	if items == nil || answers == nil || len(n.File.Locals) != locals+1 {
		return items
	}
	// The items of the answers: each request's answer (an item, or with
	// Split Into Items one for each element), which pairs with its item.
	l := &n.File.Locals[locals]
	l.Comment = fmt.Sprintf("The items of n8n node %q: each answer, which HTTP Request v%d reads as JSON (failing on another).", node.name, int(node.version))
	l.Value = answers(node.step)
	paired := importer.Join("flatten([for k, r in ", importer.Ref("step", node.step), " : [for e in flatten([[r.body]]) : k]])")
	if !node.params.Boolean(false, "options", "splitIntoItems") {
		paired = nil
	}
	return []n8nItems{pairedWith(importer.Ref("local", l.Name), in, paired)}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
