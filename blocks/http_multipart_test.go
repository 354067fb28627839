package blocks

import (
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// sentPart is one part of a multipart body as a server reads it.
type sentPart struct {
	disposition, contentType, body string
}

// multipartServer records the parts of the last request's
// multipart/form-data body.
func multipartServer(t *testing.T) (*httptest.Server, *[]sentPart, *string) {
	var parts []sentPart
	var ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts = nil
		ctype = r.Header.Get("Content-Type")
		mt, params, err := mime.ParseMediaType(ctype)
		if err != nil || mt != "multipart/form-data" {
			http.Error(w, "not multipart: "+ctype, http.StatusBadRequest)
			return
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			b, _ := io.ReadAll(p)
			parts = append(parts, sentPart{p.Header.Get("Content-Disposition"), p.Header.Get("Content-Type"), string(b)})
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv, &parts, &ctype
}

// body_type multipart sends fields and files in their order, a name
// repeated, each file with its filename and type, its bytes unchanged.
func TestHTTPMultipart(t *testing.T) {
	srv, parts, ctype := multipartServer(t)
	file := []byte("%PDF-1.4\n\xff\x00 binary")
	part := func(kv ...string) cty.Value {
		m := map[string]cty.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = cty.StringVal(kv[i+1])
		}
		return cty.ObjectVal(m)
	}
	body := cty.TupleVal([]cty.Value{
		part("name", "platform[]", "value", "tiktok"),
		part("name", "video", "data", base64.StdEncoding.EncodeToString(file), "filename", `clip "1".pdf`, "content_type", "application/pdf"),
		part("name", "platform[]", "value", "instagram"),
		cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("raw"), "data": cty.StringVal("aGk="), "filename": cty.NullVal(cty.String)}),
		cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("n"), "value": cty.NumberIntVal(1)}),
	})
	ex := NewHTTPExecutor(nil)
	_, err := ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{
		"url": cty.StringVal(srv.URL), "method": cty.StringVal("POST"), "body": body, "body_type": cty.StringVal("multipart"),
		// A Content-Type of the step's has no boundary: the body's wins.
		"headers": cty.MapVal(map[string]cty.Value{"content-type": cty.StringVal("multipart/form-data")}),
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []sentPart{
		{`form-data; name="platform[]"`, "", "tiktok"},
		{`form-data; name="video"; filename="clip \"1\".pdf"`, "application/pdf", string(file)},
		{`form-data; name="platform[]"`, "", "instagram"},
		{`form-data; name="raw"`, "application/octet-stream", "hi"},
		{`form-data; name="n"`, "", "1"},
	}
	if len(*parts) != len(want) {
		t.Fatalf("parts = %q (content-type %s), want %q", *parts, *ctype, want)
	}
	for i := range want {
		if (*parts)[i] != want[i] {
			t.Errorf("part %d = %q, want %q", i, (*parts)[i], want[i])
		}
	}

	// An object is fields, in its keys' order; a list repeats its key.
	_, err = ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{
		"url": cty.StringVal(srv.URL), "method": cty.StringVal("POST"), "body_type": cty.StringVal("multipart"),
		"body": cty.ObjectVal(map[string]cty.Value{"b": cty.StringVal("2"), "a": cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.StringVal("y")})}),
	}))
	if err != nil || len(*parts) != 3 || (*parts)[0].body != "x" || (*parts)[1].body != "y" || (*parts)[2] != (sentPart{`form-data; name="b"`, "", "2"}) {
		t.Errorf("object body sent %q (%v)", *parts, err)
	}
}

// A part that is not one is refused before anything is sent, with what
// is wrong.
func TestHTTPMultipartRefused(t *testing.T) {
	srv, parts, _ := multipartServer(t)
	ex := NewHTTPExecutor(nil)
	for _, c := range []struct {
		body cty.Value
		want string
	}{
		{cty.StringVal("a=b"), "needs a list of parts"},
		{cty.TupleVal([]cty.Value{cty.StringVal("x")}), "part 0 must be an object"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"value": cty.StringVal("x")})}), "part 0 has no name"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f"), "file": cty.StringVal("x")})}), `unknown attribute "file"`},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f"), "value": cty.StringVal("x"), "data": cty.StringVal("eA==")})}), "both value"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f")})}), "neither value"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f"), "data": cty.StringVal("not base64!")})}), "data must be base64"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f"), "value": cty.StringVal("x"), "filename": cty.StringVal("a.txt")})}), "a field (value) has no filename"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f"), "data": cty.StringVal("eA=="), "content_type": cty.StringVal("no type")})}), "not a media type"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f\r\nX-Evil: 1"), "data": cty.StringVal("eA==")})}), "line break"},
		{cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("f"), "value": cty.ListValEmpty(cty.String)})}), "value must be a string"},
	} {
		*parts = nil
		_, err := ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{
			"url": cty.StringVal(srv.URL), "method": cty.StringVal("POST"), "body": c.body, "body_type": cty.StringVal("multipart"),
		}))
		if err == nil || !strings.Contains(err.Error(), c.want) || *parts != nil {
			t.Errorf("%#v: err = %v, want %q; sent %q", c.body, err, c.want, *parts)
		}
	}
	b := builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(srv.URL)}).Block
	if err := b.Checks["body_type"](cty.StringVal("multipart")); err != nil {
		t.Error(err)
	}
}
