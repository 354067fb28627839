package jsonval

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
)

// Append appends the JSON of a known value without marks.
func Append(b []byte, v cty.Value) ([]byte, error) { return appendValue(b, v, false) }

// errNotFloat32 stops AppendFloat32 at a number it cannot write as a
// float32.
var errNotFloat32 = errors.New("a number of a list is not a float32")

// AppendFloat32 is Append, but writes each number of a list or set of
// numbers (a vector, as embeddings are) in the shortest form that reads
// back as the same float32: about 10 characters a number rather than the
// 18 of a double, and quicker to write and to read. DecodeAsFloat32
// reads it back. ok is false, and b is then to be dropped, when one of
// those numbers is not exactly a float32.
func AppendFloat32(b []byte, v cty.Value) (out []byte, ok bool, err error) {
	out, err = appendValue(b, v, true)
	if err == errNotFloat32 {
		return nil, false, nil
	}
	return out, err == nil, err
}

// appendFloat32s writes the elements of a known list or set of numbers
// as float32s (AppendFloat32).
func appendFloat32s(b []byte, v cty.Value) ([]byte, error) {
	b = append(b, '[')
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		_, e := it.Element()
		switch {
		case e.IsNull():
			b = append(b, "null"...)
			continue
		case !e.IsKnown() || e.IsMarked():
			return appendValue(b, e, true) // its error
		}
		x, acc := e.AsBigFloat().Float64()
		if acc != big.Exact || float64(float32(x)) != x || math.IsInf(x, 0) {
			return nil, errNotFloat32
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 32)
	}
	return append(b, ']'), nil
}

func appendValue(b []byte, v cty.Value, f32 bool) ([]byte, error) {
	switch {
	case v == cty.NilVal || v.IsNull():
		return append(b, "null"...), nil
	case !v.IsKnown():
		return nil, errors.New("the value is not known yet")
	case v.IsMarked():
		return nil, errors.New("a marked value cannot be written as JSON")
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return AppendString(b, v.AsString()), nil
	case ty == cty.Number:
		return appendNumber(b, v.AsBigFloat()), nil
	case ty == cty.Bool:
		return strconv.AppendBool(b, v.True()), nil
	case f32 && (ty.IsListType() || ty.IsSetType()) && ty.ElementType() == cty.Number:
		return appendFloat32s(b, v)
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		b = append(b, '[')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			_, e := it.Element()
			var err error
			if b, err = appendValue(b, e, f32); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case ty.IsObjectType():
		var buf [8]string
		b = append(b, '{')
		for i, name := range attributeNames(ty, buf[:]) {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, name)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, v.GetAttr(name), f32); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case ty.IsMapType():
		b = append(b, '{')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			k, e := it.Element()
			b = AppendString(b, k.AsString())
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, e, f32); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("a value of type %s cannot be written as JSON", ty.FriendlyName())
}

// MarshalAttrs returns the JSON of the object of attrs (known values
// without marks), as Marshal does of cty.ObjectVal(attrs), without making
// that object (two maps, for each of a for_each's calls).
func MarshalAttrs(attrs map[string]cty.Value) ([]byte, error) {
	var buf [8]string
	names := buf[:0]
	hint := 2
	for name, v := range attrs {
		names = append(names, name)
		hint += len(name) + 4 + SizeHint(v)
	}
	slices.Sort(names)
	b := make([]byte, 0, hint+hint/16)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, name)
		b = append(b, ':')
		var err error
		if b, err = Append(b, attrs[name]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// attributeNames returns the attribute names of an object type in order,
// in buf when they fit: cty's element iterator allocates them for every
// object it walks.
func attributeNames(ty cty.Type, buf []string) []string {
	names := buf[:0]
	for name := range ty.AttributeTypes() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Marshal returns the JSON of a known value without marks, in a buffer
// sized for it once.
func Marshal(v cty.Value) ([]byte, error) {
	hint := SizeHint(v)
	return Append(make([]byte, 0, hint+hint/16), v)
}

// appendNumber writes a number exactly: a whole number that fits 64 bits
// or an exact double in its shortest form, anything else in full.
func appendNumber(b []byte, f *big.Float) []byte {
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact {
			return strconv.AppendInt(b, i, 10)
		}
	}
	if x, acc := f.Float64(); acc == big.Exact && !math.IsInf(x, 0) {
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return f.Append(b, 'f', -1)
}

// AppendString appends s as a JSON string, escaped exactly as
// encoding/json escapes it.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// SizeHint guesses the length of v's JSON, to size a buffer once. A
// marked part counts as little: Append refuses it.
func SizeHint(v cty.Value) int {
	if v == cty.NilVal || v.IsMarked() || v.IsNull() || !v.IsKnown() {
		return 4
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return len(v.AsString()) + 2
	case ty.IsObjectType():
		n := 2
		for name := range ty.AttributeTypes() {
			n += len(name) + 3 + SizeHint(v.GetAttr(name)) + 1
		}
		return n
	case (ty.IsListType() || ty.IsSetType()) && ty.ElementType() == cty.Number:
		return 2 + 20*v.LengthInt() // without a walk: a vector's numbers are many
	case ty.IsCollectionType() || ty.IsTupleType():
		n := 2
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if k.Type() == cty.String {
				n += len(k.AsString()) + 3
			}
			n += SizeHint(e) + 1
		}
		return n
	}
	return 8
}
