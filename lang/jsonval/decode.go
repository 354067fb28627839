package jsonval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"runtime"
	"strings"
	"sync"

	"github.com/zclconf/go-cty/cty"
)

// Decode reads one JSON value, and nothing after it, as the cty value of
// the type it implies. Strings with escapes or non-ASCII characters are
// read by encoding/json, for its handling of escapes, surrogates and
// invalid UTF-8; the rest is read here.
func Decode(text []byte) (cty.Value, error) {
	d := decoder{text: text}
	d.space()
	v, err := d.value(0)
	if d.space(); err == nil && d.i < len(d.text) {
		err = errSyntax
	}
	if err != nil {
		// Say what is wrong in encoding/json's words (callers show its
		// syntax errors and offsets).
		return decodeAny(text)
	}
	return v, nil
}

// DecodeAttrs reads the JSON text of an object into a map of its members'
// values, each as Decode gives it, without making the object (two maps).
// The text must be an object.
func DecodeAttrs(text []byte) (map[string]cty.Value, error) {
	d := decoder{text: text}
	if d.space(); d.next('{') {
		attrs := map[string]cty.Value{}
		if d.space(); d.next('}') {
			if d.space(); d.i == len(d.text) {
				return attrs, nil
			}
		}
		for d.i < len(d.text) && d.text[d.i] == '"' {
			k, err := d.str()
			if d.space(); err != nil || !d.next(':') {
				break
			}
			d.space()
			v, err := d.value(1)
			if err != nil {
				break
			}
			attrs[k] = v // the last of repeated keys wins
			if d.space(); d.next(',') {
				d.space()
				continue
			}
			if d.next('}') {
				if d.space(); d.i == len(d.text) {
					return attrs, nil
				}
			}
			break
		}
	}
	// Not an object, or not one read here: as Decode reads it.
	v, err := Decode(text)
	if err != nil {
		return nil, err
	}
	if !v.Type().IsObjectType() {
		return nil, fmt.Errorf("the text is %s, not an object", v.Type().FriendlyName())
	}
	attrs := v.AsValueMap()
	if attrs == nil {
		attrs = map[string]cty.Value{}
	}
	return attrs, nil
}

// decodeAny is Decode through encoding/json's decoder.
func decodeAny(text []byte) (cty.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return cty.NilVal, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return cty.NilVal, errors.New("extra data after the value")
	}
	return FromGo(x)
}

// maxDepth bounds the nesting of arrays and objects, as encoding/json's
// does.
const maxDepth = 10000

// literals are JSON's names.
var literals = []struct {
	text string
	v    cty.Value
}{{"null", cty.NullVal(cty.DynamicPseudoType)}, {"true", cty.True}, {"false", cty.False}}

type decoder struct {
	text []byte
	i    int
	// attrs holds, by depth, the map an object's attributes are read
	// into: cty.ObjectVal copies it, so one map per depth serves every
	// object, and a list of 100,000 records does not leave 100,000 maps
	// behind for the collector.
	attrs    []map[string]cty.Value
	attrsBuf [4]map[string]cty.Value // attrs' first, for small texts
	// split: an array has been read by arrayParallel (once per text).
	split bool
	// f32: the numbers of lists and sets of numbers are float32s
	// (DecodeAsFloat32).
	f32 bool
}

// parallelMin is the size of text from which the first array of a text
// is read on several goroutines (arrayParallel): a list of 100,000
// records given with --input-file is 3.5 MB, and reading it was most of
// what happened before its run started; one of 20,000 is 0.7 MB, and
// read on two cores it takes 50 ms, not 95. A variable for tests.
var parallelMin = 256 << 10

// arrayParallel reads the elements of the array whose '[' is behind d.i:
// it finds where each element ends (arrayBounds), then reads them on
// GOMAXPROCS goroutines, each its share of them in order. Anything
// wrong is errSyntax, which Decode reports in encoding/json's words.
func (d *decoder) arrayParallel(depth int) (cty.Value, error) {
	vals, err := d.elementsParallel(func(sub *decoder) (cty.Value, error) { return sub.value(depth) })
	if err != nil {
		return cty.NilVal, err
	}
	return cty.TupleVal(vals), nil
}

// elementsParallel reads the elements of the array whose content begins
// at d.i, each by read on a decoder of its own placed at the element: it
// finds where each element ends (arrayBounds), then reads them on
// GOMAXPROCS goroutines, each its share of them in order, and moves d
// past the array. A read that panics (a value that does not fit a type)
// is errMismatch.
func (d *decoder) elementsParallel(read func(sub *decoder) (cty.Value, error)) ([]cty.Value, error) {
	ends, end, ok := arrayBounds(d.text, d.i)
	if !ok {
		return nil, errSyntax
	}
	vals := make([]cty.Value, len(ends))
	workers := min(runtime.GOMAXPROCS(0), len(ends))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			defer func() {
				if recover() != nil {
					errs[w] = errMismatch
				}
			}()
			sub := decoder{text: d.text, split: true, f32: d.f32}
			for k := w * len(ends) / workers; k < (w+1)*len(ends)/workers; k++ {
				sub.i = d.i
				if k > 0 {
					sub.i = ends[k-1] + 1
				}
				sub.space()
				v, err := read(&sub)
				if sub.space(); err == nil && sub.i != ends[k] {
					err = errSyntax
				}
				if err != nil {
					errs[w] = err
					return
				}
				vals[k] = v
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	d.i = end + 1
	return vals, nil
}

// arrayBounds finds the elements of the array whose content begins at i
// in text: the offset of the ',' or ']' that ends each one, and of the
// ']' that ends the array. It follows strings and nesting (ValueEnd) but
// checks nothing else: each element is read, and checked, by itself. ok
// is false when text ends first.
func arrayBounds(text []byte, i int) (ends []int, end int, ok bool) {
	for {
		if i, ok = ValueEnd(text, i); !ok {
			return nil, 0, false
		}
		for i < len(text) && strings.IndexByte(" \t\n\r", text[i]) >= 0 {
			i++
		}
		switch {
		case i >= len(text):
			return nil, 0, false
		case text[i] == ',':
			ends = append(ends, i)
			i++
		case text[i] == ']':
			return append(ends, i), i, true
		default:
			return nil, 0, false
		}
	}
}

// ValueEnd returns the offset just past the JSON value that begins at i in
// text: it follows strings and brackets, and anything else runs to the
// next ',', ']' or '}' at its level. It checks nothing else (whoever reads
// the value does); ok is false when text ends first.
func ValueEnd(text []byte, i int) (end int, ok bool) {
	nest, inString := 0, false
	for ; i < len(text); i++ {
		c := text[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				if inString = false; nest == 0 {
					return i + 1, true
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			nest++
		case ']', '}':
			if nest == 0 {
				return i, true
			}
			if nest--; nest == 0 {
				return i + 1, true
			}
		case ',':
			if nest == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// attrsAt returns the empty attribute map of depth.
func (d *decoder) attrsAt(depth int) map[string]cty.Value {
	if d.attrs == nil {
		d.attrs = d.attrsBuf[:0]
	}
	for len(d.attrs) <= depth {
		d.attrs = append(d.attrs, nil)
	}
	if d.attrs[depth] == nil {
		d.attrs[depth] = map[string]cty.Value{}
	}
	m := d.attrs[depth]
	clear(m)
	return m
}

func (d *decoder) space() {
	for d.i < len(d.text) {
		switch d.text[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// errSyntax is any fault the decoder finds; Decode then says what it is
// in encoding/json's words.
var errSyntax = errors.New("invalid JSON")

// next reports whether the next byte is c, and if so consumes it.
func (d *decoder) next(c byte) bool {
	if d.i < len(d.text) && d.text[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *decoder) value(depth int) (cty.Value, error) {
	if d.i >= len(d.text) {
		return cty.NilVal, errSyntax
	}
	switch c := d.text[d.i]; {
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return cty.NilVal, errSyntax
		}
		if c == '{' {
			return d.object(depth + 1)
		}
		return d.array(depth + 1)
	case c == '"':
		s, err := d.str()
		if err != nil {
			return cty.NilVal, err
		}
		return cty.StringVal(s), nil
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		for d.i < len(d.text) && strings.IndexByte("+-.eE0123456789", d.text[d.i]) >= 0 {
			d.i++
		}
		lit := d.text[start:d.i]
		if !isNumber(lit) {
			return cty.NilVal, errSyntax
		}
		if n, ok := smallInt(lit); ok {
			// What cty.ParseNumberVal gives, without parsing text into
			// a 512-bit mantissa.
			return cty.NumberVal(new(big.Float).SetPrec(512).SetInt64(n)), nil
		}
		return cty.ParseNumberVal(string(lit))
	}
	for _, l := range literals {
		if bytes.HasPrefix(d.text[d.i:], []byte(l.text)) {
			d.i += len(l.text)
			return l.v, nil
		}
	}
	return cty.NilVal, errSyntax
}

func (d *decoder) object(depth int) (cty.Value, error) {
	d.i++ // {
	d.space()
	if d.next('}') {
		return cty.EmptyObjectVal, nil
	}
	attrs := d.attrsAt(depth)
	for {
		d.space()
		if d.i >= len(d.text) || d.text[d.i] != '"' {
			return cty.NilVal, errSyntax
		}
		k, err := d.str()
		if err != nil {
			return cty.NilVal, err
		}
		d.space()
		if !d.next(':') {
			return cty.NilVal, errSyntax
		}
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return cty.NilVal, err
		}
		attrs[k] = v // the last of repeated keys wins
		d.space()
		switch {
		case d.next(','):
		case d.next('}'):
			return cty.ObjectVal(attrs), nil
		default:
			return cty.NilVal, errSyntax
		}
	}
}

func (d *decoder) array(depth int) (cty.Value, error) {
	d.i++ // [
	d.space()
	if d.next(']') {
		return cty.EmptyTupleVal, nil
	}
	if !d.split && len(d.text)-d.i >= parallelMin && runtime.GOMAXPROCS(0) > 1 {
		d.split = true
		return d.arrayParallel(depth)
	}
	var vals []cty.Value
	for {
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return cty.NilVal, err
		}
		vals = append(vals, v)
		d.space()
		switch {
		case d.next(','):
		case d.next(']'):
			return cty.TupleVal(vals), nil
		default:
			return cty.NilVal, errSyntax
		}
	}
}

// str reads a string: printable ASCII without escapes as it is, anything
// else through encoding/json.
func (d *decoder) str() (string, error) {
	start := d.i
	d.i++ // "
	plain := true
	for ; d.i < len(d.text); d.i++ {
		switch c := d.text[d.i]; {
		case c == '"':
			d.i++
			if plain {
				return string(d.text[start+1 : d.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(d.text[start:d.i], &s); err != nil {
				return "", err
			}
			return s, nil
		case c == '\\':
			plain = false
			d.i++ // the escaped character cannot end the string
		case c < 0x20:
			return "", errSyntax
		case c >= 0x7f:
			plain = false
		}
	}
	return "", errSyntax
}

// smallInt reads a JSON number that is a whole number of at most 18
// digits, without a sign or with a minus (not -0: its sign would be lost).
func smallInt(t []byte) (int64, bool) {
	digits := t
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || len(digits) > 1 && digits[0] == '0' || digits[0] == '0' && len(t) > 1 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if t[0] == '-' {
		n = -n
	}
	return n, true
}

// isNumber reports whether t is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isNumber(t []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(t) && t[i] == '-' {
		i++
	}
	switch {
	case i < len(t) && t[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(t) && t[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(t)
}

// FromGo converts what encoding/json decodes into an interface value —
// nil, bool, string, float64 or json.Number, []any, map[string]any — to
// the cty value Decode would give.
func FromGo(x any) (cty.Value, error) {
	switch x := x.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case bool:
		return cty.BoolVal(x), nil
	case string:
		return cty.StringVal(x), nil
	case json.Number:
		return cty.ParseNumberVal(string(x))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return cty.NilVal, fmt.Errorf("%v is not a number JSON can hold", x)
		}
		return cty.NumberFloatVal(x), nil
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, len(x))
		for i, e := range x {
			v, err := FromGo(e)
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
			v, err := FromGo(e)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[k] = v
		}
		return cty.ObjectVal(attrs), nil
	}
	return cty.NilVal, fmt.Errorf("unexpected JSON value %T", x)
}
