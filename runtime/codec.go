package runtime

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// typedValue is how values are stored: with their type, so that they come
// back as the same cty value.
//
// Float32, written after the value, says that the numbers of its lists
// and sets of numbers are float32s, in their shortest form: an embed
// step's vectors are float32s, and written as doubles they took 18
// characters a number and a fifth of an ingest's time. A reader that
// takes the value as plain JSON reads the same numbers.
type typedValue struct {
	Type    json.RawMessage `json:"type"`
	Value   json.RawMessage `json:"value"`
	Float32 bool            `json:"float32,omitempty"`
}

// EncodeValue encodes a known, unmarked value with its type, as the state
// stores values.
func EncodeValue(v cty.Value) (json.RawMessage, error) {
	if v.IsMarked() {
		return nil, fmt.Errorf("a marked value cannot be stored")
	}
	ty, err := typeJSON(v.Type())
	if err != nil {
		return nil, err
	}
	hint := jsonval.SizeHint(v)
	out := make([]byte, 0, len(ty)+hint+hint/16+32) // a sixteenth for escapes
	out = append(out, `{"type":`...)
	out = append(out, ty...)
	out = append(out, `,"value":`...)
	if hasNumberList(v.Type()) && !v.Type().HasDynamicTypes() {
		if f32, ok, err := jsonval.AppendFloat32(out, v); err != nil {
			return nil, err
		} else if ok {
			return append(f32, `,"float32":true}`...), nil
		}
		out = out[:len(`{"type":`)+len(ty)+len(`,"value":`)]
	}
	if out, err = jsonval.Append(out, v); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// hasNumberList reports whether ty is or holds a list or a set of
// numbers.
func hasNumberList(ty cty.Type) bool {
	switch {
	case (ty.IsListType() || ty.IsSetType()) && ty.ElementType() == cty.Number:
		return true
	case ty.IsCollectionType():
		return hasNumberList(ty.ElementType())
	case ty.IsObjectType():
		for _, t := range ty.AttributeTypes() {
			if hasNumberList(t) {
				return true
			}
		}
	case ty.IsTupleType():
		for _, t := range ty.TupleElementTypes() {
			if hasNumberList(t) {
				return true
			}
		}
	}
	return false
}

// recentTypes are the JSON of the last types EncodeValue wrote: a run
// stores thousands of values of a few types, and ctyjson.MarshalType
// goes through encoding/json every time.
var recentTypes struct {
	sync.Mutex
	types [8]cty.Type
	json  [8][]byte // nil: the slot is empty
	next  int
}

// typeJSON is ctyjson.MarshalType(ty), from recentTypes when ty is there.
func typeJSON(ty cty.Type) ([]byte, error) {
	rt := &recentTypes
	rt.Lock()
	for i, j := range rt.json {
		if j != nil && rt.types[i].Equals(ty) {
			rt.Unlock()
			return j, nil
		}
	}
	rt.Unlock()
	j, err := ctyjson.MarshalType(ty)
	if err != nil {
		return nil, err
	}
	rt.Lock()
	rt.types[rt.next], rt.json[rt.next] = ty, j
	rt.next = (rt.next + 1) % len(rt.json)
	rt.Unlock()
	return j, nil
}

// DecodeValue reverses EncodeValue.
func DecodeValue(raw json.RawMessage) (cty.Value, error) {
	var tv typedValue
	if err := json.Unmarshal(raw, &tv); err != nil {
		return cty.NilVal, err
	}
	ty, err := ctyjson.UnmarshalType(tv.Type)
	if err != nil {
		return cty.NilVal, err
	}
	// Read straight into the type when it has no part of type any (which
	// cty's JSON wraps with its type): cty's decoder reads a value token
	// by token, and a step's list of 768-number vectors took it seconds.
	if tv.Float32 {
		if v, ok := jsonval.DecodeAsFloat32(tv.Value, ty); ok {
			return v, nil
		}
		return cty.NilVal, fmt.Errorf("a stored value of type %s does not read as its float32 numbers", ty.FriendlyName())
	}
	if !ty.HasDynamicTypes() {
		if v, ok := jsonval.DecodeAs(tv.Value, ty); ok {
			return v, nil
		}
	}
	return ctyjson.Unmarshal(tv.Value, ty)
}
