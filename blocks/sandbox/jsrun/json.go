package jsrun

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dop251/goja"
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// Inputs enter a runtime as the values JSON.parse would make of their
// JSON (package jsonval's): plain objects and arrays, numbers as doubles.
// Outputs leave it as the JSON text of JSON.stringify, read by package
// jsonval.

// inputObject makes the object of a call's inputs in rt.
func inputObject(rt *goja.Runtime, inputs map[string]cty.Value) (*goja.Object, error) {
	obj, _ := cty.ObjectVal(inputs).UnmarkDeep()
	v, err := toJS(rt, obj)
	if err != nil {
		return nil, err
	}
	return v.(*goja.Object), nil
}

// toJS is the value JSON.parse gives for the JSON of a known value
// without marks.
func toJS(rt *goja.Runtime, v cty.Value) (goja.Value, error) {
	switch {
	case v.IsNull():
		return goja.Null(), nil
	case !v.IsKnown():
		return nil, errors.New("the value is not known yet")
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return rt.ToValue(v.AsString()), nil
	case ty == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return rt.ToValue(f), nil
	case ty == cty.Bool:
		return rt.ToValue(v.True()), nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		elems := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			x, err := toJS(rt, e)
			if err != nil {
				return nil, err
			}
			elems = append(elems, x)
		}
		return rt.NewArray(elems...), nil
	case ty.IsMapType() || ty.IsObjectType():
		obj := rt.NewObject()
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			x, err := toJS(rt, e)
			if err != nil {
				return nil, err
			}
			// An own property, as JSON.parse makes: a key "__proto__"
			// must not set the prototype.
			if err := obj.DefineDataProperty(k.AsString(), x, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		return obj, nil
	}
	return nil, fmt.Errorf("a value of type %s cannot be passed", ty.FriendlyName())
}

// stringifier is JSON.stringify(value) by the runtime's own algorithm.
func stringifier(rt *goja.Runtime) goja.Callable {
	return func(_ goja.Value, args ...goja.Value) (goja.Value, error) {
		v := goja.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		text, ok, err := jsonText(rt, v)
		if err != nil || !ok {
			return goja.Undefined(), err
		}
		return rt.ToValue(string(text)), nil
	}
}

// jsonText is what JSON.stringify gives for v; ok is false where it gives
// undefined (undefined, functions, symbols). An exception thrown by a
// toJSON method or getter is the error; an interrupt panics on, as it
// does through the runtime's own calls.
func jsonText(rt *goja.Runtime, v goja.Value) (text []byte, ok bool, err error) {
	if v == nil || goja.IsUndefined(v) {
		return nil, false, nil
	}
	if _, sym := v.(*goja.Symbol); sym {
		return nil, false, nil
	}
	if obj, isObj := v.(*goja.Object); isObj {
		if _, fn := goja.AssertFunction(obj); fn {
			return nil, false, nil
		}
		b, err := obj.MarshalJSON()
		return b, err == nil, err
	}
	// A primitive: as the one element of an array.
	b, err := rt.NewArray(v).MarshalJSON()
	if err != nil {
		return nil, false, err
	}
	return b[1 : len(b)-1], true, nil
}

// decodeFields reads the JSON text of an object and returns the values of
// the named fields that it has, with the types their JSON implies.
func decodeFields(text []byte, fields []*lang.Field) (map[string]cty.Value, error) {
	doc, err := jsonval.Decode(text)
	if err != nil {
		return nil, err
	}
	if !doc.Type().IsObjectType() {
		return nil, fmt.Errorf("it is %s, not an object", doc.Type().FriendlyName())
	}
	out := make(map[string]cty.Value, len(fields))
	for _, f := range fields {
		if doc.Type().HasAttribute(f.Name) {
			out[f.Name] = doc.GetAttr(f.Name)
		}
	}
	return out, nil
}

// notNumbers looks for NaN and the infinities in the output fields of
// res, an object JSON.stringify has just written (so it has no cycles,
// and it wrote them as null); it returns the message the call fails
// with, or "". It reads res as JSON.stringify does — own enumerable
// properties, arrays by index, objects with a toJSON method as what they
// give — so a getter runs again.
func notNumbers(rt *goja.Runtime, res *goja.Object, fields []*lang.Field) string {
	for _, f := range fields {
		if value, path := nonFinite(rt, res.Get(f.Name), f.Name, "", 0); value != "" {
			return sandbox.NotANumber(f.Name, value, path)
		}
	}
	return ""
}

// nonFinite returns the first NaN or infinity in v as JavaScript writes
// it, and its path in the output; "" when there is none.
func nonFinite(rt *goja.Runtime, v goja.Value, key, path string, depth int) (string, string) {
	if v == nil || depth > 10000 /* as jsonval reads */ {
		return "", ""
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		if f, ok := v.Export().(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return v.String(), path
		}
		return "", ""
	}
	if toJSON, ok := goja.AssertFunction(obj.Get("toJSON")); ok {
		r, err := toJSON(obj, rt.ToValue(key))
		if err != nil {
			return "", ""
		}
		return nonFinite(rt, r, key, path, depth+1)
	}
	switch obj.ClassName() {
	case "Function":
		return "", ""
	case "Number":
		return nonFinite(rt, obj.ToNumber(), key, path, depth+1)
	case "Array":
		n := obj.Get("length").ToInteger()
		for i := int64(0); i < n; i++ {
			k := strconv.FormatInt(i, 10)
			if value, at := nonFinite(rt, obj.Get(k), k, path+"["+k+"]", depth+1); value != "" {
				return value, at
			}
		}
		return "", ""
	}
	for _, k := range obj.Keys() {
		if value, at := nonFinite(rt, obj.Get(k), k, path+"."+k, depth+1); value != "" {
			return value, at
		}
	}
	return "", ""
}
