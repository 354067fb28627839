package blocks

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// A file goes out and comes back as its bytes: body_type base64 sends the
// decoded bytes, response base64 gives the answer's bytes, not text (a
// PDF's bytes are not UTF-8, and decoding them as text would change them).
func TestHTTPBase64(t *testing.T) {
	file := []byte("%PDF-1.4\n\xff\xfe\x00\x80 binary\n")
	var got []byte
	var gotType string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		gotType = r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(file)
	}))
	defer srv.Close()
	ex := NewHTTPExecutor(nil)
	res, err := ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{
		"url": cty.StringVal(srv.URL), "method": cty.StringVal("POST"),
		"body": cty.StringVal(base64.StdEncoding.EncodeToString(file)), "body_type": cty.StringVal("base64"),
		"response": cty.StringVal("base64"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(file) || gotType != "application/octet-stream" {
		t.Errorf("sent %q (%s), want the file's bytes as application/octet-stream", got, gotType)
	}
	if b := res.Outputs["body"].AsString(); b != base64.StdEncoding.EncodeToString(file) {
		t.Errorf("body = %q, want the file in base64", b)
	}
	if res.Outputs["text"].AsString() != "" || res.Outputs["headers"].Index(cty.StringVal("Content-Type")).AsString() != "application/pdf" {
		t.Errorf("text %q, headers %#v", res.Outputs["text"].AsString(), res.Outputs["headers"])
	}

	// A content-type header of the step's own is kept.
	_, err = ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{
		"url": cty.StringVal(srv.URL), "method": cty.StringVal("PUT"), "headers": cty.MapVal(map[string]cty.Value{"content-type": cty.StringVal("image/png")}),
		"body": cty.StringVal("iVBORw=="), "body_type": cty.StringVal("base64"),
	}))
	if err != nil || gotType != "image/png" || string(got) != "\x89PNG" {
		t.Errorf("sent %q as %s (%v)", got, gotType, err)
	}

	// A body that is not base64 is refused before anything is sent.
	got = nil
	_, err = ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{
		"url": cty.StringVal(srv.URL), "method": cty.StringVal("POST"),
		"body": cty.StringVal("not base64!"), "body_type": cty.StringVal("base64"),
	}))
	if err == nil || !strings.Contains(err.Error(), "body_type base64 needs a base64 body") || got != nil {
		t.Errorf("err = %v, sent %q", err, got)
	}
	// The checks refuse unknown values.
	b := builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(srv.URL)}).Block
	if err := b.Checks["response"](cty.StringVal("bytes")); err == nil {
		t.Error("response \"bytes\" accepted")
	}
	if err := b.Checks["body_type"](cty.StringVal("base64")); err != nil {
		t.Error(err)
	}
}
