package jsonval

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// DecodeAs: JSON read straight into a declared type, with no value of
// its own shape made first (decode.go reads JSON of any shape).

// errMismatch: the text does not hold a value of the type asked for as
// it is (DecodeAs); converting what Decode gives may still succeed.
var errMismatch = errors.New("the value is not of the type")

// DecodeAs reads one JSON value, and nothing after it, straight into a
// value of type ty: a list of 100,000 records is read into the list of
// objects it is to be, rather than into a tuple of objects of the types
// the text implies that is then converted (a map and an object for each
// record, made twice). ok is false when the text is not JSON or holds
// anything the type does not take as it is — a number for a string, an
// attribute the object type lacks, a missing attribute that is not
// optional, a collection of any — and the caller then reads it with
// Decode and converts it, for the conversion's rules and errors. An
// attribute of type any takes what Decode gives.
func DecodeAs(text []byte, ty cty.Type) (v cty.Value, ok bool) {
	return decodeAs(decoder{text: text}, ty)
}

// DecodeAsFloat32 is DecodeAs for what AppendFloat32 wrote: each number
// of a list or set of numbers is read as a float32.
func DecodeAsFloat32(text []byte, ty cty.Type) (v cty.Value, ok bool) {
	return decodeAs(decoder{text: text, f32: true}, ty)
}

func decodeAs(d decoder, ty cty.Type) (v cty.Value, ok bool) {
	defer func() {
		// cty.ListVal and its kind panic on elements of differing types
		// (records whose attributes of type any differ).
		if recover() != nil {
			v, ok = cty.NilVal, false
		}
	}()
	d.space()
	v, err := d.typed(ty, 0)
	if d.space(); err != nil || d.i < len(d.text) {
		return cty.NilVal, false
	}
	return v, true
}

// typed reads a value of type ty (DecodeAs).
func (d *decoder) typed(ty cty.Type, depth int) (cty.Value, error) {
	if ty == cty.DynamicPseudoType {
		return d.value(depth)
	}
	if bytes.HasPrefix(d.text[d.i:], []byte("null")) {
		d.i += len("null")
		if ty == float32Type {
			return cty.NullVal(cty.Number), nil
		}
		return cty.NullVal(ty.WithoutOptionalAttributesDeep()), nil
	}
	if d.i >= len(d.text) {
		return cty.NilVal, errSyntax
	}
	c := d.text[d.i]
	switch {
	case ty == cty.String:
		if c != '"' {
			return cty.NilVal, errMismatch
		}
		return d.value(depth)
	case ty == cty.Number:
		if c != '-' && (c < '0' || c > '9') {
			return cty.NilVal, errMismatch
		}
		return d.value(depth)
	case ty == float32Type:
		return d.float32()
	case ty == cty.Bool:
		if c != 't' && c != 'f' {
			return cty.NilVal, errMismatch
		}
		return d.value(depth)
	case ty.IsListType() || ty.IsSetType():
		if c != '[' || ty.ElementType().HasDynamicTypes() || depth >= maxDepth {
			return cty.NilVal, errMismatch
		}
		elem := ty.ElementType()
		if d.f32 && elem == cty.Number {
			elem = float32Type
		}
		vals, err := d.typedArray(elem, depth+1)
		switch {
		case err != nil:
			return cty.NilVal, err
		case len(vals) == 0 && ty.IsListType():
			return cty.ListValEmpty(ty.ElementType().WithoutOptionalAttributesDeep()), nil
		case len(vals) == 0:
			return cty.SetValEmpty(ty.ElementType().WithoutOptionalAttributesDeep()), nil
		case ty.IsListType():
			return cty.ListVal(vals), nil
		}
		return cty.SetVal(vals), nil
	case ty.IsMapType():
		if c != '{' || ty.ElementType().HasDynamicTypes() || depth >= maxDepth {
			return cty.NilVal, errMismatch
		}
		attrs, err := d.typedObject(func(string) (cty.Type, bool) { return ty.ElementType(), true }, depth+1)
		if err != nil {
			return cty.NilVal, err
		}
		if len(attrs) == 0 {
			return cty.MapValEmpty(ty.ElementType().WithoutOptionalAttributesDeep()), nil
		}
		return cty.MapVal(attrs), nil
	case ty.IsObjectType():
		if c != '{' || depth >= maxDepth {
			return cty.NilVal, errMismatch
		}
		types := ty.AttributeTypes()
		attrs, err := d.typedObject(func(k string) (cty.Type, bool) {
			t, ok := types[k]
			return t, ok
		}, depth+1)
		if err != nil {
			return cty.NilVal, err
		}
		if len(attrs) < len(types) {
			for name, t := range types {
				if _, ok := attrs[name]; !ok {
					if !ty.AttributeOptional(name) {
						return cty.NilVal, errMismatch
					}
					attrs[name] = cty.NullVal(t.WithoutOptionalAttributesDeep())
				}
			}
		}
		return cty.ObjectVal(attrs), nil
	}
	return cty.NilVal, errMismatch // a tuple, a capsule
}

// float32Type stands, in typed, for the numbers of a list or set of
// numbers that DecodeAsFloat32 reads as float32s.
var float32Type = cty.Capsule("float32", reflect.TypeFor[float32]())

// float32 reads a number as a float32, as AppendFloat32 wrote it.
func (d *decoder) float32() (cty.Value, error) {
	start := d.i
	for d.i < len(d.text) && strings.IndexByte("+-.eE0123456789", d.text[d.i]) >= 0 {
		d.i++
	}
	lit := d.text[start:d.i]
	if !isNumber(lit) {
		return cty.NilVal, errSyntax
	}
	x, err := strconv.ParseFloat(string(lit), 32)
	if err != nil {
		return cty.NilVal, errMismatch
	}
	return cty.NumberFloatVal(x), nil
}

// typedArray reads the elements of an array, each of type elem, on
// several goroutines when it is large (as arrayParallel does).
func (d *decoder) typedArray(elem cty.Type, depth int) ([]cty.Value, error) {
	d.i++ // [
	d.space()
	if d.next(']') {
		return nil, nil
	}
	if !d.split && len(d.text)-d.i >= parallelMin && runtime.GOMAXPROCS(0) > 1 {
		d.split = true
		return d.elementsParallel(func(sub *decoder) (cty.Value, error) { return sub.typed(elem, depth) })
	}
	var vals []cty.Value
	for {
		d.space()
		v, err := d.typed(elem, depth)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		d.space()
		switch {
		case d.next(','):
		case d.next(']'):
			return vals, nil
		default:
			return nil, errSyntax
		}
	}
}

// typedObject reads the members of an object, each of the type attr gives
// its key; a key attr does not know is errMismatch. The map is the
// decoder's of the depth (attrsAt): cty.ObjectVal and cty.MapVal copy it.
func (d *decoder) typedObject(attr func(string) (cty.Type, bool), depth int) (map[string]cty.Value, error) {
	d.i++ // {
	attrs := d.attrsAt(depth)
	d.space()
	if d.next('}') {
		return attrs, nil
	}
	for {
		d.space()
		if d.i >= len(d.text) || d.text[d.i] != '"' {
			return nil, errSyntax
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		t, ok := attr(k)
		if !ok {
			return nil, errMismatch
		}
		d.space()
		if !d.next(':') {
			return nil, errSyntax
		}
		d.space()
		v, err := d.typed(t, depth)
		if err != nil {
			return nil, err
		}
		attrs[k] = v // the last of repeated keys wins
		d.space()
		switch {
		case d.next(','):
		case d.next('}'):
			return attrs, nil
		default:
			return nil, errSyntax
		}
	}
}
