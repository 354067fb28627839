package blocks

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"strings"

	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// The bodies of http steps: what a step sends, and reading JSON responses.

// encodeBody encodes the body input as body_type says; a null body is no
// body.
func encodeBody(v, bodyType cty.Value) ([]byte, string, error) {
	v, _ = v.UnmarkDeep()
	if v.IsNull() {
		return nil, "", nil
	}
	bt := "json"
	if !bodyType.IsNull() {
		bt = bodyType.AsString()
	}
	switch bt {
	case "json":
		b, err := jsonval.Marshal(v)
		if err != nil {
			return nil, "", fmt.Errorf("cannot encode the body as JSON: %v", err)
		}
		return b, "application/json", nil
	case "form":
		s, err := formBody(v)
		if err != nil {
			return nil, "", err
		}
		return []byte(s), "application/x-www-form-urlencoded", nil
	case "text":
		s, err := convert.Convert(v, cty.String)
		if err != nil {
			return nil, "", fmt.Errorf("body_type text needs a string body, not %s", v.Type().FriendlyName())
		}
		return []byte(s.AsString()), "text/plain; charset=utf-8", nil
	case "base64":
		s, err := convert.Convert(v, cty.String)
		if err != nil {
			return nil, "", fmt.Errorf("body_type base64 needs a string body, not %s", v.Type().FriendlyName())
		}
		b, err := base64.StdEncoding.DecodeString(s.AsString())
		if err != nil {
			return nil, "", fmt.Errorf("body_type base64 needs a base64 body: %v", err)
		}
		return b, "application/octet-stream", nil
	case "multipart":
		return multipartBody(v)
	}
	return nil, "", fmt.Errorf("body_type %q is not one of json, form, text, base64, multipart", bt)
}

// formBody url-encodes an object or map whose values are strings (or
// convert to strings) or lists of strings (repeated keys). Null values are
// left out, so optional fields can be written as null.
func formBody(v cty.Value) (string, error) {
	ty := v.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		return "", fmt.Errorf("body_type form needs an object of strings as the body, not %s", ty.FriendlyName())
	}
	vals := url.Values{}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		key := k.AsString()
		if ev.IsNull() {
			continue
		}
		ety := ev.Type()
		if ety.IsListType() || ety.IsTupleType() || ety.IsSetType() {
			for it := ev.ElementIterator(); it.Next(); {
				_, item := it.Element()
				s, err := convert.Convert(item, cty.String)
				if err != nil || s.IsNull() {
					return "", fmt.Errorf("form field %q: each item must be a string, not %s", key, item.Type().FriendlyName())
				}
				vals.Add(key, s.AsString())
			}
			continue
		}
		s, err := convert.Convert(ev, cty.String)
		if err != nil {
			return "", fmt.Errorf("form field %q must be a string or a list of strings, not %s", key, ety.FriendlyName())
		}
		vals.Add(key, s.AsString())
	}
	return vals.Encode(), nil
}

// parseJSONBody parses a JSON response into a cty value; an empty body is
// null.
func parseJSONBody(body string) (cty.Value, error) {
	b := []byte(strings.TrimPrefix(body, string(utf8BOM)))
	if len(bytes.TrimSpace(b)) == 0 {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	v, err := jsonval.Decode(b)
	if err == nil {
		return v, nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("it ends too early")
	}
	return cty.NilVal, fmt.Errorf("the response's Content-Type is JSON but its body is not valid JSON (%v); it starts with %q", err, snippet(b, 60))
}

func isJSONType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
}
