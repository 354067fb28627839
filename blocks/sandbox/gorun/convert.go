package gorun

import (
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"
)

// inputValues converts a call's inputs to the JSON-shaped Go values a go
// block receives: string, float64, bool, []any, map[string]any and nil.
func inputValues(in map[string]cty.Value) (map[string]any, error) {
	out := make(map[string]any, len(in))
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v, err := goValue(in[k], cty.GetAttrPath(k))
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// goValue converts one cty value; numbers become float64, as
// encoding/json would make them.
func goValue(v cty.Value, path cty.Path) (any, error) {
	if v == cty.NilVal || v.IsNull() {
		return nil, nil
	}
	v, _ = v.Unmark()
	if !v.IsKnown() {
		return nil, fmt.Errorf("input %s is not known", pathString(path))
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return f, nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			ge, err := goValue(e, path.Index(k))
			if err != nil {
				return nil, err
			}
			out = append(out, ge)
		}
		return out, nil
	case ty.IsMapType() || ty.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			ge, err := goValue(e, path.GetAttr(k.AsString()))
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = ge
		}
		return out, nil
	}
	return nil, fmt.Errorf("input %s has the type %s, which has no JSON form", pathString(path), ty.FriendlyName())
}

func pathString(path cty.Path) string {
	s := ""
	for i, step := range path {
		switch st := step.(type) {
		case cty.GetAttrStep:
			if i > 0 {
				s += "."
			}
			s += st.Name
		case cty.IndexStep:
			if st.Key.Type() == cty.String {
				s += fmt.Sprintf("[%q]", st.Key.AsString())
			} else {
				bf := st.Key.AsBigFloat()
				s += "[" + bf.Text('f', -1) + "]"
			}
		}
	}
	return fmt.Sprintf("%q", s)
}
