package jsrun

import (
	"fmt"

	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// The values crossing into and out of a runtime are JSON text, converted
// by package jsonval.

// inputJSON renders a call's inputs as a JSON object, for JSON.parse in
// the runtime.
func inputJSON(inputs map[string]cty.Value) (string, error) {
	if len(inputs) == 0 {
		return "{}", nil
	}
	obj, _ := cty.ObjectVal(inputs).UnmarkDeep()
	b, err := jsonval.Marshal(obj)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// decodeFields reads the JSON text of an object and returns the values of
// the named fields that it has, with the types their JSON implies.
func decodeFields(text []byte, names []string) (map[string]cty.Value, error) {
	doc, err := jsonval.Decode(text)
	if err != nil {
		return nil, err
	}
	if !doc.Type().IsObjectType() {
		return nil, fmt.Errorf("it is %s, not an object", doc.Type().FriendlyName())
	}
	out := make(map[string]cty.Value, len(names))
	for _, name := range names {
		if doc.Type().HasAttribute(name) {
			out[name] = doc.GetAttr(name)
		}
	}
	return out, nil
}
