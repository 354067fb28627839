package apps

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
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
