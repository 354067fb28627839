package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"

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
		b, err := json.Marshal(v.AsString())
		if err != nil {
			return err
		}
		buf.Write(b)
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
			b, err := json.Marshal(k.AsString())
			if err != nil {
				return err
			}
			buf.Write(b)
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
