package llm

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
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
	b := &schemaBuilder{strict: true}
	props := make(properties, len(fields))
	required := make([]string, len(fields))
	for i, f := range fields {
		s := b.typeSchema(f.Type.Type)
		if f.Description != "" {
			s = append(obj{{Key: "description", Value: f.Description}}, s...)
		}
		props[i] = property{f.Name, s}
		required[i] = f.Name
	}
	top := obj{
		{"type", "object"},
		{"properties", props},
		{"required", required},
		{"additionalProperties", false},
	}
	raw, err := json.Marshal(top)
	if err != nil {
		panic(err) // only strings, bools and the types below
	}
	return schema{Strict: b.strict, JSON: raw}
}

type schemaBuilder struct{ strict bool }

// typeSchema is the schema of values of type ty.
func (b *schemaBuilder) typeSchema(ty cty.Type) obj {
	switch {
	case ty == cty.String:
		return obj{{Key: "type", Value: "string"}}
	case ty == cty.Number:
		return obj{{Key: "type", Value: "number"}}
	case ty == cty.Bool:
		return obj{{Key: "type", Value: "boolean"}}
	case ty.IsListType() || ty.IsSetType():
		return obj{{Key: "type", Value: "array"}, {Key: "items", Value: b.typeSchema(ty.ElementType())}}
	case ty.IsTupleType():
		// Strict mode has no prefixItems.
		b.strict = false
		elems := ty.TupleElementTypes()
		items := make([]obj, len(elems))
		for i, et := range elems {
			items[i] = b.typeSchema(et)
		}
		return obj{{Key: "type", Value: "array"}, {Key: "prefixItems", Value: items}, {Key: "minItems", Value: len(elems)}, {Key: "maxItems", Value: len(elems)}}
	case ty.IsMapType():
		// Strict mode allows no open objects.
		b.strict = false
		return obj{{Key: "type", Value: "object"}, {Key: "additionalProperties", Value: b.typeSchema(ty.ElementType())}}
	case ty.IsObjectType():
		names := lang.SortedKeys(ty.AttributeTypes())
		props := make(properties, len(names))
		for i, name := range names {
			s := b.typeSchema(ty.AttributeType(name))
			if ty.AttributeOptional(name) {
				// Strict mode wants every property required: an
				// optional one is required but may be null.
				s = nullable(s)
			}
			props[i] = property{name, s}
		}
		return obj{{Key: "type", Value: "object"}, {Key: "properties", Value: props}, {Key: "required", Value: names}, {Key: "additionalProperties", Value: false}}
	default:
		// any: every JSON value.
		b.strict = false
		return obj{}
	}
}

// nullable lets a schema also accept null.
func nullable(s obj) obj {
	if len(s) == 0 {
		return s // any value, null included
	}
	if len(s) == 1 && s[0].Key == "type" {
		if t, ok := s[0].Value.(string); ok {
			return obj{{Key: "type", Value: []string{t, "null"}}}
		}
	}
	return obj{{Key: "anyOf", Value: []obj{s, {{Key: "type", Value: "null"}}}}}
}

// Object is a JSON object that keeps its members in order: models write
// the fields of a reply in the order its schema gives them. The thinker's
// stage schemas are built with it too.
type Object []Member

// Member is a key of an Object and its value.
type Member struct {
	Key   string
	Value any
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		buf.Write(k)
		buf.WriteByte(':')
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// obj and member are the short names used in this package.
type (
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
