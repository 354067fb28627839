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
type typedValue struct {
	Type  json.RawMessage `json:"type"`
	Value json.RawMessage `json:"value"`
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
	if out, err = jsonval.Append(out, v); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
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
	return ctyjson.Unmarshal(tv.Value, ty)
}
