package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// wordpressOps are the operations of the WordPress node v1
// (Wordpress.node.js) converted, by resource.
var wordpressOps = map[string][]string{
	"post": {"create", "get"},
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
		fields := p.Get("additionalFields")
		for _, k := range keysOf(fields) {
			v := fields.Get(k)
			if k == "postTemplate" {
				// n8n reads postTemplate.values.template, "" without it,
				// whenever the option is there.
				if v.Kind != 'o' {
					n.Problem(node.where, v, "Unsupported expression", "the Post Template option is converted when it is written out, not an expression.")
					return nil
				}
				t := orEmpty(v.Get("values", "template"))
				args = append(args, importer.Member{Name: "template", Value: s.value(t, "template")})
				continue
			}
			name, known := wordpressPostFields[k]
			if !known {
				n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the additional field %s of Create Post is not one n8n's node sends.", k))
				return nil
			}
			args = append(args, importer.Member{Name: name, Value: s.value(v, name)})
		}
		call.flow, call.what, call.args = "wordpress_post_create", "creates the post", args
	case "post get":
		args, ok := n.wordpressPostGet(node, s)
		if !ok {
			return nil
		}
		call.flow, call.what, call.args = "wordpress_post_get", "gets the post", args
	}
	return n.appStep(node, in, s, call)
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
