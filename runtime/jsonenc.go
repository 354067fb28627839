package runtime

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// marshalValue writes a known value of a concrete type as JSON in the form
// ctyjson.Unmarshal reads back with the same type. It is ctyjson.Marshal
// with a fast path for numbers: cty's arbitrary-precision numbers format
// slowly, and most are whole numbers or exact float64s.
func marshalValue(buf *bytes.Buffer, v cty.Value) error {
	ty := v.Type()
	switch {
	case v.IsNull():
		buf.WriteString("null")
	case ty == cty.String:
		writeJSONString(buf, v.AsString())
	case ty == cty.Bool:
		buf.WriteString(strconv.FormatBool(v.True()))
	case ty == cty.Number:
		writeNumber(buf, v.AsBigFloat())
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		buf.WriteByte('[')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			_, e := it.Element()
			if err := marshalValue(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case ty.IsMapType() || ty.IsObjectType():
		buf.WriteByte('{')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, e := it.Element()
			writeJSONString(buf, k.AsString())
			buf.WriteByte(':')
			if err := marshalValue(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		b, err := ctyjson.Marshal(v, ty)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

func writeNumber(buf *bytes.Buffer, f *big.Float) {
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact {
			buf.WriteString(strconv.FormatInt(i, 10))
			return
		}
	}
	if x, acc := f.Float64(); acc == big.Exact && !math.IsInf(x, 0) {
		buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		return
	}
	buf.WriteString(f.Text('f', -1))
}

// writeJSONString writes s as a JSON string, escaped exactly as
// encoding/json escapes it (HTML characters, U+2028 and U+2029 included;
// invalid UTF-8 as U+FFFD), straight into buf: a large string costs its
// own size once, not the several copies of json.Marshal and a Write.
func writeJSONString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.Grow(len(s) + 2)
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			buf.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case '\b':
				buf.WriteString(`\b`)
			case '\f':
				buf.WriteString(`\f`)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			default:
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(s[start:i])
			buf.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf.WriteString(s[start:i])
			buf.WriteString(`\u202`)
			buf.WriteByte(hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// sizeHint guesses the length of v's JSON, to size the buffer once.
func sizeHint(v cty.Value) int {
	if v.IsNull() || !v.IsKnown() {
		return 4
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return len(v.AsString()) + 2
	case ty.IsCollectionType() || ty.IsObjectType() || ty.IsTupleType():
		n := 2
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if k.Type() == cty.String {
				n += len(k.AsString()) + 3
			}
			n += sizeHint(e) + 1
		}
		return n
	}
	return 8
}
