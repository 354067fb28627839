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
	"sheet": {"read"},
}

// googleSheetsNode is the Google Sheets node from v3: n8n's router reads
// the spreadsheet and the sheet at the first item, then runs the
// operation (Get Row(s): once for each item from v4.2, its filters
// read at the item).
func (n *n8n) googleSheetsNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.tooOld(node, "Google Sheets", 3) {
		return nil
	}
	p := node.params
	if a := p.Text("authentication"); a != "" && a != "oAuth2" {
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			"the Google Sheets node's "+a+" authentication is not converted; OAuth2 is.")
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
	call := appCall{cred: "googleSheetsOAuth2Api", oauth2: true, first: first,
		args: []importer.Member{{Name: "document_id", Value: doc}, {Name: "sheet", Value: sheet}}}
	if by != "id" {
		call.args = append(call.args, importer.Member{Name: "sheet_by", Value: importer.Str(by)})
	}
	switch op {
	case "read":
		return n.sheetsRead(node, in, first, call)
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
				importer.Member{Name: "header_row", Value: importer.Call("tonumber", s.textValue(orDefault(loc.Get("headerRow"), "1"), "header_row"))},
				importer.Member{Name: "first_data_row", Value: importer.Call("tonumber", s.textValue(orDefault(loc.Get("firstDataRow"), "2"), "first_data_row"))})
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
				{Name: "lookupValue", Value: s.textValue(orDefault(f.Get("lookupValue"), ""), fmt.Sprintf("filter_%d_value", i+1))},
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

// orDefault is v, or the parameter's default when the node leaves it
// out.
func orDefault(v *importer.JV, def string) *importer.JV {
	if v != nil {
		return v
	}
	return &importer.JV{Kind: 's', Str: def}
}
