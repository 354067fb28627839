package apps

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// wordpressSecrets are the credential's site URL (the stand-in), user
// name and application password.
var wordpressSecrets = map[string]string{"wordpress_url": "{server}", "wordpress_username": "admin", "wordpress_password": "abcd efgh"}

// Create Post as n8n's WordPress node v1 sends it (Wordpress.node.js
// post create, GenericFunctions.js wordpressApiRequest): POST
// /wp-json/wp/v2/posts on the credential's site, Basic auth, JSON with
// User-Agent n8n; the title always, each additional field when its value
// is one JavaScript holds true, the template whenever the option is
// there; the item is the post WordPress answers with.
func TestWordpressPostCreate(t *testing.T) {
	answer := `{"id": 41, "slug": "hello", "status": "draft", "title": {"raw": "Hello", "rendered": "Hello"}}`
	for _, c := range []struct {
		name   string
		inputs map[string]any
		body   string
	}{
		{"title only", map[string]any{"title": "Hello"}, `{"title": "Hello"}`},
		{"no title", map[string]any{}, `{"title": ""}`},
		// Fields n8n leaves out: "", 0, false; [] it sends.
		{"fields", map[string]any{"title": "Hello", "author": 2, "content": "<p>hi</p>", "slug": "hello", "status": "draft",
			"comment_status": "closed", "sticky": false, "template": "", "tags": []any{}, "categories": []any{3, 4}, "format": "standard", "date": "2026-01-02T03:04:05", "password": ""},
			`{"title": "Hello", "author": 2, "content": "<p>hi</p>", "slug": "hello", "status": "draft", "comment_status": "closed",
			  "template": "", "tags": [], "categories": [3, 4], "format": "standard", "date": "2026-01-02T03:04:05"}`},
		{"falsy", map[string]any{"title": "T", "author": 0, "content": "", "sticky": true, "ping_status": "open"}, `{"title": "T", "sticky": true, "ping_status": "open"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reqs, err := tryFlowWith(t, "wordpress_post_create", c.inputs, wordpressSecrets, replyJSON(answer))
			if err != "" {
				t.Fatal(err)
			}
			if len(reqs) != 1 {
				t.Fatalf("requests: %+v", reqs)
			}
			r := reqs[0]
			auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:abcd efgh"))
			if r.Method != "POST" || r.Path != "/wp-json/wp/v2/posts" || r.Auth != auth || r.Type != "application/json" || r.Accept != "application/json" || r.Query != "" {
				t.Errorf("request: %+v", r)
			}
			var got any
			json.Unmarshal([]byte(r.Body), &got)
			if !reflect.DeepEqual(got, jsonOf(t, c.body)) {
				t.Errorf("body:\n got %s\nwant %s", r.Body, c.body)
			}
			wantItems(t, out, "["+answer+"]")
		})
	}
}

// WordPress refuses (401, 400…): the run fails, as n8n's node does.
func TestWordpressPostCreateRefused(t *testing.T) {
	_, _, err := tryFlowWith(t, "wordpress_post_create", map[string]any{"title": "T"}, wordpressSecrets, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"code": "rest_cannot_create", "message": "Sorry, you are not allowed to create posts as this user.", "data": {"status": 401}}`)
	})
	if !strings.Contains(err, "401") {
		t.Errorf("the run: %q", err)
	}
}

// Get Post as n8n's WordPress node v1 sends it (Wordpress.node.js post
// get): GET /wp-json/wp/v2/posts/ID, the options Password and Context in
// the query when set; the item is the post.
func TestWordpressPostGet(t *testing.T) {
	answer := `{"id": 41, "slug": "hello", "title": {"rendered": "Hello"}}`
	for _, c := range []struct {
		name   string
		inputs map[string]any
		query  string
	}{
		{"no options", map[string]any{"post_id": "41"}, ""},
		{"number", map[string]any{"post_id": 41, "password": ""}, ""},
		{"options", map[string]any{"post_id": "41", "password": "pw", "context": "edit"}, "context=edit&password=pw"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reqs, err := tryFlowWith(t, "wordpress_post_get", c.inputs, wordpressSecrets, replyJSON(answer))
			if err != "" {
				t.Fatal(err)
			}
			auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:abcd efgh"))
			if len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Path != "/wp-json/wp/v2/posts/41" || reqs[0].Query != c.query || reqs[0].Auth != auth || reqs[0].Body != "" {
				t.Errorf("requests: %+v", reqs)
			}
			wantItems(t, out, "["+answer+"]")
		})
	}
}

// Get Many Posts as n8n's WordPress node v1 asks for them
// (Wordpress.node.js post getAll, wordpressApiRequestAllItems): with
// Return All, pages of 10 up to X-WP-TotalPages; else one request of
// per_page = the limit; the options set in the query. The items are the
// posts of every page, in order.
func TestWordpressPostGetMany(t *testing.T) {
	pages := func(total string) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			if total != "" {
				w.Header().Set("X-WP-TotalPages", total)
			}
			w.Header().Set("Content-Type", "application/json")
			p := r.URL.Query().Get("page")
			io.WriteString(w, `[{"id": "`+p+`a"}, {"id": "`+p+`b"}]`)
		}
	}
	for _, c := range []struct {
		name    string
		inputs  map[string]any
		total   string
		queries []string
		items   string
	}{
		{"return all", map[string]any{"return_all": true, "status": "publish", "sticky": false}, "3",
			[]string{"page=1&per_page=10&status=publish", "page=2&per_page=10&status=publish", "page=3&per_page=10&status=publish"},
			`[{"id": "1a"}, {"id": "1b"}, {"id": "2a"}, {"id": "2b"}, {"id": "3a"}, {"id": "3b"}]`},
		{"one page", map[string]any{"return_all": true}, "1", []string{"page=1&per_page=10"}, `[{"id": "1a"}, {"id": "1b"}]`},
		{"no count", map[string]any{"return_all": true}, "", []string{"page=1&per_page=10"}, `[{"id": "1a"}, {"id": "1b"}]`},
		{"limit", map[string]any{"limit": 2, "order": "asc", "orderby": "date", "sticky": true, "search": ""}, "7",
			[]string{"order=asc&orderby=date&per_page=2&sticky=true"}, `[{"id": "a"}, {"id": "b"}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reqs, err := tryFlowWith(t, "wordpress_post_get_many", c.inputs, wordpressSecrets, pages(c.total))
			if err != "" {
				t.Fatal(err)
			}
			var queries []string
			for _, r := range reqs {
				if r.Method != "GET" || r.Path != "/wp-json/wp/v2/posts" || !strings.HasPrefix(r.Auth, "Basic ") {
					t.Errorf("request: %+v", r)
				}
				queries = append(queries, r.Query)
			}
			slices.Sort(queries)
			if !reflect.DeepEqual(queries, c.queries) {
				t.Errorf("queries:\n got %q\nwant %q", queries, c.queries)
			}
			wantItems(t, out, c.items)
		})
	}
}

// Update Post as n8n's WordPress node v1 sends it (Wordpress.node.js
// post update): POST /wp-json/wp/v2/posts/ID, the ID as parseInt reads
// it in the body, each update field whose value JavaScript holds true.
func TestWordpressPostUpdate(t *testing.T) {
	answer := `{"id": 41, "categories": [3]}`
	for _, c := range []struct {
		name   string
		inputs map[string]any
		path   string
		body   string
	}{
		{"categories", map[string]any{"post_id": "41", "categories": []any{3}}, "/wp-json/wp/v2/posts/41", `{"id": 41, "categories": [3]}`},
		{"number", map[string]any{"post_id": 41, "title": "", "status": "publish"}, "/wp-json/wp/v2/posts/41", `{"id": 41, "status": "publish"}`},
		{"parseInt", map[string]any{"post_id": " -7x", "title": "T"}, "/wp-json/wp/v2/posts/%20-7x", `{"id": -7, "title": "T"}`},
		{"NaN", map[string]any{"post_id": "x", "sticky": true}, "/wp-json/wp/v2/posts/x", `{"id": null, "sticky": true}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, reqs, err := tryFlowWith(t, "wordpress_post_update", c.inputs, wordpressSecrets, replyJSON(answer))
			if err != "" {
				t.Fatal(err)
			}
			if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != c.path || !strings.HasPrefix(reqs[0].Auth, "Basic ") {
				t.Fatalf("requests: %+v", reqs)
			}
			var got any
			json.Unmarshal([]byte(reqs[0].Body), &got)
			if !reflect.DeepEqual(got, jsonOf(t, c.body)) {
				t.Errorf("body:\n got %s\nwant %s", reqs[0].Body, c.body)
			}
			wantItems(t, out, "["+answer+"]")
		})
	}
}
