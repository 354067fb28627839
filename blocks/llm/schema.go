package llm

import (
	"encoding/json"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonschema"
)

// A schema is a JSON schema as sent in response_format. Properties keep
// the order of the declared fields, since models write the fields in the
// order the schema gives them.
type schema struct {
	// Strict is whether OpenAI's strict structured outputs can enforce
	// the schema. Strict mode needs every object closed and every
	// property required; maps, tuples and `any` cannot be said that way,
	// so a schema with them is sent with strict false.
	Strict bool
	JSON   json.RawMessage
}

// outputSchema makes the schema of the object the model must return: one
// required property per declared output field, no others.
func outputSchema(fields []*lang.Field) schema {
	b := &jsonschema.Builder{Strict: true}
	props := make(properties, len(fields))
	required := make([]string, len(fields))
	for i, f := range fields {
		s := b.Type(f.Type.Type)
		if len(f.Enum) > 0 {
			s = append(s, member{Key: "enum", Value: f.Enum})
		}
		if f.Optional {
			s = jsonschema.Nullable(s)
		}
		if f.Description != "" {
			s = append(obj{{Key: "description", Value: f.Description}}, s...)
		}
		props[i] = property{f.Name, s}
		required[i] = f.Name
	}
	top := obj{
		{Key: "type", Value: "object"},
		{Key: "properties", Value: props},
		{Key: "required", Value: required},
		{Key: "additionalProperties", Value: false},
	}
	raw, err := json.Marshal(top)
	if err != nil {
		panic(err) // only strings, bools and the types below
	}
	return schema{Strict: b.Strict, JSON: raw}
}

// Object and Member are the ordered JSON objects of schemas (the thinker's
// stage schemas are built with them too).
type (
	Object = jsonschema.Object
	Member = jsonschema.Member
	obj    = Object
	member = Member
)

// property is one entry of a schema's properties, in order.
type property struct {
	name   string
	schema obj
}

type properties []property

func (p properties) MarshalJSON() ([]byte, error) {
	o := make(obj, len(p))
	for i, prop := range p {
		o[i] = member{Key: prop.name, Value: prop.schema}
	}
	return o.MarshalJSON()
}

// schemaName makes a name that response_format accepts
// (^[a-zA-Z0-9_-]{1,64}$) from a block's name.
func schemaName(name string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "output"
	}
	return s
}
