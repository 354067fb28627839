package jsrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
)

// The values crossing into and out of a runtime are JSON text. These
// encode and decode it directly, in one pass: cty's json package reads
// every document twice (once for its type) through encoding/json's token
// API, which took a fifth of a trivial call.

// inputJSON renders a call's inputs as a JSON object, for JSON.parse in
// the runtime.
func inputJSON(inputs map[string]cty.Value) (string, error) {
	if len(inputs) == 0 {
		return "{}", nil
	}
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	b := make([]byte, 0, 64)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name)
		b = append(b, ':')
		v, _ := inputs[name].UnmarkDeep()
		var err error
		if b, err = appendJSON(b, v); err != nil {
			return "", fmt.Errorf("the input %q: %w", name, err)
		}
	}
	b = append(b, '}')
	return string(b), nil
}

// appendJSON appends a cty value as JSON: lists, sets and tuples as
// arrays, maps and objects as objects.
func appendJSON(b []byte, v cty.Value) ([]byte, error) {
	switch {
	case v == cty.NilVal || v.IsNull():
		return append(b, "null"...), nil
	case !v.IsKnown():
		return nil, errors.New("the value is not known yet")
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return appendJSONString(b, v.AsString()), nil
	case ty == cty.Number:
		return appendJSONNumber(b, v), nil
	case ty == cty.Bool:
		if v.True() {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		b = append(b, '[')
		first := true
		for it := v.ElementIterator(); it.Next(); {
			if !first {
				b = append(b, ',')
			}
			first = false
			_, e := it.Element()
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case ty.IsMapType() || ty.IsObjectType():
		b = append(b, '{')
		first := true
		for it := v.ElementIterator(); it.Next(); {
			if !first {
				b = append(b, ',')
			}
			first = false
			k, e := it.Element()
			b = appendJSONString(b, k.AsString())
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("a value of type %s cannot be passed to JavaScript", ty.FriendlyName())
}

// appendJSONNumber appends a number as JavaScript will read it, a double.
// Numbers beyond the range of a double are written in full, and JSON.parse
// makes them Infinity, as it would any such literal.
func appendJSONNumber(b []byte, v cty.Value) []byte {
	bf := v.AsBigFloat()
	if bf.IsInt() {
		if i, acc := bf.Int64(); acc == 0 {
			return strconv.AppendInt(b, i, 10)
		}
	}
	if f, _ := bf.Float64(); !math.IsInf(f, 0) {
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	return bf.Append(b, 'g', -1)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// decodeFields reads the JSON text of an object and returns the values of
// the named fields that it has, typed as cty's json package would type
// them: objects, tuples, strings, numbers, bools and nulls of dynamic
// type.
func decodeFields(text []byte, names []string) (map[string]cty.Value, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	out := make(map[string]cty.Value, len(names))
	for _, name := range names {
		x, ok := doc[name]
		if !ok {
			continue
		}
		v, err := ctyOf(x)
		if err != nil {
			return nil, fmt.Errorf("the field %q: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

func ctyOf(x any) (cty.Value, error) {
	switch x := x.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case bool:
		return cty.BoolVal(x), nil
	case string:
		return cty.StringVal(x), nil
	case json.Number:
		return cty.ParseNumberVal(string(x))
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, len(x))
		for i, e := range x {
			v, err := ctyOf(e)
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = v
		}
		return cty.TupleVal(vals), nil
	case map[string]any:
		if len(x) == 0 {
			return cty.EmptyObjectVal, nil
		}
		attrs := make(map[string]cty.Value, len(x))
		for k, e := range x {
			v, err := ctyOf(e)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[k] = v
		}
		return cty.ObjectVal(attrs), nil
	}
	return cty.NilVal, fmt.Errorf("unexpected JSON value %T", x)
}
