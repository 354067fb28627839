package n8n

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// notionOps are the operations of the Notion node v2 (NotionV2.node.js)
// converted, by resource.
var notionOps = map[string][]string{
	"databasePage": {"create", "get", "getAll", "update"},
}

// notionFilterValues are the value field of a Get Many filter condition
// by the property's type, and n8n's default for it
// (DatabasePageDescription.js, filters.conditions): the field mapFilters
// reads. A type without a value field (files) reads none.
var notionFilterValues = map[string][2]string{
	"title": {"titleValue", `""`}, "rich_text": {"richTextValue", `""`}, "phone_number": {"phoneNumberValue", `""`},
	"multi_select": {"multiSelectValue", "[]"}, "select": {"selectValue", `""`}, "status": {"statusValue", `""`},
	"email": {"emailValue", `""`}, "url": {"urlValue", `""`}, "people": {"peopleValue", `""`},
	"created_by": {"createdByValue", `""`}, "last_edited_by": {"lastEditedByValue", `""`},
	"relation": {"relationValue", `""`}, "checkbox": {"checkboxValue", "false"}, "number": {"numberValue", "0"},
	"files": {"", ""},
}

// notionFormulaValues are a formula condition's value field by its
// return type, and n8n's default.
var notionFormulaValues = map[string][2]string{
	"text": {"textValue", `""`}, "number": {"numberValue", "0"}, "checkbox": {"checkboxValue", "false"},
}

// notionNode is the Notion node v2: each operation a flow of the
// registry, called once for each item as n8n calls the API for each
// item, with the credential's API key as the flow's secret.
func (n *n8n) notionNode(node *n8nNode, in n8nItems) []n8nItems {
	if node.version < 2 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version",
			"Notion v2 and later are converted; v1 filters and simplifies pages its own way.")
		return nil
	}
	resource, op, ok := n.appOperation(node, "Notion", "page", "create", notionOps)
	if !ok {
		return nil
	}
	s := n.appScope(node, in)
	call := appCall{cred: "notionApi"}
	var args []importer.Member
	switch resource + " " + op {
	case "databasePage getAll":
		args, ok = n.notionGetMany(node, s)
		call.flow, call.what = "notion_database_page_get_many", "gets the database's pages"
	case "databasePage get":
		var id importer.Expr
		if id, ok = n.notionPageID(node, s); ok {
			args = []importer.Member{{Name: "page_id", Value: id}}
			if v := node.params.Get("simple"); v != nil {
				args = append(args, importer.Member{Name: "simple", Value: s.value(v, "simple")})
			}
		}
		call.flow, call.what = "notion_database_page_get", "gets the database page"
	case "databasePage create":
		args, ok = n.notionCreate(node, s)
		call.flow, call.what = "notion_database_page_create", "creates the database page"
	case "databasePage update":
		args, ok = n.notionUpdate(node, s)
		call.flow, call.what = "notion_database_page_update", "updates the database page"
	}
	if !ok {
		return nil
	}
	call.args = args
	return n.appStep(node, in, s, call)
}

// notionLiteral reads a parameter n8n reads at the first item (the
// filter type, Simplify…): written out, not an expression, else an
// error at it.
func (n *n8n) notionLiteral(node *n8nNode, name, def string, kind byte) (*importer.JV, bool) {
	v := node.params.Get(name)
	if v == nil {
		return &importer.JV{Kind: kind, Str: def, Bool: def == "true"}, true
	}
	if v.Kind != kind || kind == 's' && strings.HasPrefix(v.Str, "=") {
		n.Problem(node.where, v, "Unsupported expression",
			fmt.Sprintf("the parameter %s is converted when it is written out: n8n reads it at the first item for all of them.", name))
		return nil, false
	}
	return v, true
}

// notionDatabaseID reads the node's database (a resource locator by ID or
// from the list, or an ID as v2 has it).
func (n *n8n) notionDatabaseID(node *n8nNode, s *n8nScope, param string) (importer.Expr, bool) {
	mode, v := rlValue(node.params.Get(param))
	if v == nil || v.Kind == 's' && strings.TrimPrefix(v.Str, "=") == "" {
		n.Problem(node.where, orParams(node.params.Get(param), node), "Missing parameter", "the node names no database; n8n fails on it too.")
		return nil, false
	}
	if mode != "" && mode != "list" && mode != "id" {
		n.Problem(node.where, node.params.Get(param, "mode"), "Unsupported parameter",
			fmt.Sprintf("the database given by %s is not converted: n8n extracts the ID from it with its own pattern; give it by ID.", mode))
		return nil, false
	}
	return s.value(v, "database_id"), true
}

// notionGetMany reads Get Many's parameters (NotionV2.node.js
// databasePage getAll): the database, Return All or the limit (n8n's 50),
// the filters built manually (conditions) or as JSON, the sort, and
// Simplify.
func (n *n8n) notionGetMany(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	db, ok := n.notionDatabaseID(node, s, "databaseId")
	if !ok {
		return nil, false
	}
	args := []importer.Member{{Name: "database_id", Value: db}}
	returnAll := p.Get("returnAll")
	if returnAll != nil {
		args = append(args, importer.Member{Name: "return_all", Value: s.value(returnAll, "return_all")})
	}
	if returnAll == nil || returnAll.Kind != 'b' || !returnAll.Bool {
		if limit := p.Get("limit"); limit != nil {
			args = append(args, importer.Member{Name: "limit", Value: s.value(limit, "limit")})
		}
	}
	simple, ok := n.notionLiteral(node, "simple", "true", 'b')
	if !ok {
		return nil, false
	}
	if !simple.Bool {
		args = append(args, importer.Member{Name: "simple", Value: importer.Code("false")})
	}
	filterType, ok := n.notionLiteral(node, "filterType", "none", 's')
	if !ok {
		return nil, false
	}
	switch filterType.Str {
	case "none":
	case "json":
		args = append(args, importer.Member{Name: "filter_type", Value: importer.Str("json")},
			importer.Member{Name: "filter_json", Value: s.value(p.Get("filterJson"), "filter_json")})
	case "manual":
		match, ok := n.notionLiteral(node, "matchType", "anyFilter", 's')
		if !ok {
			return nil, false
		}
		conds, ok := n.notionConditions(node, s)
		if !ok {
			return nil, false
		}
		args = append(args, importer.Member{Name: "filter_type", Value: importer.Str("manual")},
			importer.Member{Name: "match_type", Value: importer.Str(match.Str)},
			importer.Member{Name: "conditions", Value: conds})
	default:
		n.Problem(node.where, p.Get("filterType"), "Unsupported option", fmt.Sprintf("the filter type %q is not one n8n's node has.", filterType.Str))
		return nil, false
	}
	opts := p.Get("options")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		switch k {
		case "downloadFiles":
			if v.Kind == 'b' && !v.Bool {
				continue
			}
			n.Problem(node.where, v, "Unsupported option", "Download Files is not converted: the pages' files would be binary data, which the flow does not carry.")
			return nil, false
		case "sort":
			var sorts []importer.Expr
			for _, r := range v.Items("sortValue") {
				ms := []importer.Member{
					{Name: "key", Value: s.value(orText(r.Get("key"), ""), "key")},
					{Name: "direction", Value: s.value(orText(r.Get("direction"), ""), "direction")},
					{Name: "timestamp", Value: s.value(orBool(r.Get("timestamp")), "timestamp")},
				}
				sorts = append(sorts, importer.Object(ms))
			}
			if v.Get("sortValue") != nil {
				args = append(args, importer.Member{Name: "sort", Value: importer.Tuple(sorts)})
			}
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of Get Many is not one n8n's node v2 reads.", k))
			return nil, false
		}
	}
	return args, true
}

// notionKey reads the NAME|TYPE key of a condition or property: written
// out, with a type of types.
func (n *n8n) notionKey(node *n8nNode, c *importer.JV, what string, types map[string][2]string) (string, bool) {
	key := c.Get("key")
	if key == nil || key.Kind != 's' || strings.HasPrefix(key.Str, "=") || !strings.Contains(key.Str, "|") {
		n.Problem(node.where, orParams(key, node), "Unsupported parameter",
			fmt.Sprintf("the %s's key is converted when it names a property and its type (NAME|TYPE), written out.", what))
		return "", false
	}
	typ := strings.SplitN(key.Str, "|", 3)[1]
	if _, known := types[typ]; !known {
		list := importer.SortedKeys(types)
		n.Problem(node.where, key, "Unsupported parameter",
			fmt.Sprintf("the %s is on a property of type %q, which is not converted (n8n reads dates in the workflow's time zone with moment-timezone); %s are.", what, typ, strings.Join(list, ", ")))
		return "", false
	}
	return typ, true
}

// notionConditions are the manual filters as n8n reads them for an item:
// each its key, type, condition and the value field of its type, n8n's
// default when the node leaves it out.
func (n *n8n) notionConditions(node *n8nNode, s *n8nScope) (importer.Expr, bool) {
	types := map[string][2]string{"formula": {}}
	for k, v := range notionFilterValues {
		types[k] = v
	}
	var conds []importer.Expr
	for _, c := range node.params.Items("filters", "conditions") {
		typ, ok := n.notionKey(node, c, "filter condition", types)
		if !ok {
			return nil, false
		}
		ms := []importer.Member{
			{Name: "key", Value: importer.Str(c.Text("key"))},
			{Name: "type", Value: importer.Str(typ)},
			{Name: "condition", Value: s.value(orText(c.Get("condition"), ""), "condition")},
		}
		field := notionFilterValues[typ]
		if typ == "formula" {
			rt := c.Get("returnType")
			f, known := notionFormulaValues[c.Text("returnType")]
			if rt == nil || rt.Kind != 's' || !known {
				n.Problem(node.where, orParams(rt, node), "Unsupported parameter",
					"a formula condition is converted when its return type is written out as text, number or checkbox (n8n reads dates with moment-timezone).")
				return nil, false
			}
			field = f
			ms = append(ms, importer.Member{Name: "returnType", Value: importer.Str(rt.Str)})
		}
		if field[0] != "" {
			v := c.Get(field[0])
			val := importer.Code(field[1])
			if v != nil {
				val = s.value(v, field[0])
			}
			ms = append(ms, importer.Member{Name: field[0], Value: val})
		}
		conds = append(conds, importer.Object(ms))
	}
	return importer.Tuple(conds), true
}

// orText is v, or the text def when the node leaves it out.
func orText(v *importer.JV, def string) *importer.JV {
	if v == nil {
		return &importer.JV{Kind: 's', Str: def}
	}
	return v
}

// orBool is v, or false when the node leaves it out.
func orBool(v *importer.JV) *importer.JV {
	if v == nil {
		return &importer.JV{Kind: 'b'}
	}
	return v
}

// notionPropertyFields are the fields of a property value mapProperties
// reads, by the property's type, each with n8n's default
// (DatabasePageDescription.js, propertiesUi.propertyValues). Dates are
// not converted (moment-timezone in the workflow's time zone), nor rich
// text written as rich text (getTexts' annotations).
var notionPropertyFields = map[string][2]string{
	"title": {"title", `""`}, "rich_text": {"textContent", `""`}, "phone_number": {"phoneValue", `""`},
	"multi_select": {"multiSelectValue", "[]"}, "select": {"selectValue", `""`}, "status": {"statusValue", `""`},
	"email": {"emailValue", `""`}, "url": {"urlValue", `""`}, "people": {"peopleValue", "[]"},
	"relation": {"relationValue", "[]"}, "checkbox": {"checkboxValue", "false"}, "number": {"numberValue", "0"},
	"files": {"fileUrls", "{}"},
}

// notionProperties are the property values of Create and Update as n8n
// reads them for an item: each its key, type and the fields of its type,
// n8n's defaults when the node leaves them out.
func (n *n8n) notionProperties(node *n8nNode, s *n8nScope) (importer.Expr, bool) {
	var props []importer.Expr
	for _, c := range node.params.Items("propertiesUi", "propertyValues") {
		typ, ok := n.notionKey(node, c, "property value", notionPropertyFields)
		if !ok {
			return nil, false
		}
		ms := []importer.Member{
			{Name: "key", Value: importer.Str(c.Text("key"))},
			{Name: "type", Value: importer.Str(typ)},
		}
		field := notionPropertyFields[typ]
		switch typ {
		case "rich_text":
			if rt := c.Get("richText"); rt != nil && !(rt.Kind == 'b' && !rt.Bool) {
				n.Problem(node.where, rt, "Unsupported option", "a property written as rich text is not converted (n8n's getTexts: annotations, links, mentions); its text content is.")
				return nil, false
			}
		case "url":
			ms = append(ms, importer.Member{Name: "ignoreIfEmpty", Value: s.value(orBool(c.Get("ignoreIfEmpty")), "ignoreIfEmpty")})
		}
		v := c.Get(field[0])
		val := importer.Code(field[1])
		if v != nil {
			val = s.value(v, field[0])
		}
		ms = append(ms, importer.Member{Name: field[0], Value: val})
		props = append(props, importer.Object(ms))
	}
	return importer.Tuple(props), true
}

// notionUpdate reads Update's parameters (NotionV2.node.js databasePage
// update): the page by ID, the property values, the icon option, and
// Simplify, all read at each item.
func (n *n8n) notionUpdate(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	id, ok := n.notionPageID(node, s)
	if !ok {
		return nil, false
	}
	props, ok := n.notionProperties(node, s)
	if !ok {
		return nil, false
	}
	args := []importer.Member{{Name: "page_id", Value: id}, {Name: "properties", Value: props}}
	if v := p.Get("simple"); v != nil {
		args = append(args, importer.Member{Name: "simple", Value: s.value(v, "simple")})
	}
	opts := p.Get("options")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		if !slices.Contains([]string{"icon", "iconType"}, k) {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of Update is not one n8n's node reads.", k))
			return nil, false
		}
		name := map[string]string{"icon": "icon", "iconType": "icon_type"}[k]
		args = append(args, importer.Member{Name: name, Value: s.value(v, name)})
	}
	return args, true
}

// notionPageID reads the node's page (getPageId), given by ID: n8n
// extracts one given by URL with its own pattern.
func (n *n8n) notionPageID(node *n8nNode, s *n8nScope) (importer.Expr, bool) {
	p := node.params
	mode, id := rlValue(p.Get("pageId"))
	if id == nil || id.Kind == 's' && strings.TrimPrefix(id.Str, "=") == "" {
		n.Problem(node.where, orParams(p.Get("pageId"), node), "Missing parameter", "the node names no page; n8n fails on it too.")
		return nil, false
	}
	if mode != "id" {
		n.Problem(node.where, p.Get("pageId"), "Unsupported parameter",
			"the page is converted when it is given by ID: n8n extracts it from a URL with its own pattern.")
		return nil, false
	}
	return s.value(id, "page_id"), true
}

// notionCreate reads Create's parameters (NotionV2.node.js databasePage
// create): the database, written out (n8n finds its title property in
// the first item's database), the title, the property values, the icon
// option and Simplify; blocks are not converted.
func (n *n8n) notionCreate(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	db, ok := n.notionDatabaseID(node, s, "databaseId")
	if !ok {
		return nil, false
	}
	if _, v := rlValue(p.Get("databaseId")); v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
		n.Problem(node.where, v, "Unsupported expression", "Create's database is converted when it is written out: n8n finds the title property in the first item's database for all the items.")
		return nil, false
	}
	if b := p.Items("blockUi", "blockValues"); len(b) > 0 {
		n.Problem(node.where, p.Get("blockUi"), "Unsupported option", "Create's blocks are not converted (n8n's formatBlocks); the page's properties are.")
		return nil, false
	}
	props, ok := n.notionProperties(node, s)
	if !ok {
		return nil, false
	}
	args := []importer.Member{{Name: "database_id", Value: db}, {Name: "properties", Value: props}}
	if v := p.Get("title"); v != nil {
		args = append(args, importer.Member{Name: "title", Value: s.value(v, "title")})
	}
	if v := p.Get("simple"); v != nil {
		args = append(args, importer.Member{Name: "simple", Value: s.value(v, "simple")})
	}
	opts := p.Get("options")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		if k != "icon" && k != "iconType" {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of Create is not one n8n's node reads.", k))
			return nil, false
		}
		name := map[string]string{"icon": "icon", "iconType": "icon_type"}[k]
		args = append(args, importer.Member{Name: name, Value: s.value(v, name)})
	}
	return args, true
}
