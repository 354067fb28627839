package n8n

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// n8nCredShape is what a credential type adds to a request: its
// `authenticate` property in n8n's credentials/*.credentials.js (or, for
// the generic types, HttpRequestV3's own code). Header and query values
// are templates of the credential's fields, {field}; each field the
// request uses becomes a secret.
type n8nCredShape struct {
	headers, query [][2]string // name, value template
	// basic is Basic auth (axios's auth): the user's and the password's
	// templates.
	basic *[2]string
	// defaults are headers set only when the node does not set them under
	// that exact name (n8n checks the name as written).
	defaults [][2]string
	// suffix names each field's secret: the credential's name and the
	// suffix ("" for the credential's name alone). A field not listed is
	// named after itself, or the credential alone when it is the only one.
	suffix map[string]string
	oauth2 bool
	// note is a warning: what the credential may add that the flow does
	// not send.
	note string
}

func bearer(field string) n8nCredShape {
	return n8nCredShape{headers: [][2]string{{"Authorization", "Bearer {" + field + "}"}}}
}

func header(name, field string) n8nCredShape {
	return n8nCredShape{headers: [][2]string{{name, "{" + field + "}"}}}
}

func query(name, field string) n8nCredShape {
	return n8nCredShape{query: [][2]string{{name, "{" + field + "}"}}}
}

// n8nCredShapes are the credential types converted, by n8n's name: the
// generic ones of HTTP Request and the predefined ones whose request is
// headers, query parameters or Basic auth of the credential's fields.
// An OAuth2 type (a name ending in OAuth2Api or OAuth2) is a bearer
// token unless n8nOAuth2Refused says otherwise.
var n8nCredShapes = map[string]n8nCredShape{
	// HttpRequestV3: requestOptions.auth, headers.Authorization.
	"httpBearerAuth":   bearer("token"),
	"httpBasicAuth":    {basic: &[2]string{"{user}", "{password}"}, suffix: map[string]string{"user": "user", "password": "password"}},
	"oAuth2Api":        {oauth2: true},
	"airtableTokenApi": bearer("accessToken"),
	"calApi":           query("apiKey", "apiKey"),
	"clockifyApi":      header("X-Api-Key", "apiKey"),
	"cloudflareApi":    bearer("apiToken"),
	"erpNextApi":       {headers: [][2]string{{"Authorization", "token {apiKey}:{apiSecret}"}}},
	"facebookGraphApi": query("access_token", "accessToken"),
	"googlePalmApi":    query("key", "apiKey"),
	"hubspotAppToken":  bearer("appToken"),
	"lemlistApi":       {basic: &[2]string{"", "{apiKey}"}, headers: [][2]string{{"user-agent", "n8n"}}},
	"mistralCloudApi":  bearer("apiKey"),
	"n8nApi":           header("X-N8N-API-KEY", "apiKey"),
	"nocoDbApiToken":   header("xc-token", "apiToken"),
	"notionApi": {headers: [][2]string{{"Authorization", "Bearer {apiKey} "}},
		defaults: [][2]string{{"Notion-Version", "2022-02-22"}}},
	"openAiApi": {headers: [][2]string{{"Authorization", "Bearer {apiKey}"}},
		note: "the OpenAI credential's Organization ID and custom header, when it has them, are not sent: add them to the step's headers"},
	"pineconeApi":           header("Api-Key", "apiKey"),
	"qdrantApi":             header("api-key", "apiKey"),
	"qualysApi":             {headers: [][2]string{{"X-Requested-With", "{requestedWith}"}}, basic: &[2]string{"{username}", "{password}"}},
	"shopifyAccessTokenApi": header("X-Shopify-Access-Token", "accessToken"),
	"slackApi":              bearer("accessToken"),
	"supabaseApi":           {headers: [][2]string{{"apikey", "{serviceRole}"}, {"Authorization", "Bearer {serviceRole}"}}},
	"todoistApi":            bearer("apiKey"),
	"whatsAppApi":           bearer("accessToken"),
	"wordpressApi":          {basic: &[2]string{"{username}", "{password}"}},
}

// n8nOAuth2Refused are the OAuth2 types whose token HTTP Request sends
// otherwise than as a bearer token (getOAuth2AdditionalParameters).
var n8nOAuth2Refused = map[string]string{
	"clickUpOAuth2Api":           "ClickUp's token is sent without Bearer",
	"shopifyOAuth2Api":           "Shopify's token is sent as X-Shopify-Access-Token",
	"microsoftDynamicsOAuth2Api": "Dynamics sends the id_token, not the access token",
	"slackOAuth2Api":             "Slack sends the user's token (authed_user.access_token)",
}

// credShape is the shape of a credential type, and whether it has one.
func credShape(kind string) (n8nCredShape, string) {
	if s, ok := n8nCredShapes[kind]; ok {
		return s, ""
	}
	if strings.HasSuffix(kind, "OAuth2Api") || strings.HasSuffix(kind, "OAuth2") {
		if why := n8nOAuth2Refused[kind]; why != "" {
			return n8nCredShape{}, why
		}
		return n8nCredShape{oauth2: true}, ""
	}
	return n8nCredShape{}, "its request is not one flowctl import knows"
}

// httpAuth applies the node's credential: its values become secrets
// named after the credential. It returns what to say of it.
func (n *n8n) httpAuth(node *n8nNode, s *n8nScope, headers, query *[]importer.Member) string {
	p := node.params
	var kind string
	var at *importer.JV
	switch p.Text("authentication") {
	case "", "none":
		return ""
	case "genericCredentialType":
		kind, at = p.Text("genericAuthType"), p.Get("genericAuthType")
	case "predefinedCredentialType":
		kind, at = p.Text("nodeCredentialType"), p.Get("nodeCredentialType")
	default:
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			fmt.Sprintf("the authentication %q is neither a generic nor a predefined credential type.", p.Text("authentication")))
		return ""
	}
	if at == nil {
		at = p.Get("authentication")
	}
	cred := node.j.Get("credentials", kind)
	credName := cred.Text("name")
	if credName == "" {
		credName = kind
	}
	if kind == "httpCustomAuth" {
		return n.customAuth(node, at, cred, credName, headers, query)
	}
	shape, why := credShape(kind)
	switch {
	case kind == "httpHeaderAuth" || kind == "httpQueryAuth":
	case why != "":
		n.Problem(node.where, at, "Unsupported credential",
			fmt.Sprintf("a %s credential is not converted: %s. Generic basic, bearer, header, query and OAuth2 credentials are, and predefined types that set headers, query parameters or Basic auth (%s).", kind, why, credTypeNames()))
		return ""
	case shape.oauth2:
		shape = bearer("accessToken")
		shape.suffix = map[string]string{"accessToken": ""}
		n.Warn(node.where, at, "OAuth2 access token",
			fmt.Sprintf("the %s credential %q is OAuth2: its secret is the access token, sent as a bearer token as n8n sends it. n8n refreshes the token; the flow does not: set a fresh one when it expires.", kind, credName))
	}
	shape, ok := n.credDefaults(node, shape)
	if !ok {
		return ""
	}
	if shape.note != "" {
		n.Warn(node.where, at, "Credential option not sent", shape.note+".")
	}
	forWhat := func(part string) string {
		return fmt.Sprintf("the %s of n8n credential %q (%s)", part, credName, kind)
	}
	// One credential, one set of secrets, however many nodes use it.
	key := kind + "\x00" + cred.Text("id")
	if cred.Text("id") == "" {
		key += credName
	}
	secrets := func(parts ...string) []string {
		if got, ok := n.creds[key]; ok {
			return got
		}
		var names []string
		for _, part := range parts {
			name := credName
			if part != "token" && part != "value" {
				name += " " + part
			}
			names = append(names, n.AddSecret(name, forWhat(part), ""))
		}
		n.creds[key] = names
		return names
	}
	if kind == "httpHeaderAuth" || kind == "httpQueryAuth" {
		// The credential holds the header's (or parameter's) name as well
		// as its value: both are secrets, which a scheduled run has too.
		s := secrets("value", "name")
		m := importer.Member{Name: "", Value: importer.Join("{ (", importer.Ref("secret", s[1]), ") = ", importer.Ref("secret", s[0]), " }")}
		if kind == "httpHeaderAuth" {
			*headers = append(*headers, m)
		} else {
			*query = append(*query, m)
		}
		return "credential " + credName
	}
	n.applyShape(shape, key, credName, forWhat, headers, query)
	return "credential " + credName
}

// applyShape adds the shape's headers, query parameters and Basic auth,
// a secret for each field they use.
func (n *n8n) applyShape(shape n8nCredShape, key, credName string, forWhat func(string) string, headers, query *[]importer.Member) {
	var fields []string
	var all []string
	for _, h := range shape.headers {
		all = append(all, h[1])
	}
	for _, q := range shape.query {
		all = append(all, q[1])
	}
	if shape.basic != nil {
		all = append(all, shape.basic[0], shape.basic[1])
	}
	for _, t := range all {
		for _, part := range credTemplate(t) {
			if part.field != "" && !slices.Contains(fields, part.field) {
				fields = append(fields, part.field)
			}
		}
	}
	names, ok := n.creds[key]
	if !ok {
		for _, f := range fields {
			suffix, named := shape.suffix[f]
			if !named {
				suffix = f
				if len(fields) == 1 {
					suffix = ""
				}
			}
			name := credName
			if suffix != "" {
				name += " " + suffix
			}
			names = append(names, n.AddSecret(name, forWhat(f), ""))
		}
		n.creds[key] = names
	}
	value := func(t string) importer.Expr {
		var parts []importer.TPart
		for _, part := range credTemplate(t) {
			if part.field == "" {
				parts = append(parts, importer.TPart{Lit: part.lit})
				continue
			}
			for i, f := range fields {
				if f == part.field {
					parts = append(parts, importer.TPart{Expr: importer.Ref("secret", names[i])})
				}
			}
		}
		return importer.Template(parts, false)
	}
	var hs, qs []importer.Member
	for _, h := range shape.headers {
		hs = append(hs, importer.Member{Name: strings.ToLower(h[0]), Value: value(h[1])})
	}
	for _, d := range shape.defaults {
		hs = append(hs, importer.Member{Name: strings.ToLower(d[0]), Value: importer.Str(d[1])})
	}
	if shape.basic != nil {
		pair := value(shape.basic[0] + ":" + shape.basic[1])
		hs = append(hs, importer.Member{Name: "authorization", Value: importer.Template([]importer.TPart{{Lit: "Basic "}, {Expr: importer.Call("base64encode", pair)}}, false)})
	}
	for _, q := range shape.query {
		qs = append(qs, importer.Member{Name: q[0], Value: value(q[1])})
	}
	// The credential's values come last and win over the node's, as n8n
	// sets them last.
	*headers = append(*headers, hs...)
	*query = append(*query, qs...)
}

// credDefaults checks the headers a credential sets only when the node
// does not: n8n looks for the name as written, so a node that sets it in
// another case would send both, and JSON headers are not known before
// they are evaluated. The default is dropped when the node sets it.
func (n *n8n) credDefaults(node *n8nNode, shape n8nCredShape) (n8nCredShape, bool) {
	p := node.params
	for _, d := range shape.defaults {
		if !p.Boolean(false, "sendHeaders") {
			continue
		}
		if p.Text("specifyHeaders") == "json" {
			n.Problem(node.where, p.Get("jsonHeaders"), "Unsupported credential",
				fmt.Sprintf("the credential sets %s unless the node's headers do, which JSON headers say only when n8n evaluates them; give the headers as name/value pairs.", d[0]))
			return shape, false
		}
		for _, pair := range p.Items("headerParameters", "parameters") {
			name := pair.Text("name")
			if strings.EqualFold(name, d[0]) && name != d[0] {
				n.Problem(node.where, pair.Get("name"), "Unsupported credential",
					fmt.Sprintf("n8n sends this header and the credential's %s both; write its name %s.", d[0], d[0]))
				return shape, false
			}
		}
	}
	var keep [][2]string
	for _, d := range shape.defaults {
		set := false
		for _, pair := range p.Items("headerParameters", "parameters") {
			set = set || p.Boolean(false, "sendHeaders") && pair.Text("name") == d[0]
		}
		if !set {
			keep = append(keep, d)
		}
	}
	shape.defaults = keep
	return shape, true
}

type credPart struct{ lit, field string }

// credTemplate splits "Bearer {apiKey}" into its text and fields.
func credTemplate(t string) []credPart {
	var out []credPart
	for t != "" {
		i := strings.Index(t, "{")
		j := strings.Index(t, "}")
		if i < 0 || j < i {
			out = append(out, credPart{lit: t})
			break
		}
		if i > 0 {
			out = append(out, credPart{lit: t[:i]})
		}
		out = append(out, credPart{field: t[i+1 : j]})
		t = t[j+1:]
	}
	return out
}

// credTypeNames lists the predefined credential types converted.
func credTypeNames() string {
	var names []string
	for k := range n8nCredShapes {
		if !strings.HasPrefix(k, "http") && k != "oAuth2Api" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// customAuth applies a Custom Auth credential (httpCustomAuth): JSON of
// headers, qs and body that HttpRequestV3 spreads over the request's own
// (the credential's win). The JSON is one secret; the step merges its
// parts at run time (customAuthBody the body), header names in lower
// case so that the credential's win whatever their case, as they do in
// n8n's HTTP client.
func (n *n8n) customAuth(node *n8nNode, at, cred *importer.JV, credName string, headers, query *[]importer.Member) string {
	p := node.params
	why := ""
	switch {
	case node.typ != "httpRequest":
		why = "the HTTP Request Tool's flow does not merge the credential's body into its own"
	case p.Boolean(false, "sendBody") && p.Text("contentType") != "" && p.Text("contentType") != "json":
		why = fmt.Sprintf("n8n adds the credential's body beside a %s body, which an http step cannot send", p.Text("contentType"))
	}
	if why != "" {
		n.Problem(node.where, at, "Unsupported credential", "a Custom Auth credential is not converted here: "+why+".")
		return ""
	}
	sec := n.customAuthSecret(node, cred, credName)
	ref := importer.Ref("secret", sec)
	*headers = append(*headers, importer.Member{Value: importer.Join("{ for k, v in try(jsondecode(", ref, ").headers, {}) : lower(k) => v }")})
	*query = append(*query, importer.Member{Value: importer.Join("try(jsondecode(", ref, ").qs, {})")})
	return "credential " + credName
}

func (n *n8n) customAuthSecret(node *n8nNode, cred *importer.JV, credName string) string {
	key := "httpCustomAuth\x00" + cred.Text("id")
	if cred.Text("id") == "" {
		key += credName
	}
	if got, ok := n.creds[key]; ok {
		return got[0]
	}
	sec := n.AddSecret(credName, fmt.Sprintf("the JSON of n8n credential %q (httpCustomAuth): {\"headers\": {…}, \"qs\": {…}, \"body\": {…}}", credName), "")
	n.creds[key] = []string{sec}
	return sec
}

// customAuthBody merges a Custom Auth credential's body into the step's:
// over a JSON body, its members win; without one, it is the body (n8n
// sends it as JSON), and without either, none.
func (n *n8n) customAuthBody(node *n8nNode, body *hclwrite.Body) {
	p := node.params
	if p.Text("authentication") != "genericCredentialType" || p.Text("genericAuthType") != "httpCustomAuth" {
		return
	}
	cred := node.j.Get("credentials", "httpCustomAuth")
	credName := cred.Text("name")
	if credName == "" {
		credName = "httpCustomAuth"
	}
	ref := importer.Ref("secret", n.customAuthSecret(node, cred, credName))
	cb := importer.Join("try(jsondecode(", ref, ").body, {})")
	if a := body.GetAttribute("body"); a != nil {
		body.SetAttributeRaw("body", importer.Clone(importer.Call("merge", a.Expr().BuildTokens(nil), cb)))
		return
	}
	body.SetAttributeRaw("body", importer.Clone(importer.Join("try(jsondecode(", ref, ").body, null)")))
}
