package compiler

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	jsonschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/zclconf/go-cty/cty"
)

// EvalSchemaText is the JSON text of a json_schema score's schema: the
// object itself, or the file a string names, relative to dir (the eval
// file's directory) and inside it.
func EvalSchemaText(dir string, v cty.Value) ([]byte, error) {
	v, _ = v.UnmarkDeep()
	if v.Type() != cty.String {
		return jsonval.Marshal(v)
	}
	path, err := lang.ResolveLocalPath(dir, v.AsString())
	var text []byte
	if err == nil {
		text, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("the schema file %s cannot be read: %s", v.AsString(), lang.PathErrorText(err))
	}
	return text, nil
}

// ResolveEvalSchema reads a JSON Schema from its text, ready to validate
// values with.
func ResolveEvalSchema(text []byte) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(text, &s); err != nil {
		return nil, fmt.Errorf("the schema is not a JSON Schema: %v", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the schema is not a valid JSON Schema: %v", err)
	}
	return r, nil
}
