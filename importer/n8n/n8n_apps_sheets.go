package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// sheetsOps are the operations of the Google Sheets node v3 and v4
// (GoogleSheetsV2.node.js) converted, by resource.
var sheetsOps = map[string][]string{
	"sheet": {"append", "appendOrUpdate", "read", "update"},
}

// googleSheetsNode is the Google Sheets node from v3: n8n's router reads
// the spreadsheet and the sheet at the first item, then runs the
// operation (Get Row(s): once for each item from v4.2, its filters
// read at the item).
func (n *n8n) googleSheetsNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.tooOld(node, "Google Sheets", 3) {
		return nil
	}
	call, ok := n.googleAuth(node, "Google Sheets", "googleSheetsOAuth2Api")
	if !ok {
		return nil
	}
	_, op, ok := n.appOperation(node, "Google Sheets", "sheet", "read", sheetsOps)
	if !ok {
		return nil
	}
	first := n.scope(node, in, false) // the router's item 0
	doc, ok := n.sheetsDocument(node, first)
	if !ok {
		return nil
	}
	sheet, by, ok := n.sheetsSheet(node, first)
	if !ok {
		return nil
	}
	call.scopes = []*n8nScope{first}
	call.args = []importer.Member{{Name: "document_id", Value: doc}, {Name: "sheet", Value: sheet}}
	if by != "id" {
		call.args = append(call.args, importer.Member{Name: "sheet_by", Value: importer.Str(by)})
	}
	switch op {
	case "read":
		return n.sheetsRead(node, in, first, call)
	case "append":
		return n.sheetsAppend(node, in, call)
	case "update", "appendOrUpdate":
		return n.sheetsUpdate(node, in, call, op == "appendOrUpdate")
	}
	return nil
}

// sheetsDocument is the spreadsheet's ID: the Document's value (a URL's
// ID as n8n's getSpreadsheetId finds it).
func (n *n8n) sheetsDocument(node *n8nNode, s *n8nScope) (importer.Expr, bool) {
	rl := node.params.Get("documentId")
	mode, v := rlValue(rl)
	if v == nil || v.Kind == 's' && strings.TrimPrefix(v.Str, "=") == "" {
		n.Problem(node.where, orParams(rl, node), "No document", "the node names no spreadsheet; n8n fails the node on it too.")
		return nil, false
	}
	value := s.textValue(v, "document_id")
	if mode != "url" {
		return value, true
	}
	if v.Kind == 's' && !strings.HasPrefix(v.Str, "=") {
		id := spreadsheetURLID.FindString(v.Str)
		if id == "" {
			n.Problem(node.where, v, "No document", "the Document's URL holds no spreadsheet ID; n8n fails the node on it too.")
			return nil, false
		}
		return importer.Str(id), true
	}
	return importer.Call("regex", importer.Str(spreadsheetURLID.String()), value), true
}

// spreadsheetURLID finds the ID in a spreadsheet's URL (getSpreadsheetId).
var spreadsheetURLID = regexp.MustCompile(`[-\w]{25,}`)

// sheetsSheet is the sheet: its ID (n8n's list and ID modes: "gid=0" or
// the number) or its title (name mode).
func (n *n8n) sheetsSheet(node *n8nNode, s *n8nScope) (importer.Expr, string, bool) {
	rl := node.params.Get("sheetName")
	mode, v := rlValue(rl)
	if v == nil || v.Kind == 's' && strings.TrimPrefix(v.Str, "=") == "" {
		n.Problem(node.where, orParams(rl, node), "No sheet", "the node names no sheet; n8n fails the node on it too.")
		return nil, "", false
	}
	switch mode {
	case "list", "id", "":
		return s.textValue(v, "sheet"), "id", true
	case "name":
		return s.textValue(v, "sheet"), "name", true
	}
	n.Problem(node.where, rl.Get("mode"), "Unsupported option", fmt.Sprintf("a sheet given by %s is not converted; by ID, from the list or by name is.", mode))
	return nil, "", false
}

// rlValue is a resource locator's mode and value ({__rl, mode, value}),
// or a plain value's.
func rlValue(rl *importer.JV) (string, *importer.JV) {
	if rl == nil {
		return "", nil
	}
	if rl.Kind == 'o' {
		return rl.Text("mode"), rl.Get("value")
	}
	return "", rl
}

func orParams(v *importer.JV, node *n8nNode) *importer.JV {
	if v != nil {
		return v
	}
	return node.params
}

// sheetsRead is Get Row(s): the rows of the sheet, those the filters
// match (filtersUI) when the node has some. From v4.2 once for each
// item, its filters and options read at the item; before, once.
func (n *n8n) sheetsRead(node *n8nNode, in n8nItems, first *n8nScope, call appCall) []n8nItems {
	p := node.params
	v := node.version
	filters := p.Items("filtersUI", "values")
	if v <= 4.1 && len(filters) > 0 {
		// n8n reads the filters of every item and looks them all up once.
		n.Problem(node.where, p.Get("filtersUI"), "Unsupported version", "Get Row(s) with filters is converted from Google Sheets v4.2, which reads them for each item.")
		return nil
	}
	s := n.appScope(node, in)
	call.flow, call.what, call.once = "google_sheets_read_rows", "reads the rows of the sheet", v <= 4.1
	loc := p.Get("options", "dataLocationOnSheet", "values")
	if loc != nil {
		switch def := loc.Text("rangeDefinition"); def {
		case "", "detectAutomatically":
			if u := loc.Text("readRowsUntil"); u != "" && u != "lastRowInSheet" {
				call.args = append(call.args, importer.Member{Name: "read_rows_until", Value: s.textValue(loc.Get("readRowsUntil"), "read_rows_until")})
			}
		case "specifyRange":
			call.args = append(call.args, importer.Member{Name: "range_definition", Value: importer.Str(def)},
				importer.Member{Name: "header_row", Value: importer.Call("tonumber", s.textValue(jvOrDefault(loc.Get("headerRow"), "1"), "header_row"))},
				importer.Member{Name: "first_data_row", Value: importer.Call("tonumber", s.textValue(jvOrDefault(loc.Get("firstDataRow"), "2"), "first_data_row"))})
		case "specifyRangeA1":
			call.args = append(call.args, importer.Member{Name: "range_definition", Value: importer.Str(def)},
				importer.Member{Name: "range", Value: s.textValue(loc.Get("range"), "range")})
		default:
			n.Problem(node.where, loc.Get("rangeDefinition"), "Unsupported option", fmt.Sprintf("the range definition %q is none of n8n's.", def))
			return nil
		}
	}
	if f := p.Get("options", "outputFormatting", "values"); f != nil {
		if g := f.Get("general"); g != nil {
			call.args = append(call.args, importer.Member{Name: "value_render", Value: s.textValue(g, "value_render")})
		}
		if d := f.Get("date"); d != nil {
			call.args = append(call.args, importer.Member{Name: "date_render", Value: s.textValue(d, "date_render")})
		}
	}
	if len(filters) > 0 {
		var list []importer.Expr
		for i, f := range filters {
			list = append(list, importer.Object([]importer.Member{
				{Name: "lookupColumn", Value: s.textValue(f.Get("lookupColumn"), fmt.Sprintf("filter_%d_column", i+1))},
				{Name: "lookupValue", Value: s.textValue(jvOrDefault(f.Get("lookupValue"), ""), fmt.Sprintf("filter_%d_value", i+1))},
			}))
		}
		call.args = append(call.args, importer.Member{Name: "filters", Value: importer.Tuple(list)})
		combine := "OR"
		if v >= 4.3 {
			combine = "AND"
		}
		if c := p.Text("combineFilters"); c != "" {
			combine = c
		}
		if combine != "AND" {
			call.args = append(call.args, importer.Member{Name: "combine_filters", Value: importer.Str(combine)})
		}
		// The rows the filters give: v4.5's Return Only First Matching
		// Row (from v4.6 the first row of all, before it the first of
		// each filter); before v4.5, Return All Matches.
		match := "all"
		if v >= 4.5 {
			if p.Boolean(false, "options", "returnFirstMatch") {
				match = "first_per_filter"
				if v >= 4.6 {
					match = "first"
				}
			}
		} else if p.Text("options", "returnAllMatches") != "returnAllMatches" {
			match = "first_per_filter"
		}
		if match != "all" {
			call.args = append(call.args, importer.Member{Name: "match", Value: importer.Str(match)})
		}
	}
	return n.appStep(node, in, s, call)
}

// jvOrDefault is v, or the parameter's default when the node leaves it
// out.
func jvOrDefault(v *importer.JV, def string) *importer.JV {
	if v != nil {
		return v
	}
	return &importer.JV{Kind: 's', Str: def}
}

// sheetsAppend is Append Row from v4: once for all the items, the rows
// the node's columns map for each item (defineBelow) or the items
// themselves (autoMapInputData); the items are those rows, or the items,
// each paired with its input item.
func (n *n8n) sheetsAppend(node *n8nNode, in n8nItems, call appCall) []n8nItems {
	p := node.params
	if n.tooOld(node, "Google Sheets' Append Row", 4) {
		return nil
	}
	s := n.appScope(node, in)
	call.flow, call.what, call.once = "google_sheets_append_rows", "appends the rows", true
	opts := p.Get("options")
	if opts != nil {
		for _, k := range opts.Keys {
			switch k {
			case "cellFormat", "useAppend", "locationDefine", "handlingExtraData":
			default:
				n.Problem(node.where, opts.Get(k), "Unsupported option", fmt.Sprintf("Append Row's option %s is not converted; Cell Format, Use Append, Header Row and Handling Extra Data are.", k))
				return nil
			}
		}
	}
	rows, mode, ok := n.sheetsRows(node, in, &call, true)
	if !ok {
		return nil
	}
	call.args = append(call.args, importer.Member{Name: "rows", Value: rows})
	if mode != "defineBelow" {
		call.args = append(call.args, importer.Member{Name: "mapping_mode", Value: importer.Str(mode)})
	}
	if h := p.Get("options", "locationDefine", "values", "headerRow"); h != nil {
		call.args = append(call.args, importer.Member{Name: "header_row", Value: importer.Call("tonumber", s.textValue(h, "header_row"))})
	}
	if f := p.Get("options", "cellFormat"); f != nil {
		v := s.textValue(f, "cell_format")
		call.args = append(call.args, importer.Member{Name: "cell_format", Value: v}, importer.Member{Name: "header_format", Value: v})
	} else if node.version < 4.1 {
		call.args = append(call.args, importer.Member{Name: "cell_format", Value: importer.Str("RAW")})
	}
	if p.Boolean(false, "options", "useAppend") {
		call.args = append(call.args, importer.Member{Name: "use_append", Value: importer.Code("true")})
	}
	if h := p.Get("options", "handlingExtraData"); h != nil {
		call.args = append(call.args, importer.Member{Name: "handling_extra_data", Value: s.textValue(h, "handling_extra_data")})
	}
	step := importer.Ref("step", node.step)
	call.paired = importer.Join("range(length(flatten([for r in ", step, " : r.items])))")
	return n.appStep(node, in, s, call)
}

// sheetsRows are the rows of Append Row, Update Row and Append or Update
// Row: for defineBelow, the object of the node's columns for each item
// (n8n's mapFields: columns.value read at the item; a column typed other
// than string is refused, n8n's validation may change its value); for
// autoMapInputData, the items. With schema, from v4.4, the node's
// columns are passed for the check Append Row makes of the header.
func (n *n8n) sheetsRows(node *n8nNode, in n8nItems, call *appCall, schema bool) (importer.Expr, string, bool) {
	cols := node.params.Get("columns")
	mode := cols.Text("mappingMode")
	switch mode {
	case "autoMapInputData":
		return in.e, mode, true
	case "defineBelow":
	default:
		n.Problem(node.where, orParams(cols, node), "Unsupported option", fmt.Sprintf("the column mapping mode %q is not converted; Map Each Column Manually and Map Automatically are.", mode))
		return nil, "", false
	}
	value := cols.Get("value")
	if value == nil || value.Kind != 'o' || len(value.Keys) == 0 {
		n.Problem(node.where, orParams(value, node), "Unsupported option", "the node maps no column; n8n fails the node on it too (\"At least one value has to be added under 'Values to Send'\").")
		return nil, "", false
	}
	types := map[string]string{}
	var ids []importer.Expr
	for _, e := range cols.Items("schema") {
		types[e.Text("id")] = e.Text("type")
		ids = append(ids, importer.Str(e.Text("id")))
	}
	all := n.scope(node, in, true)
	s := all.forItem()
	var ms []importer.Member
	for _, k := range value.Keys {
		if t := types[k]; t != "" && t != "string" {
			n.Problem(node.where, value.Get(k), "Unsupported option", fmt.Sprintf("column %q is typed %s: n8n validates its value as that type, which may change it; columns typed string are converted.", k, t))
			return nil, "", false
		}
		ms = append(ms, importer.Member{Name: k, Value: s.value(value.Get(k), "column "+k)})
	}
	call.scopes = append(call.scopes, all)
	if schema && node.version >= 4.4 && len(ids) > 0 {
		call.args = append(call.args, importer.Member{Name: "schema", Value: importer.Tuple(ids)})
	}
	return importer.Join("[for i, item in ", in.e, " : ", importer.Object(ms), "]"), mode, true
}

// sheetsUpdate is Update Row from v4, Map Each Column Manually: once for
// all the items, the cells of each row's columns in the row whose column
// to match on holds the row's value there, written with one
// values:batchUpdate; the items are the rows mapped (none when no cell is
// written), each paired with its input item.
//
// Append or Update Row (upsert) is the same, the rows no row matches
// appended after the last row (an empty sheet is a run-time error: n8n
// then maps the items' fields in their order, which a flow does not
// know), from v4.4 the header checked against the node's columns; its
// items are all the rows mapped.
func (n *n8n) sheetsUpdate(node *n8nNode, in n8nItems, call appCall, upsert bool) []n8nItems {
	p := node.params
	if n.tooOld(node, "Google Sheets' Update Row", 4) {
		return nil
	}
	s := n.appScope(node, in)
	call.flow, call.what, call.once = "google_sheets_update_rows", "updates the rows", true
	if upsert {
		call.flow, call.what = "google_sheets_append_or_update_rows", "updates the rows, appends the others"
	}
	if opts := p.Get("options"); opts != nil {
		for _, k := range opts.Keys {
			switch k {
			case "cellFormat", "locationDefine":
			default:
				n.Problem(node.where, opts.Get(k), "Unsupported option", fmt.Sprintf("Update Row's option %s is not converted; Cell Format and the header and first data rows are.", k))
				return nil
			}
		}
	}
	if m := p.Text("columns", "mappingMode"); m != "defineBelow" {
		n.Problem(node.where, orParams(p.Get("columns", "mappingMode"), node), "Unsupported option", fmt.Sprintf("Update Row's column mapping mode %q is not converted; Map Each Column Manually is.", m))
		return nil
	}
	match := p.Items("columns", "matchingColumns")
	if len(match) == 0 || match[0].Kind != 's' || match[0].Str == "" || strings.HasPrefix(match[0].Str, "=") {
		n.Problem(node.where, orParams(p.Get("columns", "matchingColumns"), node), "Unsupported option", "Update Row needs a column to match on, a name; n8n fails the node without one.")
		return nil
	}
	rows, _, ok := n.sheetsRows(node, in, &call, upsert)
	if !ok {
		return nil
	}
	call.args = append(call.args, importer.Member{Name: "rows", Value: rows}, importer.Member{Name: "match_column", Value: importer.Str(match[0].Str)})
	if h := p.Get("options", "locationDefine", "values", "headerRow"); h != nil {
		call.args = append(call.args, importer.Member{Name: "header_row", Value: importer.Call("tonumber", s.textValue(h, "header_row"))})
	}
	if f := p.Get("options", "locationDefine", "values", "firstDataRow"); f != nil {
		call.args = append(call.args, importer.Member{Name: "first_data_row", Value: importer.Call("tonumber", s.textValue(f, "first_data_row"))})
	}
	if f := p.Get("options", "cellFormat"); f != nil {
		call.args = append(call.args, importer.Member{Name: "cell_format", Value: s.textValue(f, "cell_format")})
	} else if node.version < 4.1 {
		call.args = append(call.args, importer.Member{Name: "cell_format", Value: importer.Str("RAW")})
	}
	if node.version >= 4.6 && !upsert {
		call.args = append(call.args, importer.Member{Name: "check_row_number", Value: importer.Code("true")})
	}
	step := importer.Ref("step", node.step)
	call.paired = importer.Join("range(length(flatten([for r in ", step, " : r.items])))")
	return n.appStep(node, in, s, call)
}
