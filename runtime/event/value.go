package event

import (
	"encoding/json"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// SensitiveText stands in for a sensitive value wherever values are shown.
const SensitiveText = lang.SensitiveText

// PlainJSON renders a value as plain JSON for people and events: sensitive
// values (anywhere inside) become "(sensitive)", null stays null.
func PlainJSON(v cty.Value) any { return ShowJSON(v, SensitiveText) }

// ShowJSON is PlainJSON with stand-in in place of each sensitive value.
func ShowJSON(v cty.Value, standIn any) any {
	if v == cty.NilVal {
		return nil
	}
	if lang.IsSensitive(v) {
		if v.HasMark(lang.Sensitive) {
			return standIn
		}
		return plainMarked(v, standIn)
	}
	return plain(v)
}

func plain(v cty.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	b, err := jsonval.Marshal(v)
	if err != nil {
		return nil
	}
	var x any
	if json.Unmarshal(b, &x) != nil {
		return nil
	}
	return x
}

// plainMarked renders a collection with sensitive parts element by element.
func plainMarked(v cty.Value, standIn any) any {
	v, _ = v.Unmark()
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	ty := v.Type()
	switch {
	case ty.IsObjectType() || ty.IsMapType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = ShowJSON(e, standIn)
		}
		return out
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, ShowJSON(e, standIn))
		}
		return out
	}
	return standIn
}
