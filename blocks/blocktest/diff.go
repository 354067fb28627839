package blocktest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// equalValues compares two values by structure, as JSON would: numbers by
// value, lists, sets and tuples element by element, maps and objects key
// by key. Nulls are equal to each other whatever their type; an unknown
// value equals nothing.
func equalValues(a, b cty.Value) bool {
	switch {
	case a == cty.NilVal || b == cty.NilVal:
		return a == cty.NilVal && b == cty.NilVal
	case !a.IsKnown() || !b.IsKnown():
		return false
	case a.IsNull() || b.IsNull():
		return a.IsNull() && b.IsNull()
	}
	at, bt := a.Type(), b.Type()
	switch {
	case at.IsPrimitiveType() || bt.IsPrimitiveType():
		if !at.Equals(bt) {
			return false
		}
		eq := a.Equals(b)
		return eq.IsKnown() && eq.True()
	case isMapping(at) && isMapping(bt):
		am, bm := elements(a), elements(b)
		if len(am) != len(bm) {
			return false
		}
		for k, av := range am {
			bv, ok := bm[k]
			if !ok || !equalValues(av, bv) {
				return false
			}
		}
		return true
	case isSequence(at) && isSequence(bt):
		as, bs := sequence(a), sequence(b)
		if len(as) != len(bs) {
			return false
		}
		for i := range as {
			if !equalValues(as[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func isMapping(ty cty.Type) bool { return ty.IsObjectType() || ty.IsMapType() }

func isSequence(ty cty.Type) bool { return ty.IsListType() || ty.IsSetType() || ty.IsTupleType() }

// elements returns the attributes of an object or the elements of a map.
func elements(v cty.Value) map[string]cty.Value {
	out := make(map[string]cty.Value, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		out[k.AsString()] = e
	}
	return out
}

// sequence returns the elements of a list, set or tuple in order.
func sequence(v cty.Value) []cty.Value {
	out := make([]cty.Value, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e)
	}
	return out
}

// writeDiff writes the differences between an expected and an actual
// value of the output field name. It descends into maps, objects and
// sequences of the same length, so that each line names the innermost
// path that differs; a key only one side has gets a line of its own.
func writeDiff(w *strings.Builder, name string, want, got cty.Value) {
	before := w.Len()
	diffValue(w, name, want, got)
	if w.Len() == before {
		// The values differ in a way the walk does not descend into.
		writeLine(w, "-", name, want)
		writeLine(w, "+", name, got)
	}
}

func diffValue(w *strings.Builder, path string, want, got cty.Value) {
	if equalValues(want, got) {
		return
	}
	if inspectable(want) && inspectable(got) {
		wt, gt := want.Type(), got.Type()
		switch {
		case isMapping(wt) && isMapping(gt):
			wm, gm := elements(want), elements(got)
			keys := make([]string, 0, len(wm)+len(gm))
			for k := range wm {
				keys = append(keys, k)
			}
			for k := range gm {
				if _, ok := wm[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := path + keyPath(k, wt.IsObjectType() && gt.IsObjectType())
				wv, wok := wm[k]
				gv, gok := gm[k]
				switch {
				case wok && gok:
					diffValue(w, p, wv, gv)
				case wok:
					writeLine(w, "-", p, wv)
				default:
					writeLine(w, "+", p, gv)
				}
			}
			return
		case isSequence(wt) && isSequence(gt) && !wt.IsSetType() && !gt.IsSetType() && want.LengthInt() == got.LengthInt():
			ws, gs := sequence(want), sequence(got)
			for i := range ws {
				diffValue(w, path+"["+strconv.Itoa(i)+"]", ws[i], gs[i])
			}
			return
		}
	}
	writeLine(w, "-", path, want)
	writeLine(w, "+", path, got)
}

// inspectable reports whether the walk can look inside v.
func inspectable(v cty.Value) bool {
	return v != cty.NilVal && v.IsKnown() && !v.IsNull()
}

// keyPath renders a step into an object attribute (.name) or a map
// element (["key"]).
func keyPath(k string, attr bool) string {
	if attr && hclsyntax.ValidIdentifier(k) {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

func writeLine(w *strings.Builder, sign, path string, v cty.Value) {
	fmt.Fprintf(w, "%s %s = %s\n", sign, path, renderValue(v))
}

// renderValue renders a value on one line in HCL's syntax: "text", 3, true,
// null, ["a", "b"], { count = 2, "odd key" = 1 }.
func renderValue(v cty.Value) string {
	var b strings.Builder
	render(&b, v)
	return b.String()
}

func render(b *strings.Builder, v cty.Value) {
	switch {
	case v == cty.NilVal:
		b.WriteString("(none)")
		return
	case v.IsMarked():
		v, _ = v.UnmarkDeep()
	}
	switch {
	case !v.IsKnown():
		b.WriteString("(unknown)")
		return
	case v.IsNull():
		b.WriteString("null")
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		b.WriteString(strconv.Quote(v.AsString()))
	case ty == cty.Number:
		b.WriteString(v.AsBigFloat().Text('f', -1))
	case ty == cty.Bool:
		b.WriteString(strconv.FormatBool(v.True()))
	case isSequence(ty):
		b.WriteByte('[')
		for i, e := range sequence(v) {
			if i > 0 {
				b.WriteString(", ")
			}
			render(b, e)
		}
		b.WriteByte(']')
	case isMapping(ty):
		m := elements(v)
		if len(m) == 0 {
			b.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if hclsyntax.ValidIdentifier(k) {
				b.WriteString(k)
			} else {
				b.WriteString(strconv.Quote(k))
			}
			b.WriteString(" = ")
			render(b, m[k])
		}
		b.WriteString(" }")
	default:
		b.WriteString("(" + ty.FriendlyName() + ")")
	}
}
