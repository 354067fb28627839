package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// airtableOps are the operations of the Airtable node v2
// (AirtableV2.node.js) converted, by resource.
var airtableOps = map[string][]string{
	"record": {"search"},
}

// n8n's extractValue of the base and the table given By URL.
var (
	airtableBaseURL  = regexp.MustCompile(`https://airtable.com/([a-zA-Z0-9]{2,})`)
	airtableTableURL = regexp.MustCompile(`https://airtable.com/[a-zA-Z0-9]{2,}/([a-zA-Z0-9]{2,})`)
)

// airtableNode is the Airtable node v2: each operation a flow of the
// registry, called once for each item as n8n runs the operation for each
// item (from v2.1), on the credential's token. n8n reads the base and the
// table for the first item, for all.
func (n *n8n) airtableNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.tooOld(node, "Airtable", 2) {
		return nil
	}
	p := node.params
	resource, op, ok := n.appOperation(node, "Airtable", "record", "get", airtableOps)
	if !ok {
		return nil
	}
	call := appCall{cred: "airtableTokenApi", holds: "the personal access token"}
	switch a := p.Text("authentication"); a {
	case "", "airtableTokenApi":
	case "airtableOAuth2Api":
		call = appCall{cred: a, holds: "an OAuth2 access token", oauth2: true}
	default:
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			fmt.Sprintf("the Airtable node's %s authentication is not converted; an access token and OAuth2 are.", a))
		return nil
	}
	first := n.scope(node, in, false)
	base := n.locatorValue(node, first, p.Get("base"), "base", airtableBaseURL, "")
	table := n.locatorValue(node, first, p.Get("table"), "table", airtableTableURL, "")
	if base == nil || table == nil {
		return nil
	}
	s := n.appScope(node, in)
	switch resource + " " + op {
	case "record search":
		args, ok := n.airtableSearch(node, s)
		if !ok {
			return nil
		}
		call.flow, call.what, call.args = "airtable_record_search", "searches the table's records", args
	}
	call.args = append([]importer.Member{{Name: "base", Value: base}, {Name: "table", Value: table}}, call.args...)
	first.flush()
	return n.appStep(node, in, s, call)
}

// airtableSearch reads Search's parameters as search.operation does: the
// formula, Return All (n8n's default) or a limit, and the options fields,
// view and sort.
func (n *n8n) airtableSearch(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	if node.version < 2.1 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version",
			"Airtable v2's Search runs once for the first item only; v2.1 and later, which search for each item, are converted.")
		return nil, false
	}
	var args []importer.Member
	if f := p.Get("filterByFormula"); f != nil && !(f.Kind == 's' && f.Str == "") {
		args = append(args, importer.Member{Name: "filter_by_formula", Value: s.textValue(f, "filter_by_formula")})
	}
	if !p.Boolean(true, "returnAll") {
		limit := p.Get("limit")
		if limit == nil {
			limit = &importer.JV{Kind: 'n', Num: "100"} // n8n's default
		}
		args = append(args, importer.Member{Name: "limit", Value: s.value(limit, "limit")})
	}
	opts := p.Get("options")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		switch k {
		case "fields":
			switch {
			case v.Kind == 's' && !strings.HasPrefix(v.Str, "="):
				var list []importer.Expr
				for _, f := range strings.Split(v.Str, ",") {
					list = append(list, importer.Str(strings.TrimSpace(f)))
				}
				args = append(args, importer.Member{Name: "fields", Value: importer.Tuple(list)})
			case v.Kind == 's':
				e := s.value(v, "fields")
				args = append(args, importer.Member{Name: "fields", Value: importer.Join("try([for f in split(\",\", ", e, ") : trimspace(f)], ", e, ")")})
			default:
				args = append(args, importer.Member{Name: "fields", Value: n.appJSON(s, v, "fields", nil)})
			}
		case "view":
			if val := v.Get("value"); val != nil && !(val.Kind == 's' && val.Str == "") {
				args = append(args, importer.Member{Name: "view", Value: s.textValue(val, "view")})
			}
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of Search is not converted.", k))
			return nil, false
		}
	}
	if sort := p.Items("sort", "property"); len(sort) > 0 {
		var list []importer.Expr
		for i, f := range sort {
			dir := f.Get("direction")
			if dir == nil {
				dir = &importer.JV{Kind: 's', Str: "asc"} // n8n's default
			}
			list = append(list, importer.Object([]importer.Member{
				{Name: "field", Value: s.textValue(f.Get("field"), fmt.Sprintf("sort %d", i+1))},
				{Name: "direction", Value: s.textValue(dir, fmt.Sprintf("sort %d direction", i+1))},
			}))
		}
		args = append(args, importer.Member{Name: "sort", Value: importer.Tuple(list)})
	}
	return args, true
}
