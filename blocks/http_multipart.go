package blocks

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime"
	"mime/multipart"
	"net/textproto"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// multipartBody encodes body_type "multipart" (multipart/form-data, RFC
// 7578) with mime/multipart. The body is a list of parts, sent in their
// order (a name may repeat):
//
//	{ name = "title", value = "Q3" }                       a field
//	{ name = "file", data = "<base64>", filename = "q3.pdf",
//	  content_type = "application/pdf" }                   a file
//
// A file's filename and content_type may be null or left out: no
// filename, and application/octet-stream. An object body is a shortcut
// for fields only, one for each key (in the keys' order; a list of
// strings repeats its key), as body_type form takes it. It returns the
// body and its Content-Type, which carries the boundary.
func multipartBody(v cty.Value) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	ty := v.Type()
	switch {
	case ty.IsObjectType() || ty.IsMapType():
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			key := k.AsString()
			if ev.IsNull() {
				continue
			}
			ety := ev.Type()
			values := []cty.Value{ev}
			if ety.IsListType() || ety.IsTupleType() || ety.IsSetType() {
				values = ev.AsValueSlice()
			}
			for _, item := range values {
				s, err := convert.Convert(item, cty.String)
				if err != nil || s.IsNull() {
					return nil, "", fmt.Errorf("multipart field %q must be a string or a list of strings, not %s", key, item.Type().FriendlyName())
				}
				if err := w.WriteField(key, s.AsString()); err != nil {
					return nil, "", err
				}
			}
		}
	case ty.IsListType() || ty.IsTupleType():
		for i, part := range v.AsValueSlice() {
			if err := writePart(w, i, part); err != nil {
				return nil, "", err
			}
		}
	default:
		return nil, "", fmt.Errorf("body_type multipart needs a list of parts ({name, value} or {name, data, filename, content_type}) or an object of strings as the body, not %s", ty.FriendlyName())
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

// partKeys are the attributes a part may have.
var partKeys = map[string]bool{"name": true, "value": true, "data": true, "filename": true, "content_type": true}

// writePart writes part i of a multipart body: a field or a file.
func writePart(w *multipart.Writer, i int, part cty.Value) error {
	ty := part.Type()
	if part.IsNull() || !ty.IsObjectType() && !ty.IsMapType() {
		return fmt.Errorf("multipart part %d must be an object ({name, value} or {name, data, filename, content_type}), not %s", i, ty.FriendlyName())
	}
	attr := map[string]string{}
	for it := part.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		key := k.AsString()
		if !partKeys[key] {
			return fmt.Errorf("multipart part %d has an unknown attribute %q (it takes name, value, data, filename, content_type)", i, key)
		}
		if ev.IsNull() {
			continue
		}
		s, err := convert.Convert(ev, cty.String)
		if err != nil {
			return fmt.Errorf("multipart part %d: %s must be a string, not %s", i, key, ev.Type().FriendlyName())
		}
		attr[key] = s.AsString()
	}
	name, ok := attr["name"]
	if !ok {
		return fmt.Errorf("multipart part %d has no name", i)
	}
	value, isField := attr["value"]
	data, isFile := attr["data"]
	switch {
	case isField && isFile:
		return fmt.Errorf("multipart part %q has both value (a field) and data (a file)", name)
	case isField:
		if _, ok := attr["filename"]; ok {
			return fmt.Errorf("multipart part %q: a field (value) has no filename; a file gives data", name)
		}
		if _, ok := attr["content_type"]; ok {
			return fmt.Errorf("multipart part %q: a field (value) has no content_type; a file gives data", name)
		}
		return w.WriteField(name, value)
	case !isFile:
		return fmt.Errorf("multipart part %q has neither value (a field) nor data (a file)", name)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return fmt.Errorf("multipart part %q: data must be base64: %v", name, err)
	}
	ct := "application/octet-stream"
	if t, ok := attr["content_type"]; ok {
		if _, _, err := mime.ParseMediaType(t); err != nil {
			return fmt.Errorf("multipart part %q: content_type is not a media type: %v", name, err)
		}
		ct = t
	}
	if strings.ContainsAny(name+attr["filename"], "\r\n") {
		return fmt.Errorf("multipart part %q: a name or filename holds a line break", name)
	}
	// As mime/multipart's CreateFormField and CreateFormFile write it.
	disp := `form-data; name="` + quoteEscaper.Replace(name) + `"`
	if fn, ok := attr["filename"]; ok {
		disp = multipart.FileContentDisposition(name, fn)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", disp)
	h.Set("Content-Type", ct)
	pw, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = pw.Write(b)
	return err
}
