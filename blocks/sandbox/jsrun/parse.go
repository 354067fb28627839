package jsrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// fromJSON is the value JSON.parse gives for a JSON text, made in rt
// without building rt's JSON global (a third of a small call): what toJS
// gives for the value the text encodes. A sandbox worker reads a call's
// inputs with it straight from the request's text.
func fromJSON(rt *goja.Runtime, text []byte) (goja.Value, error) {
	r := jsonReader{rt: rt, b: text}
	v, err := r.value()
	if err != nil {
		return nil, err
	}
	if r.space(); r.i < len(r.b) {
		return nil, r.errorf("text after the value")
	}
	return v, nil
}

// inputText is inputObject for the JSON text of the inputs' object.
func inputText(rt *goja.Runtime, text []byte) (*goja.Object, error) {
	v, err := fromJSON(rt, text)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*goja.Object)
	if !ok || goja.IsNull(v) {
		return rt.NewObject(), nil
	}
	return obj, nil
}

type jsonReader struct {
	rt *goja.Runtime
	b  []byte
	i  int
}

func (r *jsonReader) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at offset %d: %s", r.i, fmt.Sprintf(format, args...))
}

func (r *jsonReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *jsonReader) value() (goja.Value, error) {
	r.space()
	if r.i >= len(r.b) {
		return nil, r.errorf("unexpected end")
	}
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		return r.rt.ToValue(s), nil
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for _, lit := range []struct {
		text string
		v    goja.Value
	}{{"true", r.rt.ToValue(true)}, {"false", r.rt.ToValue(false)}, {"null", goja.Null()}} {
		if len(r.b)-r.i >= len(lit.text) && string(r.b[r.i:r.i+len(lit.text)]) == lit.text {
			r.i += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, r.errorf("unexpected %q", r.b[r.i])
}

// object reads an object into an ordinary object whose keys are own
// properties, as JSON.parse makes: a key "__proto__" does not set the
// prototype.
func (r *jsonReader) object() (goja.Value, error) {
	r.i++ // {
	obj := r.rt.NewObject()
	if r.space(); r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return obj, nil
	}
	for {
		if r.space(); r.i >= len(r.b) || r.b[r.i] != '"' {
			return nil, r.errorf("an object key must be a string")
		}
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		if r.space(); r.i >= len(r.b) || r.b[r.i] != ':' {
			return nil, r.errorf("':' expected after an object key")
		}
		r.i++
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		if err := obj.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, err
		}
		if done, err := r.next('}'); err != nil || done {
			return obj, err
		}
	}
}

func (r *jsonReader) array() (goja.Value, error) {
	r.i++ // [
	var elems []any
	if r.space(); r.i < len(r.b) && r.b[r.i] == ']' {
		r.i++
		return r.rt.NewArray(), nil
	}
	for {
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
		if done, err := r.next(']'); err != nil || done {
			return r.rt.NewArray(elems...), err
		}
	}
}

// next reads the ',' before another member or element, or the closing
// bracket (done).
func (r *jsonReader) next(closing byte) (done bool, err error) {
	r.space()
	switch {
	case r.i >= len(r.b):
		return false, r.errorf("unexpected end")
	case r.b[r.i] == ',':
		r.i++
		return false, nil
	case r.b[r.i] == closing:
		r.i++
		return true, nil
	}
	return false, r.errorf("',' or %q expected", closing)
}

// str reads a string; one without escapes is its bytes.
func (r *jsonReader) str() (string, error) {
	start := r.i
	escaped := false
	for r.i++; r.i < len(r.b); r.i++ {
		switch r.b[r.i] {
		case '\\':
			escaped = true
			r.i++
		case '"':
			r.i++
			raw := r.b[start:r.i]
			if !escaped && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", r.errorf("%v", err)
			}
			return s, nil
		}
	}
	return "", r.errorf("unterminated string")
}

func (r *jsonReader) number() (goja.Value, error) {
	start := r.i
	for r.i < len(r.b) {
		c := r.b[r.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			r.i++
			continue
		}
		break
	}
	f, err := strconv.ParseFloat(string(r.b[start:r.i]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, r.errorf("bad number %q", r.b[start:r.i])
	}
	return r.rt.ToValue(f), nil
}
