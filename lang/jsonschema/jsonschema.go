// Package jsonschema writes JSON Schemas (draft 2020-12) of flowctl's
// types: for the replies llm steps ask models for, and for flows as tools
// (their inputs and outputs). Objects keep their members in order, since
// models write the fields of a reply in the order its schema gives them.
package jsonschema

import (
	"bytes"
	"encoding/json"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// Object is a JSON object that keeps its members in order.
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

// A Builder makes the schemas of types. With Strict, they are what
// OpenAI's strict structured outputs can enforce: every object closed and
// every property required (an optional attribute is required but may be
// null); Strict becomes false when a type cannot be said that way (a map,
// a tuple, any). Without it, an optional attribute is simply not
// required.
type Builder struct{ Strict bool }

// Type is the schema of values of type ty.
func (b *Builder) Type(ty cty.Type) Object {
	switch {
	case ty == cty.String:
		return Object{{"type", "string"}}
	case ty == cty.Number:
		return Object{{"type", "number"}}
	case ty == cty.Bool:
		return Object{{"type", "boolean"}}
	case ty.IsListType() || ty.IsSetType():
		return Object{{"type", "array"}, {"items", b.Type(ty.ElementType())}}
	case ty.IsTupleType():
		// Strict mode has no prefixItems.
		b.Strict = false
		elems := ty.TupleElementTypes()
		items := make([]Object, len(elems))
		for i, et := range elems {
			items[i] = b.Type(et)
		}
		return Object{{"type", "array"}, {"prefixItems", items}, {"minItems", len(elems)}, {"maxItems", len(elems)}}
	case ty.IsMapType():
		// Strict mode allows no open objects.
		b.Strict = false
		return Object{{"type", "object"}, {"additionalProperties", b.Type(ty.ElementType())}}
	case ty.IsObjectType():
		names := lang.SortedKeys(ty.AttributeTypes())
		props := make(Object, len(names))
		required := []string{}
		for i, name := range names {
			s := b.Type(ty.AttributeType(name))
			switch {
			case !ty.AttributeOptional(name):
				required = append(required, name)
			case b.Strict:
				s = Nullable(s)
				required = append(required, name)
			}
			props[i] = Member{name, s}
		}
		return Object{{"type", "object"}, {"properties", props}, {"required", required}, {"additionalProperties", false}}
	default:
		// any: every JSON value.
		b.Strict = false
		return Object{}
	}
}

// Nullable lets a schema also accept null.
func Nullable(s Object) Object {
	if len(s) == 0 {
		return s // any value, null included
	}
	if len(s) == 1 && s[0].Key == "type" {
		if t, ok := s[0].Value.(string); ok {
			return Object{{"type", []string{t, "null"}}}
		}
	}
	return Object{{"anyOf", []Object{s, {{"type", "null"}}}}}
}
