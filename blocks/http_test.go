package blocks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// builtinCall is a call of the built-in block name with its defaults and
// the given inputs, as the runtime makes it.
func builtinCall(t *testing.T, name string, set map[string]cty.Value) *Call {
	t.Helper()
	var b *Block
	for _, bb := range Builtins() {
		if bb.Name == name {
			b = bb
		}
	}
	if b == nil {
		t.Fatalf("no built-in %q", name)
	}
	in := map[string]cty.Value{}
	for _, f := range b.Inputs {
		if v, ok := set[f.Name]; ok {
			in[f.Name] = v
		} else if f.Default != cty.NilVal {
			in[f.Name] = f.Default
		} else {
			t.Fatalf("%s: input %q is required", name, f.Name)
		}
	}
	for k := range set {
		if b.Input(k) == nil {
			t.Fatalf("%s has no input %q", name, k)
		}
	}
	return &Call{Block: b, Inputs: in, Outputs: b.Outputs}
}

func jsonOf(t *testing.T, v cty.Value) string {
	t.Helper()
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	secretHeader = "sk-live-4f9a8b7c6d5e"
	secretQuery  = "qtok-1a2b3c4d5e6f"
)

// testServer serves the endpoints of the http and scrape tests. release is
// closed at cleanup so that sleeping handlers end.
func testServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		io.WriteString(w, `{"name":"flow","items":[1,2.5],"ok":true,"none":null}`)
	})
	mux.HandleFunc("/problem", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		io.WriteString(w, `{"title":"x"}`)
	})
	mux.HandleFunc("/empty-json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
	})
	mux.HandleFunc("/bad-json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `<html>not json</html>`)
	})
	mux.HandleFunc("/short-json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"a": [1,`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "caf\xe9 ok")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		io.WriteString(w, "caf\xe9")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"method":       r.Method,
			"query":        r.URL.RawQuery,
			"x_test":       r.Header.Get("X-Test"),
			"content_type": r.Header.Get("Content-Type"),
			"body":         string(body),
		})
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code := map[string]int{"201": 201, "404": 404, "429": 429, "500": 500, "503": 503}[r.PathValue("code")]
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		io.WriteString(w, "  the server\nsays "+r.PathValue("code")+"  ")
	})
	mux.HandleFunc("/long-error", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		io.WriteString(w, strings.Repeat("x", 1000))
	})
	// echo-error repeats the request's secrets in an error page, as some
	// servers do.
	mux.HandleFunc("/echo-error", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "bad key "+r.Header.Get("X-Api-Key")+" token "+r.URL.Query().Get("token"))
	})
	mux.HandleFunc("/sleep", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "start")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/sized/{n}", func(w http.ResponseWriter, r *http.Request) {
		// A declared length of 100 and a body of 100 bytes.
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, strings.Repeat("a", 100))
	})
	mux.HandleFunc("/chunked/{n}", func(w http.ResponseWriter, r *http.Request) {
		// No Content-Length: the body is streamed in chunks.
		w.Header().Set("Content-Type", "text/plain")
		n := map[string]int{"10": 10, "100": 100}[r.PathValue("n")]
		for i := 0; i < n; i += 5 {
			io.WriteString(w, "aaaaa")
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/json", http.StatusFound)
	})
	addScrapeHandlers(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv
}

func TestHTTPResponses(t *testing.T) {
	srv := testServer(t)
	tests := []struct {
		path       string
		maxBytes   int64
		status     int64
		body, text string
		headers    map[string]string
	}{
		{
			path:    "/json",
			status:  200,
			body:    `{"items":[1,2.5],"name":"flow","none":null,"ok":true}`,
			text:    `{"name":"flow","items":[1,2.5],"ok":true,"none":null}`,
			headers: map[string]string{"X-Multi": "a, b", "Content-Type": "application/json; charset=utf-8"},
		},
		{path: "/problem", status: 200, body: `{"title":"x"}`, text: `{"title":"x"}`},
		{path: "/empty-json", status: 201, body: `null`, text: ``},
		{path: "/text", status: 200, body: "\"caf\ufffd ok\"", text: "caf\ufffd ok"},
		{path: "/latin1", status: 200, body: `"café"`, text: "café"},
		{path: "/status/201", status: 201, body: `"  the server\nsays 201  "`, text: "  the server\nsays 201  "},
		{path: "/redirect", status: 200, body: `{"items":[1,2.5],"name":"flow","none":null,"ok":true}`},
		{path: "/sized/100", maxBytes: 100, status: 200, body: `"` + strings.Repeat("a", 100) + `"`},
		{path: "/chunked/10", maxBytes: 10, status: 200, body: `"aaaaaaaaaa"`, text: "aaaaaaaaaa"},
	}
	ex := NewHTTPExecutor(nil)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			call := builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(srv.URL + tt.path)})
			if tt.maxBytes > 0 {
				call.Inputs["max_bytes"] = cty.NumberIntVal(tt.maxBytes)
			}
			res, err := ex.Execute(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Outputs["status"]; !got.RawEquals(cty.NumberIntVal(tt.status)) {
				t.Errorf("status = %#v, want %d", got, tt.status)
			}
			if got := jsonOf(t, res.Outputs["body"]); got != tt.body {
				t.Errorf("body = %s, want %s", got, tt.body)
			}
			if tt.text != "" || tt.path == "/empty-json" {
				if got := res.Outputs["text"].AsString(); got != tt.text {
					t.Errorf("text = %q, want %q", got, tt.text)
				}
			}
			hdrs := res.Outputs["headers"]
			if !hdrs.Type().Equals(cty.Map(cty.String)) {
				t.Fatalf("headers type %#v", hdrs.Type())
			}
			for k, want := range tt.headers {
				if got := hdrs.Index(cty.StringVal(k)).AsString(); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestHTTPRequests(t *testing.T) {
	srv := testServer(t)
	tests := []struct {
		name string
		set  map[string]cty.Value
		want map[string]string // fields of the echo
	}{
		{
			name: "query and headers",
			set: map[string]cty.Value{
				"url":     cty.StringVal(srv.URL + "/echo?a=1"),
				"query":   cty.MapVal(map[string]cty.Value{"q": cty.StringVal("x y"), "b": cty.StringVal("&")}),
				"headers": cty.MapVal(map[string]cty.Value{"x-test": cty.StringVal("hello")}),
			},
			want: map[string]string{"method": "GET", "query": "a=1&b=%26&q=x+y", "x_test": "hello", "body": "", "content_type": ""},
		},
		{
			name: "json body",
			set: map[string]cty.Value{
				"url":    cty.StringVal(srv.URL + "/echo"),
				"method": cty.StringVal("POST"),
				"body": cty.ObjectVal(map[string]cty.Value{
					"n":    cty.NumberIntVal(2),
					"a":    cty.StringVal("x"),
					"list": cty.TupleVal([]cty.Value{cty.True, cty.NullVal(cty.String)}),
				}),
			},
			want: map[string]string{"method": "POST", "body": `{"a":"x","list":[true,null],"n":2}`, "content_type": "application/json"},
		},
		{
			name: "json content type from headers",
			set: map[string]cty.Value{
				"url":     cty.StringVal(srv.URL + "/echo"),
				"method":  cty.StringVal("PUT"),
				"headers": cty.MapVal(map[string]cty.Value{"Content-Type": cty.StringVal("application/vnd.api+json")}),
				"body":    cty.StringVal("s"),
			},
			want: map[string]string{"method": "PUT", "body": `"s"`, "content_type": "application/vnd.api+json"},
		},
		{
			name: "form body",
			set: map[string]cty.Value{
				"url":       cty.StringVal(srv.URL + "/echo"),
				"method":    cty.StringVal("POST"),
				"body_type": cty.StringVal("form"),
				"body": cty.ObjectVal(map[string]cty.Value{
					"q":    cty.StringVal("a b&c"),
					"n":    cty.NumberIntVal(3),
					"tags": cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.StringVal("y")}),
					"skip": cty.NullVal(cty.String),
				}),
			},
			want: map[string]string{"method": "POST", "body": "n=3&q=a+b%26c&tags=x&tags=y", "content_type": "application/x-www-form-urlencoded"},
		},
		{
			name: "text body",
			set: map[string]cty.Value{
				"url":       cty.StringVal(srv.URL + "/echo"),
				"method":    cty.StringVal("POST"),
				"body_type": cty.StringVal("text"),
				"body":      cty.StringVal("hello\nworld"),
			},
			want: map[string]string{"method": "POST", "body": "hello\nworld", "content_type": "text/plain; charset=utf-8"},
		},
		{
			name: "null body",
			set: map[string]cty.Value{
				"url":    cty.StringVal(srv.URL + "/echo"),
				"method": cty.StringVal("DELETE"),
			},
			want: map[string]string{"method": "DELETE", "body": "", "content_type": ""},
		},
	}
	ex := NewHTTPExecutor(srv.Client())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ex.Execute(context.Background(), builtinCall(t, "http", tt.set))
			if err != nil {
				t.Fatal(err)
			}
			echo := res.Outputs["body"]
			for k, want := range tt.want {
				if got := echo.GetAttr(k).AsString(); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestHTTPBodyErrors(t *testing.T) {
	srv := testServer(t)
	tests := []struct {
		name     string
		bodyType string
		body     cty.Value
		want     string
	}{
		{"form of a string", "form", cty.StringVal("a=b"), "body_type form needs an object of strings as the body, not string"},
		{"form of an object field", "form", cty.ObjectVal(map[string]cty.Value{"o": cty.EmptyObjectVal}), `form field "o" must be a string or a list of strings, not object`},
		{"text of an object", "text", cty.EmptyObjectVal, "body_type text needs a string body, not object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewHTTPExecutor(nil).Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{
				"url":       cty.StringVal(srv.URL + "/echo"),
				"method":    cty.StringVal("POST"),
				"body_type": cty.StringVal(tt.bodyType),
				"body":      tt.body,
			}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestHTTPErrors(t *testing.T) {
	srv := testServer(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	tests := []struct {
		name     string
		url      string
		maxBytes int64
		want     []string // substrings of the error
		status   int      // the StatusError's code, when one is expected
	}{
		{name: "500", url: srv.URL + "/status/500", status: 500,
			want: []string{"GET " + srv.URL + "/status/500: 500 Internal Server Error: the server says 500"}},
		{name: "503", url: srv.URL + "/status/503", status: 503, want: []string{"503 Service Unavailable"}},
		{name: "429", url: srv.URL + "/status/429", status: 429, want: []string{"429 Too Many Requests: the server says 429"}},
		{name: "404", url: srv.URL + "/status/404", status: 404, want: []string{"404 Not Found"}},
		{name: "long error body", url: srv.URL + "/long-error", status: 500, want: []string{": " + strings.Repeat("x", 200) + "…"}},
		{name: "Content-Length over the limit", url: srv.URL + "/sized/100", maxBytes: 10,
			want: []string{"the response is 100 bytes, more than max_bytes (10)"}},
		{name: "chunked over the limit", url: srv.URL + "/chunked/100", maxBytes: 10,
			want: []string{"GET " + srv.URL + "/chunked/100: the response is larger than max_bytes (10 bytes)"}},
		{name: "invalid JSON", url: srv.URL + "/bad-json",
			want: []string{"not valid JSON (invalid character '<' looking for beginning of value)", `starts with "<html>not json</html>"`}},
		{name: "truncated JSON", url: srv.URL + "/short-json", want: []string{"not valid JSON (it ends too early)"}},
		{name: "connection refused", url: closedURL + "/x", want: []string{"GET " + closedURL + "/x: "}},
		{name: "not http", url: "ftp://example.com/x", want: []string{`invalid URL: the scheme is "ftp"`}},
		{name: "no scheme", url: "example.com/x", want: []string{"invalid URL: it must start with http:// or https://"}},
	}
	ex := NewHTTPExecutor(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := map[string]cty.Value{"url": cty.StringVal(tt.url)}
			if tt.maxBytes > 0 {
				set["max_bytes"] = cty.NumberIntVal(tt.maxBytes)
			}
			_, err := ex.Execute(context.Background(), builtinCall(t, "http", set))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var se *StatusError
			if got := errors.As(err, &se); got != (tt.status != 0) || (got && se.StatusCode != tt.status) {
				t.Errorf("StatusError %v %+v, want code %d", got, se, tt.status)
			}
		})
	}
}

func TestHTTPTimeout(t *testing.T) {
	srv := testServer(t)
	for _, path := range []string{"/sleep", "/slow-body"} {
		t.Run(path, func(t *testing.T) {
			const timeout = 300 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			_, err := NewHTTPExecutor(nil).Execute(ctx, builtinCall(t, "http", map[string]cty.Value{
				"url": cty.StringVal(srv.URL + path),
			}))
			// The server holds the response until the request ends (or
			// 10s): a timeout error shows the deadline was honoured.
			if err == nil || !strings.Contains(err.Error(), "GET "+srv.URL+path+": the request timed out after ") {
				t.Fatalf("error %v", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v is not context.DeadlineExceeded", err)
			}
		})
	}
}

func TestHTTPCancel(t *testing.T) {
	srv := testServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := NewHTTPExecutor(nil).Execute(ctx, builtinCall(t, "http", map[string]cty.Value{
		"url": cty.StringVal(srv.URL + "/sleep"),
	}))
	if err == nil || !strings.Contains(err.Error(), "the request was cancelled") || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
}

// TestHTTPSecretsNotInErrors checks that header values and query values
// never show in errors, whatever fails.
func TestHTTPSecretsNotInErrors(t *testing.T) {
	srv := testServer(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	tests := []struct {
		name     string
		url      string
		ctx      func() (context.Context, context.CancelFunc)
		maxBytes int64
		set      map[string]cty.Value
	}{
		{name: "500", url: srv.URL + "/status/500"},
		{name: "echoed in the error body", url: srv.URL + "/echo-error"},
		{name: "timeout", url: srv.URL + "/sleep", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}},
		{name: "connection refused", url: closedURL + "/x"},
		{name: "too large", url: srv.URL + "/sized/100", maxBytes: 10},
		{name: "invalid JSON", url: srv.URL + "/bad-json"},
		{name: "bad body", url: srv.URL + "/echo", set: map[string]cty.Value{
			"body_type": cty.StringVal("form"), "body": cty.StringVal(secretHeader),
		}},
		{name: "invalid header value", url: srv.URL + "/echo", set: map[string]cty.Value{
			"headers": cty.MapVal(map[string]cty.Value{
				"X-Api-Key": cty.StringVal(secretHeader), "X-Bad": cty.StringVal(secretHeader + "\n"),
			}),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tt.ctx != nil {
				ctx, cancel = tt.ctx()
			}
			defer cancel()
			set := map[string]cty.Value{
				"url":     cty.StringVal(tt.url + "?token=" + secretQuery + "&flag"),
				"headers": cty.MapVal(map[string]cty.Value{"X-Api-Key": cty.StringVal(secretHeader)}),
				"query":   cty.MapVal(map[string]cty.Value{"key": cty.StringVal(secretQuery + "-2")}),
			}
			if tt.maxBytes > 0 {
				set["max_bytes"] = cty.NumberIntVal(tt.maxBytes)
			}
			for k, v := range tt.set {
				set[k] = v
			}
			_, err := NewHTTPExecutor(nil).Execute(ctx, builtinCall(t, "http", set))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, secret := range []string{secretHeader, secretQuery, "qtok-"} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q contains %q", msg, secret)
				}
			}
			if tt.name == "echoed in the error body" && !strings.Contains(msg, "401 Unauthorized: bad key (redacted) token (redacted)") {
				t.Errorf("error %q does not quote the body without its secrets", msg)
			}
			if tt.name != "bad body" && tt.name != "invalid header value" && !strings.Contains(msg, "?token=REDACTED&flag&key=REDACTED") {
				t.Errorf("error %q does not show the query keys", msg)
			}
		})
	}
}

func TestHTTPUserInfoNotInErrors(t *testing.T) {
	srv := testServer(t)
	u := strings.Replace(srv.URL, "http://", "http://alice:pa55word-xyz@", 1) + "/status/500"
	_, err := NewHTTPExecutor(nil).Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(u)}))
	if err == nil || strings.Contains(err.Error(), "pa55word") || strings.Contains(err.Error(), "alice") ||
		!strings.Contains(err.Error(), "GET "+srv.URL+"/status/500: 500") {
		t.Fatalf("error %v", err)
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/a/b", "https://example.com/a/b"},
		{"https://u:p@example.com/a?token=abc&x=&flag#frag", "https://example.com/a?token=REDACTED&x=&flag"},
		{"http://example.com/?a=1&a=2", "http://example.com/?a=REDACTED&a=REDACTED"},
	}
	for _, tt := range tests {
		u, err := parseHTTPURL(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := redactURL(u); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHTTPTypedBody: a step that declares its body's type gets JSON served
// as text parsed, and a body that is not JSON is an error that says what
// came instead.
func TestHTTPTypedBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/html" {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<!DOCTYPE html>\n<html><body>Not the API</body></html>")
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, `{"items": ["a"]}`)
	}))
	defer srv.Close()
	ex := NewHTTPExecutor(nil)
	typed := func(path string) *Call {
		call := builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(srv.URL + path)})
		call.Step = "fetch"
		call.Outputs = MergeOutputs(call.Outputs, []*lang.Field{{Name: "body", Type: lang.TypeSpec{Type: cty.Object(map[string]cty.Type{"items": cty.List(cty.String)})}}})
		return call
	}
	res, err := ex.Execute(context.Background(), typed("/json-as-text"))
	if err != nil || jsonOf(t, res.Outputs["body"]) != `{"items":["a"]}` {
		t.Fatalf("JSON served as text: %v, %v", res, err)
	}
	_, err = ex.Execute(context.Background(), typed("/html"))
	if err == nil || !strings.Contains(err.Error(), "the response body of step fetch is not JSON: it starts with `<!DOCTYPE html> <html><body>Not the API</body></html>`; status 200, content-type text/html") {
		t.Errorf("HTML for a typed body: %v", err)
	}
	// Untyped, the same page is the body as a string.
	call := builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(srv.URL + "/html")})
	if res, err := ex.Execute(context.Background(), call); err != nil || res.Outputs["body"].Type() != cty.String {
		t.Errorf("untyped: %v, %v", res, err)
	}
}
