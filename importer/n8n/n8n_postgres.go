package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/zclconf/go-cty/cty"
)

// postgresNode is the Postgres node v2's Execute Query: an sql step for
// each item (n8n runs the query once for each item), the query's {{ }}
// parts spliced into its text as n8n splices them (a query written as an
// expression; one that is not but holds {{ }} is refused), Query Parameters as
// the step's params as n8n reads them (text: comma-separated values,
// each trimmed; from v2.5 an expression's value whole when it is JSON),
// the credential a secret holding the server's URL. Its items are the
// rows of all the queries; none at all is one item {success = true}
// unless the query is a SELECT, as in n8n.
func (n *n8n) postgresNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if n.tooOld(node, "Postgres", 2) {
		return nil
	}
	if op := p.Text("operation"); op != "executeQuery" {
		if op == "" {
			op = "insert"
		}
		n.Problem(node.where, node.params, "Unsupported operation", fmt.Sprintf("the Postgres node's %s operation is not converted; Execute Query is.", op))
		return nil
	}
	if b := p.Text("options", "queryBatching"); b != "" && b != "single" {
		n.Problem(node.where, p.Get("options", "queryBatching"), "Unsupported option", fmt.Sprintf("Query Batching %q is not converted; a single query for all items is.", b))
		return nil
	}
	if p.Get("query") == nil || strings.TrimSpace(strings.TrimPrefix(p.Text("query"), "=")) == "" {
		n.Problem(node.where, node.params, "No query", "the Postgres node has no query; n8n fails the node on it too.")
		return nil
	}
	if q := p.Text("query"); !strings.HasPrefix(q, "=") && strings.Contains(q, "{{") {
		// n8n splices each {{ }} part's value into such a query with
		// JavaScript's String.replace: the value as JavaScript's String
		// gives it (an object is "[object Object]"), $$ and $& read as
		// replacement patterns — not what a template gives.
		n.Problem(node.where, p.Get("query"), "Unsupported query",
			"the query is not an expression (it does not start with =) but holds {{ }} parts, which n8n evaluates and splices in with JavaScript's String.replace (a value as JavaScript's String() writes it, $ patterns of the value read as replacement patterns); only a query written as an expression, or without {{ }}, is converted.")
		return nil
	}
	cred := node.j.Get("credentials", "postgres")
	credName := cred.Text("name")
	if credName == "" {
		credName = "postgres"
	}
	key := "postgres\x00" + cred.Text("id") + "\x00" + credName
	if _, ok := n.creds[key]; !ok {
		n.creds[key] = []string{n.AddSecret(credName, fmt.Sprintf("the postgres://USER:PASSWORD@HOST:PORT/DATABASE URL of n8n credential %q (postgres)", credName), "")}
	}
	secret := n.creds[key][0]
	s := n.scope(node, in, true)
	query := s.textValue(p.Get("query"), "query")
	params, ok := n.postgresParams(node, s, p.Get("options", "queryReplacement"))
	if !ok {
		return nil
	}
	b, body := importer.NewStep(node.step, "sql")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("url", importer.Clone(importer.Ref("secret", secret)))
	body.SetAttributeRaw("query", importer.Clone(query))
	if params != nil {
		body.SetAttributeRaw("params", importer.Clone(params))
	}
	body.SetAttributeValue("cache", cty.False)
	n.retry(node, body)
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": its query, once for each item", b)
	rows := importer.Join("flatten(", importer.Ref("step", node.step), "[*].rows)")
	empty := importer.Code("[{ success = true }]")
	if selectQuery.MatchString(strings.TrimPrefix(p.Text("query"), "=")) {
		empty = importer.Code("[]")
	}
	items := importer.Join("length(", rows, ") > 0 ? ", rows, " : ", empty)
	local := n.Name("local", node.name, node.step)
	n.File.Locals = append(n.File.Locals, local2(
		fmt.Sprintf("The items of n8n node %q: the rows of its queries (none at all: %s, as in n8n).", node.name, strings.TrimSpace(string(empty.Bytes()))),
		local, items))
	return []n8nItems{{e: importer.Ref("local", local)}}
}

// selectQuery is n8n's test of a query that gives no success item.
var selectQuery = regexp.MustCompile(`(?i)^\s*select\b`)

// postgresParams reads Query Parameters as n8n does.
func (n *n8n) postgresParams(node *n8nNode, s *n8nScope, raw *importer.JV) (importer.Expr, bool) {
	if raw == nil || raw.Kind == 's' && strings.TrimPrefix(raw.Str, "=") == "" {
		return nil, true
	}
	if raw.Kind != 's' {
		n.Problem(node.where, raw, "Unsupported option", "Query Parameters are converted when they are text.")
		return nil, false
	}
	text := strings.TrimLeft(raw.Str, "=")
	split := func(e importer.Expr) importer.Expr {
		return importer.Join("[for v in split(\",\", ", e, ") : trimspace(v) if trimspace(v) != \"\"]")
	}
	chunks := splitN8N(text)
	var codes []n8nChunk
	for _, c := range chunks {
		if c.code {
			codes = append(codes, c)
		}
	}
	if len(codes) == 0 || !strings.HasPrefix(raw.Str, "=") {
		return split(importer.Str(text)), true
	}
	if node.version < 2.5 {
		n.Problem(node.where, raw, "Unsupported option", "Query Parameters with expressions are converted from Postgres v2.5.")
		return nil, false
	}
	// From v2.5 each {{ }} part is a value, or values split at commas
	// when its text is not JSON; the text between the parts is left out.
	var lists []importer.Expr
	for i, c := range codes {
		v := s.value(&importer.JV{Kind: 's', Str: "={{" + c.text + "}}", Ptr: raw.Ptr, Rng: raw.Rng}, fmt.Sprintf("query parameter %d", i+1))
		text := importer.Join("(", v, " == null ? \"null\" : try(tostring(", v, "), jsonencode(", v, ")))")
		lists = append(lists, importer.Join("can(jsondecode(", text, ")) ? [", text, "] : ", split(text)))
	}
	return importer.Call("flatten", importer.Tuple(lists)), true
}
