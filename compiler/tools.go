package compiler

import (
	"encoding/json"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonschema"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// InputSchema is the JSON Schema of the flow's inputs as the arguments of
// a tool: one property per input that is not sensitive (a client may not
// give those), with its type, description and default; the inputs without
// a default are required.
func (p *Program) InputSchema() jsonschema.Object {
	var fields []*lang.Field
	for _, in := range p.Inputs {
		if !in.Sensitive {
			fields = append(fields, &lang.Field{Name: in.Name, Type: in.Type, Default: in.Default, Description: in.Description})
		}
	}
	return argumentsSchema(fields)
}

// InputSchema is the JSON Schema of the tool's arguments: a flow's
// inputs the model may give (ModelInputs), or the block's inputs; nil for
// an MCP server's tool, whose schema the server gives.
func (t *Tool) InputSchema() jsonschema.Object {
	switch {
	case t.Flow != nil:
		var fields []*lang.Field
		for _, in := range t.ModelInputs() {
			fields = append(fields, &lang.Field{Name: in.Name, Type: in.Type, Default: in.Default, Description: in.Description})
		}
		return argumentsSchema(fields)
	case t.MCP != nil:
		return nil
	}
	return argumentsSchema(t.Block.Inputs)
}

// argumentsSchema is the schema of an object of the given inputs: each
// with its type, description and default; those without a default
// required; no others.
func argumentsSchema(fields []*lang.Field) jsonschema.Object {
	b := &jsonschema.Builder{}
	props := jsonschema.Object{}
	required := []string{}
	for _, in := range fields {
		s := b.Type(in.Type.Type)
		if in.Description != "" {
			s = append(jsonschema.Object{{Key: "description", Value: in.Description}}, s...)
		}
		if in.Default == cty.NilVal {
			required = append(required, in.Name)
		} else if !in.Default.IsNull() {
			if raw, err := jsonval.Marshal(in.Default); err == nil {
				s = append(s, jsonschema.Member{Key: "default", Value: json.RawMessage(raw)})
			}
		}
		props = append(props, jsonschema.Member{Key: in.Name, Value: s})
	}
	return jsonschema.Object{
		{Key: "type", Value: "object"},
		{Key: "properties", Value: props},
		{Key: "required", Value: required},
		{Key: "additionalProperties", Value: false},
	}
}

// OutputSchema is the JSON Schema of the flow's outputs, an object with
// one property per output of the type the compiler knows (any where only
// a run can tell; a sensitive output is the string "(sensitive)").
func (p *Program) OutputSchema() jsonschema.Object {
	b := &jsonschema.Builder{}
	props := jsonschema.Object{}
	names := []string{}
	for _, o := range p.Outputs {
		ty, ok := p.OutputTypes[o.Name]
		if !ok || o.Sensitive {
			ty = cty.DynamicPseudoType
		}
		s := b.Type(ty)
		if o.Sensitive {
			s = jsonschema.Object{{Key: "type", Value: "string"}}
		}
		if o.Description != "" {
			s = append(jsonschema.Object{{Key: "description", Value: o.Description}}, s...)
		}
		props = append(props, jsonschema.Member{Key: o.Name, Value: s})
		names = append(names, o.Name)
	}
	return jsonschema.Object{
		{Key: "type", Value: "object"},
		{Key: "properties", Value: props},
		{Key: "required", Value: names},
	}
}
