package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// maxProblems bounds how many mismatches one error lists: enough for the
// model to fix several at once, few enough to stay readable.
const maxProblems = 5

// parseReply finds the JSON object in a reply and converts its fields to
// the declared output types. Its errors are meant for the model as much as
// for the user: they name the path of each mismatch, such as
// ".bullets[1]: a string is required, not an object".
func parseReply(reply string, fields []*lang.Field) (map[string]cty.Value, error) {
	v, err := findObject(reply)
	if err != nil {
		return nil, err
	}
	attrs := make(map[string]cty.Type, len(fields))
	var optional []string // optional = true: null (or left out) is a value
	for _, f := range fields {
		attrs[f.Name] = f.Type.Type
		if f.Optional {
			optional = append(optional, f.Name)
		}
	}
	var c checker
	c.check(v, cty.ObjectWithOptionalAttrs(attrs, optional), nil, false)
	if len(c.problems) > 0 {
		return nil, errors.New(strings.Join(c.problems, "; "))
	}
	out := make(map[string]cty.Value, len(fields))
	for _, f := range fields {
		if !v.Type().HasAttribute(f.Name) { // an optional output left out
			out[f.Name] = cty.NullVal(f.Type.Type)
			continue
		}
		fv := v.GetAttr(f.Name)
		if f.Type.Defaults != nil && !fv.IsNull() {
			fv = f.Type.Defaults.Apply(fv)
		}
		cv, err := convert.Convert(fv, f.Type.Type)
		if err != nil {
			msg := lang.FormatConvertError(err)
			if !strings.HasPrefix(msg, ".") && !strings.HasPrefix(msg, "[") {
				msg = ": " + msg
			}
			return nil, fmt.Errorf(".%s%s", f.Name, msg)
		}
		if len(f.Enum) > 0 && !cv.IsNull() && !slices.Contains(f.Enum, cv.AsString()) {
			return nil, fmt.Errorf(".%s: %s is not one of %s", f.Name, describeValue(cv), quoteAll(f.Enum))
		}
		out[f.Name] = cv
	}
	return out, nil
}

// quoteAll lists values quoted: "a", "b", "c".
func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// findObject returns the first JSON object of a reply, looking first
// inside markdown code fences and skipping prose before and after it.
// Trailing commas are forgiven.
func findObject(reply string) (cty.Value, error) {
	var firstErr error
	for _, text := range candidates(reply) {
		for i := 0; i < len(text); i++ {
			if text[i] != '{' {
				continue
			}
			end := closingBrace(text, i)
			if end < 0 {
				if firstErr == nil {
					firstErr = errors.New("the JSON object is incomplete: a closing } is missing")
				}
				break
			}
			v, err := decodeObject(removeTrailingCommas(text[i : end+1]))
			if err == nil {
				return v, nil
			}
			if firstErr == nil {
				firstErr = err
			}
			i = end
		}
	}
	if firstErr == nil {
		firstErr = errors.New("the reply has no JSON object")
	}
	return cty.NilVal, firstErr
}

// candidates are the texts to search for an object: the inside of the
// first fenced code block (``` or ```json), then the whole reply.
func candidates(reply string) []string {
	start := strings.Index(reply, "```")
	if start < 0 {
		return []string{reply}
	}
	body := reply[start+3:]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
		body = body[nl+1:] // the fence's info string, such as json
	}
	if end := strings.Index(body, "```"); end >= 0 {
		body = body[:end]
	}
	return []string{body, reply}
}

// closingBrace returns the index of the brace that closes the one at
// start, skipping braces inside strings, or -1.
func closingBrace(s string, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// removeTrailingCommas drops commas that stand right before a } or ],
// outside strings.
func removeTrailingCommas(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			b.WriteByte(c)
			continue
		}
		if c == ',' {
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		if c == '"' {
			inString = true
		}
		b.WriteByte(c)
	}
	return b.String()
}

// decodeObject decodes a JSON object into a cty value of its implied type.
func decodeObject(s string) (cty.Value, error) {
	v, err := jsonval.Decode([]byte(s))
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return cty.NilVal, fmt.Errorf("the JSON object is invalid: %s (at character %d of the object)", se.Error(), se.Offset)
		}
		return cty.NilVal, fmt.Errorf("the JSON object is invalid: %s", err)
	}
	return v, nil
}

// checker compares a decoded value with a declared type and words each
// mismatch for the model.
type checker struct{ problems []string }

func (c *checker) add(path cty.Path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(path) > 0 {
		msg = lang.FormatPath(path) + ": " + msg
	}
	c.problems = append(c.problems, msg)
}

// step extends a path without sharing the caller's backing array.
func step(path cty.Path, s cty.PathStep) cty.Path {
	return append(path[:len(path):len(path)], s)
}

func (c *checker) check(v cty.Value, ty cty.Type, path cty.Path, nullOK bool) {
	if len(c.problems) >= maxProblems || ty == cty.DynamicPseudoType {
		return
	}
	if v.IsNull() {
		if !nullOK {
			c.add(path, "%s is required, not null", describeType(ty))
		}
		return
	}
	vt := v.Type()
	sequence := vt.IsTupleType() || vt.IsListType() || vt.IsSetType()
	object := vt.IsObjectType() || vt.IsMapType()
	switch {
	case ty.IsPrimitiveType():
		if !vt.IsPrimitiveType() {
			c.add(path, "%s is required, not %s", describeType(ty), describeValue(v))
		} else if _, err := convert.Convert(v, ty); err != nil {
			c.add(path, "%s is required, not %s", describeType(ty), describeValue(v))
		}
	case ty.IsListType() || ty.IsSetType():
		if !sequence {
			c.add(path, "%s is required, not %s", describeType(ty), describeValue(v))
			return
		}
		i := int64(0)
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			c.check(ev, ty.ElementType(), step(path, cty.IndexStep{Key: cty.NumberIntVal(i)}), false)
		}
	case ty.IsTupleType():
		elems := ty.TupleElementTypes()
		if !sequence || v.LengthInt() != len(elems) {
			c.add(path, "%s is required, not %s", describeType(ty), describeValue(v))
			return
		}
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			c.check(ev, elems[i], step(path, cty.IndexStep{Key: cty.NumberIntVal(int64(i))}), false)
		}
	case ty.IsMapType():
		if !object {
			c.add(path, "%s is required, not %s", describeType(ty), describeValue(v))
			return
		}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			c.check(ev, ty.ElementType(), step(path, cty.IndexStep{Key: k}), false)
		}
	case ty.IsObjectType():
		if !object {
			c.add(path, "%s is required, not %s", describeType(ty), describeValue(v))
			return
		}
		for _, name := range lang.SortedKeys(ty.AttributeTypes()) {
			optional := ty.AttributeOptional(name)
			var av cty.Value
			switch {
			case vt.IsObjectType() && vt.HasAttribute(name):
				av = v.GetAttr(name)
			case vt.IsMapType() && v.HasIndex(cty.StringVal(name)).True():
				av = v.Index(cty.StringVal(name))
			case optional:
				continue
			default:
				c.add(path, "the field %q is missing", name)
				continue
			}
			c.check(av, ty.AttributeType(name), step(path, cty.GetAttrStep{Name: name}), optional)
		}
	}
}

// describeType names what a type wants, for messages to the model.
func describeType(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "true or false"
	case ty.IsListType() || ty.IsSetType():
		return "a list"
	case ty.IsTupleType():
		return fmt.Sprintf("a list of exactly %d elements", len(ty.TupleElementTypes()))
	case ty.IsMapType() || ty.IsObjectType():
		return "an object"
	}
	return "a value"
}

// describeValue names what the reply gave.
func describeValue(v cty.Value) string {
	ty := v.Type()
	switch {
	case ty == cty.String:
		if s := v.AsString(); len(s) <= 40 {
			return fmt.Sprintf("the string %q", s)
		}
		return "a string"
	case ty == cty.Number:
		return "the number " + v.AsBigFloat().Text('g', -1)
	case ty == cty.Bool:
		if v.True() {
			return "true"
		}
		return "false"
	case ty.IsTupleType() || ty.IsListType() || ty.IsSetType():
		if n := v.LengthInt(); n != 1 {
			return fmt.Sprintf("a list of %d elements", n)
		}
		return "a list of 1 element"
	case ty.IsObjectType() || ty.IsMapType():
		return "an object"
	}
	return "a " + ty.FriendlyName()
}
