package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// WordPress's Create Post as the corpus's nodes have it: a title and
// content from expressions, tags from an expression
// (oxbshw+ultimate-n8n-ai-workflows/workflows__1323_Splitout_Code_Automation_Webhook.json,
// "Wordpress"), and an author, a slug, a draft, comments closed, sticky
// off and an empty post template, on no credential yet
// (oxbshw+ultimate-n8n-ai-workflows/automation__Generate_SEO-Optimized_WordPress_Content_with_AI_Powered_Perplexity_Research.json):
// a step of the registry's flow for each item, the credential's site,
// user and password its secrets; the post is what WordPress answers.
func TestWordpressCreatePostImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {title: 'Tags', tag_ids: [7, 9], content: 'Body'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "6d3e3f8f", "name": "Wordpress", "type": "n8n-nodes-base.wordpress", "position": [1200, 300], "parameters": {"title": "=Demo tagging post: {{ $json.title }}", "additionalFields": {"tags": "={{ $json.tag_ids }}", "content": "=This is a post to demo automatic tagging a WordPress postvia n8n.\n\n{{ $json.content }}"}}, "typeVersion": 1, "credentials": {"wordpressApi": {"id": "XXXXXXX", "name": "Example"}}}`
	files, diags := importApp(t, appWorkflow(t, "post", item, node))
	wantDiags(t, diags)
	wantIn(t, files["post.flow.hcl"], `step "wordpress" {
  use      = "flow.wordpress_post_create"
  for_each = step.item.items
  title    = "Demo tagging post: ${coalesce(try(each.value.title, null), "")}"
  tags     = each.value.tag_ids
  content  = "This is a post to demo automatic tagging a WordPress postvia n8n.\n\n${coalesce(try(each.value.content, null), "")}"
}`, `secret "wordpress_url" {`, `secret "wordpress_username" {`, `secret "wordpress_password" {`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		if r.Header.Get("Authorization") != "Basic YWRtaW46YWJjZCBlZmdo" || r.Header.Get("User-Agent") != "n8n" {
			return `{"code": "wrong headers"}`
		}
		return `{"id": 41, "status": "draft"}`
	})
	secrets := map[string]string{"wordpress_url": srv.URL, "wordpress_username": "admin", "wordpress_password": "abcd efgh"}
	out := runImported(t, files, "post", secrets, srv.URL)
	wantJSON(t, "items", out["wordpress"], `[{"id": 41, "status": "draft"}]`)
	wantJSON(t, "requests", *reqs, `["POST /wp-json/wp/v2/posts {\"content\":\"This is a post to demo automatic tagging a WordPress postvia n8n.\\n\\nBody\",\"tags\":[7,9],\"title\":\"Demo tagging post: Tags\"} (no token)"]`)

	seo := `{"id": "a1", "name": "Wordpress", "type": "n8n-nodes-base.wordpress", "position": [1200, 300], "parameters": {"title": "={{ $json.title }}", "additionalFields": {"authorId": 2, "content": "={{ $json.content }}", "slug": "={{ $json.title }}", "status": "draft", "commentStatus": "closed", "sticky": false, "postTemplate": {"values": {}}}}, "typeVersion": 1, "credentials": {}}`
	files, diags = importApp(t, appWorkflow(t, "seo", item, seo))
	wantDiags(t, diags)
	wantIn(t, files["seo.flow.hcl"], `  author         = 2
  content        = each.value.content
  slug           = each.value.title
  status         = "draft"
  comment_status = "closed"
  sticky         = false
  template       = ""`)
	*reqs = nil
	runImported(t, files, "seo", secrets, srv.URL)
	wantJSON(t, "requests", *reqs, `["POST /wp-json/wp/v2/posts {\"author\":2,\"comment_status\":\"closed\",\"content\":\"Body\",\"slug\":\"Tags\",\"status\":\"draft\",\"template\":\"\",\"title\":\"Tags\"} (no token)"]`)

	// Delete is not converted: an error naming it.
	update := `{"name": "Wordpress", "type": "n8n-nodes-base.wordpress", "position": [0, 0], "parameters": {"postId": "={{ $json.id }}", "operation": "delete", "options": {}}, "typeVersion": 1, "credentials": {"wordpressApi": {"id": "1", "name": "W"}}}`
	_, diags = importApp(t, appWorkflow(t, "update", item, update))
	wantDiags(t, diags, "error /nodes/2/parameters/operation Unsupported operation")
	bad := strings.Replace(node, `"tags"`, `"menuOrder"`, 1)
	_, diags = importApp(t, appWorkflow(t, "bad", item, bad))
	wantDiags(t, diags, "error /nodes/2/parameters/additionalFields/menuOrder Unsupported option")
}

// WordPress's Get Post as the corpus has it
// (oxbshw+ultimate-n8n-ai-workflows/automation__1709_Linkedin_Wordpress_Automation_Webhook.json,
// "Wordpress"): GET of the item's post; an option that is an expression
// is refused (n8n keeps an earlier item's).
func TestWordpressGetPostImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {'POST ID': 41}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "e1", "name": "Wordpress", "type": "n8n-nodes-base.wordpress", "position": [400, 0], "parameters": {"postId": "={{ $json['POST ID'] }}", "options": {}, "operation": "get"}, "typeVersion": 1, "credentials": {"wordpressApi": {"id": "OE4AgquSkMWydRqn", "name": "Wordpress (wp.test.7hype.com)"}}}`
	files, diags := importApp(t, appWorkflow(t, "get", item, node))
	wantDiags(t, diags)
	wantIn(t, files["get.flow.hcl"], `step "wordpress" {
  use      = "flow.wordpress_post_get"
  for_each = step.item.items
  post_id  = each.value["POST ID"]
}`)
	srv, reqs := standIn(t, func(r *http.Request) string { return `{"id": 41, "slug": "hello"}` })
	out := runImported(t, files, "get", map[string]string{"wordpress_url": srv.URL, "wordpress_username": "admin", "wordpress_password": "pw"}, srv.URL)
	wantJSON(t, "items", out["wordpress"], `[{"id": 41, "slug": "hello"}]`)
	wantJSON(t, "requests", *reqs, `["GET /wp-json/wp/v2/posts/41 (no token)"]`)

	withOpts := strings.Replace(node, `"options": {}`, `"options": {"context": "edit", "password": "={{ $json.pw }}"}`, 1)
	_, diags = importApp(t, appWorkflow(t, "get", item, withOpts))
	wantDiags(t, diags, "error /nodes/2/parameters/options/password Unsupported expression")
}

// WordPress's Get Many Posts as the corpus has it, Return All with a
// status
// (Zie619+n8n-workflows/workflows__Wordpress__0721_Wordpress_Converttofile_Process_Triggered.json,
// "Wordpress"): every page; with n8n's defaults, one page of 5
// (oxbshw+ultimate-n8n-ai-workflows/automation__546-get-all-posts-from-wordpress__workflow.json).
func TestWordpressGetManyPostsImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "e2", "name": "Wordpress", "type": "n8n-nodes-base.wordpress", "position": [400, 0], "parameters": {"options": {"status": "publish"}, "operation": "getAll", "returnAll": true}, "typeVersion": 1, "credentials": {"wordpressApi": {"id": "xIzhb0T5dm53dkod", "name": "Wordpress account"}}}`
	files, diags := importApp(t, appWorkflow(t, "all", item, node))
	wantDiags(t, diags)
	wantIn(t, files["all.flow.hcl"], `step "wordpress" {
  use        = "flow.wordpress_post_get_many"
  for_each   = step.item.items
  return_all = true
  status     = "publish"
}`)
	srv, reqs := standIn(t, func(r *http.Request) string { return `[{"id": 1}]` })
	secrets := map[string]string{"wordpress_url": srv.URL, "wordpress_username": "admin", "wordpress_password": "pw"}
	out := runImported(t, files, "all", secrets, srv.URL)
	wantJSON(t, "items", out["wordpress"], `[{"id": 1}]`)
	wantJSON(t, "requests", *reqs, `["GET /wp-json/wp/v2/posts?page=1&per_page=10&status=publish (no token)"]`)

	defaults := `{"id": "e3", "name": "Wordpress", "type": "n8n-nodes-base.wordpress", "position": [400, 0], "parameters": {"options": {}, "operation": "getAll"}, "typeVersion": 1, "credentials": {"wordpressApi": "wp_creds"}}`
	files, diags = importApp(t, appWorkflow(t, "five", item, defaults))
	wantDiags(t, diags)
	*reqs = nil
	runImported(t, files, "five", secrets, srv.URL)
	wantJSON(t, "requests", *reqs, `["GET /wp-json/wp/v2/posts?per_page=5 (no token)"]`)

	tags := strings.Replace(node, `"status": "publish"`, `"tags": [3]`, 1)
	_, diags = importApp(t, appWorkflow(t, "tags", item, tags))
	wantDiags(t, diags, "error /nodes/2/parameters/options/tags Unsupported option")
}

// WordPress's Update Post as the corpus has it, categories from an
// expression
// (enescingoz+awesome-n8n-templates/WordPress__Auto-Categorize_blog_posts_in_wordpress_using_A.I..json,
// "Wordpress"): POST of the item's post with its ID in the body.
func TestWordpressUpdatePostImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {id: 41, output: [3, 5]}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"id": "e4", "name": "Wordpress", "type": "n8n-nodes-base.wordpress", "position": [400, 0], "parameters": {"postId": "={{ $json.id }}", "operation": "update", "updateFields": {"categories": "={{ $json.output }}"}}, "typeVersion": 1, "credentials": {"wordpressApi": {"id": "lGWPwxTdfPDDbFjj", "name": "Rumjahn.com wordpress"}}}`
	files, diags := importApp(t, appWorkflow(t, "update", item, node))
	wantDiags(t, diags)
	wantIn(t, files["update.flow.hcl"], `step "wordpress" {
  use        = "flow.wordpress_post_update"
  for_each   = step.item.items
  post_id    = each.value.id
  categories = each.value.output
}`)
	srv, reqs := standIn(t, func(r *http.Request) string { return `{"id": 41, "categories": [3, 5]}` })
	out := runImported(t, files, "update", map[string]string{"wordpress_url": srv.URL, "wordpress_username": "admin", "wordpress_password": "pw"}, srv.URL)
	wantJSON(t, "items", out["wordpress"], `[{"id": 41, "categories": [3, 5]}]`)
	wantJSON(t, "requests", *reqs, `["POST /wp-json/wp/v2/posts/41 {\"categories\":[3,5],\"id\":41} (no token)"]`)
}
