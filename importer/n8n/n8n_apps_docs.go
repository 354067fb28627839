package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// docsOps are the operations of the Google Docs node v2
// (GoogleDocs.node.js) converted.
var docsOps = map[string][]string{"document": {"create", "get", "update"}}

// googleDocsNode is the Google Docs node v2 (OAuth2, its default), for
// each item: Document → Create, Get and Update with Text actions.
func (n *n8n) googleDocsNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.tooOld(node, "Google Docs", 2) {
		return nil
	}
	p := node.params
	call, ok := n.googleAuth(node, "Google Docs", "googleDocsOAuth2Api")
	if !ok {
		return nil
	}
	_, op, ok := n.appOperation(node, "Google Docs", "document", "create", docsOps)
	if !ok {
		return nil
	}
	s := n.appScope(node, in)
	call.flow = "google_docs_document_" + op
	switch op {
	case "create":
		call.what = "creates the document"
		call.args = []importer.Member{{Name: "title", Value: s.textValue(orEmpty(p.Get("title")), "title")}}
		if f := p.Get("folderId"); f != nil {
			call.args = append(call.args, importer.Member{Name: "folder_id", Value: s.textValue(f, "folder_id")})
		}
	case "get", "update":
		doc := p.Get("documentURL")
		if doc == nil || doc.Kind == 's' && strings.TrimPrefix(doc.Str, "=") == "" {
			n.Problem(node.where, orParams(doc, node), "Missing parameter", "the node has no Doc ID or URL; n8n fails on it too.")
			return nil
		}
		call.args = []importer.Member{{Name: "document", Value: s.textValue(doc, "document")}}
		if v := p.Get("simple"); v != nil {
			call.args = append(call.args, importer.Member{Name: "simple", Value: s.value(v, "simple")})
		}
		call.what = "gets the document"
		if op == "update" {
			call.what = "updates the document"
			if !n.docsActions(node, s, &call) {
				return nil
			}
		}
	}
	return n.appStep(node, in, s, call)
}

// docsActions reads Update's actions (actionsUi.actionFields) into the
// flow's actions: Text → Insert and Find and Replace Text, each field n8n's
// default where the node leaves it out (a text inserted at the end of
// the body); another object is refused. And the option Write Control.
func (n *n8n) docsActions(node *n8nNode, s *n8nScope, call *appCall) bool {
	p := node.params
	if p.Get("actionsUi", "actionFields") == nil {
		n.Problem(node.where, orParams(p.Get("actionsUi"), node), "Unsupported option", "Update without actions is not converted (n8n inserts an empty text).")
		return false
	}
	var actions []importer.Expr
	for i, a := range p.Items("actionsUi", "actionFields") {
		if o := a.Text("object"); o != "" && o != "text" {
			n.Problem(node.where, a.Get("object"), "Unsupported option", fmt.Sprintf("Update's %s actions are not converted; Text → Insert and Find and Replace Text are.", o))
			return false
		}
		action := a.Text("action")
		if action != "insert" && action != "replaceAll" {
			n.Problem(node.where, orParams(a.Get("action"), node), "Unsupported option", fmt.Sprintf("Update's text action %q is not converted; Insert and Find and Replace Text are.", action))
			return false
		}
		at := fmt.Sprintf("actions[%d].", i)
		field := func(k string, def *importer.JV) importer.Expr {
			v := a.Get(k)
			if v == nil {
				v = def
			}
			if def.Kind == 's' {
				return s.textValue(v, at+k)
			}
			return s.value(v, at+k)
		}
		str := func(x string) *importer.JV { return &importer.JV{Kind: 's', Str: x} }
		location, segment := importer.Expr(importer.Str("")), importer.Expr(importer.Str(""))
		var index, replace, match importer.Expr = importer.Code("1"), importer.Str(""), importer.Code("false")
		if action == "insert" {
			location = field("locationChoice", str("endOfSegmentLocation"))
			index = field("index", &importer.JV{Kind: 'n', Num: "1"})
			// segmentId: "" for the body (insertSegment body, the default).
			if seg := a.Text("insertSegment"); seg != "" && seg != "body" {
				segment = field("segmentId", str(""))
			}
		} else {
			replace = field("replaceText", str(""))
			match = field("matchCase", &importer.JV{Kind: 'b'})
		}
		actions = append(actions, importer.Object([]importer.Member{
			{Name: "action", Value: importer.Str(action)},
			{Name: "text", Value: field("text", str(""))},
			{Name: "location", Value: location},
			{Name: "segment_id", Value: segment},
			{Name: "index", Value: index},
			{Name: "replace_text", Value: replace},
			{Name: "match_case", Value: match},
		}))
	}
	call.args = append(call.args, importer.Member{Name: "actions", Value: importer.Tuple(actions)})
	if wc := p.Get("updateFields", "writeControlObject"); wc != nil && wc.Kind == 'o' && len(wc.Keys) > 0 {
		control := wc.Text("control")
		if control == "" {
			control = "requiredRevisionId"
		}
		if strings.HasPrefix(control, "=") {
			n.Problem(node.where, wc.Get("control"), "Unsupported expression", "Write Control's kind is converted when it is not an expression.")
			return false
		}
		call.args = append(call.args, importer.Member{Name: "write_control", Value: importer.Object([]importer.Member{{Name: control, Value: s.textValue(orEmpty(wc.Get("value")), "write_control")}})})
	} else if u := p.Get("updateFields"); u != nil && u.Kind == 'o' && len(u.Keys) > 0 {
		n.Problem(node.where, u, "Unsupported option", "Update's fields other than Write Control are not converted.")
		return false
	}
	return true
}
