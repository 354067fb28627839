package n8n

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// airtableOps are the operations of the Airtable node v2
// (AirtableV2.node.js) converted, by resource.
var airtableOps = map[string][]string{
	"record": {"search", "create", "update", "get"},
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
	call := appCall{cred: "airtableTokenApi"}
	switch a := p.Text("authentication"); a {
	case "", "airtableTokenApi":
	case "airtableOAuth2Api":
		call = appCall{cred: a, oauth2: true}
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
	case "record get":
		// get.operation: the record's ID for each item; Download
		// Attachments (binary data) is not converted.
		id := p.Get("id")
		if id == nil || id.Kind == 's' && strings.TrimPrefix(id.Str, "=") == "" {
			n.Problem(node.where, orParams(id, node), "Missing parameter", "the node has no record id; n8n fails on it too.")
			return nil
		}
		opts := p.Get("options")
		for _, k := range keysOf(opts) {
			n.Problem(node.where, opts.Get(k), "Unsupported option", fmt.Sprintf("Get's option %s is not converted (attachments downloaded are binary data).", k))
			return nil
		}
		call.flow, call.what = "airtable_record_get", "gets the record"
		call.args = []importer.Member{{Name: "id", Value: s.value(id, "id")}}
	case "record create", "record update":
		args, ok := n.airtableWrite(node, s, op)
		if !ok {
			return nil
		}
		call.flow, call.args = "airtable_record_"+op, args
		call.what = map[string]string{"create": "creates the record", "update": "updates the record"}[op]
	}
	call.args = append([]importer.Member{{Name: "base", Value: base}, {Name: "table", Value: table}}, call.args...)
	call.scopes = []*n8nScope{first}
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

// airtableWrite reads Create's and Update's columns as create.operation
// and update.operation do: the fields defined below, each converted to
// its column's type as n8n's resource mapper converts it
// (validateFieldType), or the item's fields (Map Automatically); Update
// matches on the record's id. Typecast is the option's.
func (n *n8n) airtableWrite(node *n8nNode, s *n8nScope, op string) ([]importer.Member, bool) {
	p := node.params
	if node.version < 2.1 && op == "update" {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version", "Airtable's Update is converted from v2.1.")
		return nil, false
	}
	cols := p.Get("columns")
	var match []string
	for _, m := range cols.Items("matchingColumns") {
		match = append(match, m.Text())
	}
	if op == "update" && !slices.Contains(match, "id") {
		n.Problem(node.where, cols.Get("matchingColumns"), "Unsupported option",
			fmt.Sprintf("an Update matching records on %q (which reads the whole table to find them) is not converted; matching on the record's id is.", strings.Join(match, ", ")))
		return nil, false
	}
	opts := p.Get("options")
	var args []importer.Member
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		switch {
		case k == "typecast":
			args = append(args, importer.Member{Name: "typecast", Value: importer.Call("tobool", s.value(v, "typecast"))})
		case k == "ignoreFields" && v.Kind == 's' && v.Str == "":
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of %s is not converted.", k, op))
			return nil, false
		}
	}
	var fields importer.Expr
	var id importer.Expr
	switch mode := cols.Text("mappingMode"); mode {
	case "autoMapInputData":
		fields = importer.Code("each.value")
		if op == "update" {
			id = importer.Code("each.value.id")
			fields = importer.Code(`{ for k, v in each.value : k => v if k != "id" }`)
		}
	case "defineBelow":
		types := map[string]string{}
		for _, f := range cols.Items("schema") {
			types[f.Text("id")] = f.Text("type")
		}
		var ms []importer.Member
		values := cols.Get("value")
		for _, k := range keysOf(values) {
			v, ok := n.airtableValue(node, s, values.Get(k), types[k], k)
			if !ok {
				return nil, false
			}
			if op == "update" && k == "id" {
				id = v
				continue
			}
			ms = append(ms, importer.Member{Name: k, Value: v})
		}
		fields = importer.Object(ms)
	default:
		n.Problem(node.where, cols.Get("mappingMode"), "Unsupported mode", fmt.Sprintf("the columns' mapping mode %q is not one n8n has.", mode))
		return nil, false
	}
	if op == "update" {
		if id == nil {
			n.Problem(node.where, cols, "Missing parameter", "the Update matches on the record's id and gives none; n8n fails on it too.")
			return nil, false
		}
		args = append(args, importer.Member{Name: "id", Value: importer.Call("tostring", id)})
	}
	return append(args, importer.Member{Name: "fields", Value: fields}), true
}

// airtableValue is a column's value as n8n's resource mapper gives it
// for the column's type (validateFieldType, neither strict nor parsing
// strings): text and options as they are, a number as JavaScript's
// Number() reads it, a boolean as tryToParseBoolean. Other types (dates,
// which n8n turns into luxon dates, arrays, objects) are converted when
// the value is null.
func (n *n8n) airtableValue(node *n8nNode, s *n8nScope, v *importer.JV, typ, name string) (importer.Expr, bool) {
	if v == nil || v.Kind == 'z' || v.Kind == 0 {
		return importer.Code("null"), true
	}
	expr := v.Kind == 's' && strings.HasPrefix(v.Str, "=")
	switch typ {
	case "", "string", "options":
		return s.value(v, name), true
	case "number":
		switch {
		case v.Kind == 'n':
			return s.value(v, name), true
		case v.Kind == 's' && !expr:
			t := strings.TrimSpace(v.Str)
			if t == "" {
				return importer.Code("0"), true
			}
			if f, err := strconv.ParseFloat(t, 64); err == nil {
				return importer.Code(strconv.FormatFloat(f, 'f', -1, 64)), true
			}
			n.Problem(node.where, v, "Invalid value", fmt.Sprintf("the column %q is a number, and %q is not one: n8n fails on it too.", name, v.Str))
			return nil, false
		case expr:
			return importer.Call("tonumber", s.value(v, name)), true
		}
	case "boolean":
		switch {
		case v.Kind == 'b':
			return s.value(v, name), true
		case expr:
			e := s.value(v, name)
			t := importer.Call("lower", importer.Call("tostring", e))
			return importer.Join("(", t, ` == "true" ? true : `, t, ` == "false" ? false : `, importer.Call("tonumber", e), " == 1 ? true : ", importer.Call("tonumber", e), " == 0 ? false : ", importer.Call("tobool", e), ")"), true
		case v.Kind == 's' && (strings.EqualFold(v.Str, "true") || strings.TrimSpace(v.Str) == "1"):
			return importer.Code("true"), true
		case v.Kind == 's' && (strings.EqualFold(v.Str, "false") || strings.TrimSpace(v.Str) == "0"):
			return importer.Code("false"), true
		case v.Kind == 'n' && (v.Num == "0" || v.Num == "1"):
			return importer.Code(strconv.FormatBool(v.Num == "1")), true
		}
		n.Problem(node.where, v, "Invalid value", fmt.Sprintf("the column %q is a boolean, and this is not one: n8n fails on it too.", name))
		return nil, false
	}
	n.Problem(node.where, v, "Unsupported field type",
		fmt.Sprintf("the column %q is of type %s, whose values n8n converts (a date into a luxon date, text into an array or object); text, number, boolean and option columns are converted.", name, typ))
	return nil, false
}

// airtablePerItem reports whether an Airtable node gives the same items
// for a Loop Over Items made one pass as batch by batch: it reads its
// base and table for the first item, the same in every batch when they
// are not expressions.
func airtablePerItem(node *n8nNode) bool {
	for _, k := range []string{"base", "table"} {
		v := node.params.Get(k)
		if v != nil && v.Kind == 'o' {
			v = v.Get("value")
		}
		if v != nil && v.Kind == 's' && strings.HasPrefix(v.Str, "=") {
			return false
		}
	}
	return true
}
