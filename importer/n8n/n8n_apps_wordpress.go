package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// wordpressOps are the operations of the WordPress node v1
// (Wordpress.node.js) converted, by resource.
var wordpressOps = map[string][]string{
	"post": {"create", "get", "getAll", "update"},
}

// wordpressPostFields are Create Post's additional fields n8n sends, by
// the parameter's name: the request's field.
var wordpressPostFields = map[string]string{
	"authorId": "author", "content": "content", "slug": "slug", "password": "password",
	"status": "status", "commentStatus": "comment_status", "pingStatus": "ping_status",
	"sticky": "sticky", "categories": "categories", "tags": "tags", "format": "format", "date": "date",
}

// wordpressNode is the WordPress node v1: each operation a flow of the
// registry, called once for each item as n8n calls the REST API for each
// item, on the credential's site, user and password (Basic auth), which
// are the flow's three secrets.
func (n *n8n) wordpressNode(node *n8nNode, in n8nItems) []n8nItems {
	resource, op, ok := n.appOperation(node, "WordPress", "post", "create", wordpressOps)
	if !ok {
		return nil
	}
	p := node.params
	s := n.appScope(node, in)
	call := appCall{cred: "wordpressApi"}
	switch resource + " " + op {
	case "post create":
		// The title is read as it is (n8n's default ""); each additional
		// field goes to the flow, which sends those whose value
		// JavaScript holds true, as the node does.
		args := []importer.Member{{Name: "title", Value: s.value(orEmpty(p.Get("title")), "title")}}
		fields, ok := n.wordpressPostFields(node, s, "additionalFields", "Create Post")
		if !ok {
			return nil
		}
		call.flow, call.what, call.args = "wordpress_post_create", "creates the post", append(args, fields...)
	case "post update":
		id := p.Get("postId")
		if id == nil || id.Kind == 's' && strings.TrimPrefix(id.Str, "=") == "" {
			n.Problem(node.where, orParams(id, node), "Missing parameter", "the node has no Post ID; n8n fails on it too.")
			return nil
		}
		args := []importer.Member{{Name: "post_id", Value: s.value(id, "post_id")}}
		fields, ok := n.wordpressPostFields(node, s, "updateFields", "Update Post")
		if !ok {
			return nil
		}
		call.flow, call.what, call.args = "wordpress_post_update", "updates the post", append(args, fields...)
	case "post get":
		args, ok := n.wordpressPostGet(node, s)
		if !ok {
			return nil
		}
		call.flow, call.what, call.args = "wordpress_post_get", "gets the post", args
	case "post getAll":
		args, ok := n.wordpressPostGetMany(node, s)
		if !ok {
			return nil
		}
		call.flow, call.what, call.args = "wordpress_post_get_many", "gets the posts", args
	}
	return n.appStep(node, in, s, call)
}

// wordpressPostFields reads Create Post's additional fields or Update
// Post's update fields (param): each goes to the flow, which sends those
// whose value JavaScript holds true, as the node does; the post
// template's whenever the option is there.
func (n *n8n) wordpressPostFields(node *n8nNode, s *n8nScope, param, op string) ([]importer.Member, bool) {
	var args []importer.Member
	fields := node.params.Get(param)
	for _, k := range keysOf(fields) {
		v := fields.Get(k)
		if k == "postTemplate" {
			// n8n reads postTemplate.values.template, "" without it.
			if v.Kind != 'o' {
				n.Problem(node.where, v, "Unsupported expression", "the Post Template option is converted when it is written out, not an expression.")
				return nil, false
			}
			t := orEmpty(v.Get("values", "template"))
			args = append(args, importer.Member{Name: "template", Value: s.value(t, "template")})
			continue
		}
		name, known := wordpressPostFields[k]
		if k == "title" && param == "updateFields" {
			name, known = "title", true
		}
		if !known {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the field %s of %s is not one n8n's node sends.", k, op))
			return nil, false
		}
		args = append(args, importer.Member{Name: name, Value: s.value(v, name)})
	}
	return args, true
}

// orEmpty is v, or the empty text when the node leaves it out.
func orEmpty(v *importer.JV) *importer.JV {
	if v == nil {
		return &importer.JV{Kind: 's', Str: ""}
	}
	return v
}

// wordpressPostGet reads Get Post's parameters: the post's ID, and the
// options Password and Context. n8n keeps the query of one item for the
// next ones (it is the node's, not the item's), so an option that is an
// expression, which may be empty for a later item, is refused: its
// value could differ from n8n's.
func (n *n8n) wordpressPostGet(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	id := p.Get("postId")
	if id == nil || id.Kind == 's' && strings.TrimPrefix(id.Str, "=") == "" {
		n.Problem(node.where, orParams(id, node), "Missing parameter", "the node has no Post ID; n8n fails on it too.")
		return nil, false
	}
	args := []importer.Member{{Name: "post_id", Value: s.value(id, "post_id")}}
	opts := p.Get("options")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		if k != "password" && k != "context" {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of Get Post is not one n8n's node sends.", k))
			return nil, false
		}
		if v.Kind == 's' && strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", fmt.Sprintf("Get Post's option %s is converted when it is written out: n8n keeps an earlier item's value for an item whose value is empty.", k))
			return nil, false
		}
		args = append(args, importer.Member{Name: k, Value: s.value(v, k)})
	}
	return args, true
}

// wordpressGetManyOptions are Get Many Posts' options converted: the
// query parameter each is. The lists (Author, Categories, Tags and the
// excluded ones) are not: how n8n writes a list in the query is its
// HTTP library's.
var wordpressGetManyOptions = map[string]string{
	"context": "context", "orderBy": "orderby", "order": "order", "search": "search",
	"before": "before", "after": "after", "sticky": "sticky", "status": "status",
}

// wordpressPostGetMany reads Get Many Posts' parameters: Return All or
// the Limit (n8n's 5), and the options, written out only as Get Post's
// (n8n keeps an earlier item's query).
func (n *n8n) wordpressPostGetMany(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	var args []importer.Member
	if v := p.Get("returnAll"); v != nil {
		if v.Kind != 'b' {
			// n8n's query keeps the page of an item that returned all for
			// the next one that does not.
			n.Problem(node.where, v, "Unsupported expression", "Get Many Posts' Return All is converted when it is true or false: n8n keeps an earlier item's page in the query of a later item that does not return all.")
			return nil, false
		}
		args = append(args, importer.Member{Name: "return_all", Value: s.value(v, "return_all")})
	}
	if v := p.Get("limit"); v != nil && !p.Boolean(false, "returnAll") {
		args = append(args, importer.Member{Name: "limit", Value: s.value(v, "limit")})
	}
	opts := p.Get("options")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		name, known := wordpressGetManyOptions[k]
		if !known {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the option %s of Get Many Posts is not converted; a list in the query is written as n8n's HTTP library writes it, which flowctl does not know.", k))
			return nil, false
		}
		if v.Kind == 's' && strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", fmt.Sprintf("Get Many Posts' option %s is converted when it is written out: n8n keeps an earlier item's value for an item whose value is empty.", k))
			return nil, false
		}
		args = append(args, importer.Member{Name: name, Value: s.value(v, name)})
	}
	return args, true
}
