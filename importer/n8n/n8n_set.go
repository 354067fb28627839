package n8n

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// setNode is Edit Fields (Set v3), manual mapping: for each item (for_each)
// the fields given, each converted to its type as n8n's validateEntry
// converts it, over the input fields it includes (none, all, selected or
// all except some). A name with dots sets a field inside another (n8n's
// dot notation, on by default).
func (n *n8n) setNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if node.version < 3 {
		return n.setV1(node, in)
	}
	mode := p.Text("mode")
	if mode != "" && mode != "manual" && mode != "raw" {
		n.Problem(node.where, p.Get("mode"), "Unsupported mode", fmt.Sprintf("Edit Fields' mode %q is none of n8n's (manual mapping and JSON).", mode))
		return nil
	}
	s := n.scope(node, in, true)
	dots := p.Boolean(true, "options", "dotNotation")
	include := p.Text("include")
	if include == "" {
		include = "all"
	}
	if node.version >= 3.3 && !p.Boolean(false, "includeOtherFields") {
		include = "none"
	}
	if mode == "raw" {
		return n.setRaw(node, in, s, include, dots)
	}
	var fields []setField
	var assignments []*importer.JV
	if node.version >= 3.3 {
		assignments = p.Items("assignments", "assignments")
	} else {
		assignments = p.Items("fields", "values")
	}
	for _, a := range assignments {
		name := a.Text("name")
		typ := a.Text("type")
		raw := a.Get("value")
		if node.version < 3.3 {
			if typ == "" {
				typ = "stringValue"
			}
			raw = a.Get(typ)
			typ = strings.TrimSuffix(typ, "Value")
		}
		if typ == "" {
			typ = "string"
		}
		v, ok := n.setValue(s, node, typ, raw, name)
		if !ok {
			return nil
		}
		path := []string{name}
		if dots {
			if strings.ContainsAny(name, "[]") {
				n.Problem(node.where, a.Get("name"), "Unsupported field name", "a name with [index] is not converted; a.b sets b inside a.")
				return nil
			}
			path = strings.Split(name, ".")
		}
		fields = append(fields, setField{path, v})
	}
	base, ok := n.setBase(node, s, include, dots)
	if !ok {
		return nil
	}
	value := buildFields(fields, base)
	return n.setStep(node, in, s, value)
}

// setBase is what Edit Fields keeps of the input item (s.item): nothing,
// all of it, the fields selected or all but some.
func (n *n8n) setBase(node *n8nNode, s *n8nScope, include string, dots bool) (base importer.Expr, ok bool) {
	p := node.params
	switch include {
	case "none":
	case "all":
		base = s.item
	case "selected", "except":
		key := "includeFields"
		if include == "except" {
			key = "excludeFields"
		}
		var names []importer.Expr
		for _, f := range strings.Split(p.Text(key), ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			if dots && strings.Contains(f, ".") {
				n.Problem(node.where, p.Get(key), "Unsupported field name", "a field to include or exclude with dots is not converted.")
				return nil, false
			}
			names = append(names, importer.Str(f))
		}
		cond := "if contains("
		if include == "except" {
			cond = "if !contains("
		}
		base = importer.Join("{ for k, v in ", s.item, " : k => v ", cond, importer.Tuple(names), ", k) }")
	default:
		n.Problem(node.where, p.Get("include"), "Unsupported option", fmt.Sprintf("include %q is not one of n8n's.", include))
		return nil, false
	}
	return base, true
}

// setStep writes the value step of Edit Fields: value for each item.
func (n *n8n) setStep(node *n8nNode, in n8nItems, s *n8nScope, value importer.Expr) []n8nItems {
	b, body := importer.NewStep(node.step, "value")
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("value", importer.Clone(value))
	n.dependsOn(body, in)
	s.flush()
	n.Step(n.nodeComment(node)+": the fields of each item", b)
	return []n8nItems{pairedWith(importer.Join(importer.Ref("step", node.step), "[*].value"), in, nil)}
}

// setField is a field Edit Fields sets: its path (a.b is ["a", "b"] with
// dot notation) and value.
type setField struct {
	path  []string
	value importer.Expr
}

// buildFields is the object of the fields over base (nil: none): a field
// inside another merges into the one base has.
func buildFields(fs []setField, base importer.Expr) importer.Expr {
	var ms []importer.Member
	seen := map[string]bool{}
	for i, f := range fs {
		key := f.path[0]
		if len(f.path) == 1 {
			ms = append(ms, importer.Member{Name: key, Value: f.value})
			continue
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		var sub []setField
		for _, g := range fs[i:] {
			if g.path[0] == key && len(g.path) > 1 {
				sub = append(sub, setField{g.path[1:], g.value})
			}
		}
		var inner importer.Expr
		if base != nil {
			inner = importer.Join("try(", importer.Index(base, key), ", {})")
		}
		ms = append(ms, importer.Member{Name: key, Value: buildFields(sub, inner)})
	}
	if base == nil {
		return importer.Object(ms)
	}
	return importer.Call("merge", base, importer.Object(ms))
}

// setValue is a field's value converted to its type. A literal is read
// as n8n reads it; an expression is converted at run time (a reference
// to a field the item lacks is null, as in n8n).
func (n *n8n) setValue(s *n8nScope, node *n8nNode, typ string, raw *importer.JV, path string) (importer.Expr, bool) {
	if raw == nil || raw.Kind == 'z' {
		return importer.Code("null"), true
	}
	literal := raw.Kind != 's' || !strings.HasPrefix(raw.Str, "=")
	if literal {
		text := raw.Str
		if raw.Kind != 's' {
			text = string(s.n.Src.Bytes[raw.Rng.Start.Byte:raw.Rng.End.Byte])
		}
		switch typ {
		case "string":
			return importer.Str(text), true
		case "number":
			t := strings.TrimSpace(text)
			if t == "" {
				return importer.Code("0"), true
			}
			if f, err := strconv.ParseFloat(t, 64); err == nil {
				return importer.Code(strconv.FormatFloat(f, 'f', -1, 64)), true
			}
		case "boolean":
			switch strings.ToLower(strings.TrimSpace(text)) {
			case "true", "1":
				return importer.Code("true"), true
			case "false", "0":
				return importer.Code("false"), true
			}
		case "array", "object":
			if raw.Kind != 's' {
				return importer.JsonLiteral(raw), true
			}
			if e, err := importer.JSONTemplate(text, nil, nil, nil); err == nil {
				return e, true
			}
			if e, err := importer.JSONTemplate(strings.ReplaceAll(text, "'", `"`), nil, nil, nil); err == nil && typ == "array" {
				return e, true
			}
		}
		n.Problem(node.where, raw, "Invalid value", fmt.Sprintf("%q is not a valid %s; n8n fails on it too.", text, typ))
		return nil, false
	}
	v := s.value(raw, path)
	chunks := splitN8N(raw.Str[1:])
	if ref, ok := s.plainRef(raw); ok && ref.item != nil {
		// A field the item lacks is null, as in n8n; an item that is not
		// there is an error, as in n8n.
		v = importer.Join("[for it in [", ref.item, "] : ", importer.Call("try", importer.Index(importer.Code("it"), ref.path...), importer.Code("null")), "][0]")
	} else if ok {
		v = importer.Call("try", v, importer.Code("null"))
	}
	switch typ {
	case "string":
		if len(chunks) == 2 && chunks[0].text == "" && chunks[1].code {
			return importer.Call("tostring", v), true
		}
		return v, true
	case "number":
		return importer.Call("tonumber", v), true
	case "boolean":
		return importer.Call("tobool", v), true
	case "array", "object":
		return importer.Call("try", importer.Call("jsondecode", v), v), true
	}
	n.Problem(node.where, raw, "Unsupported field type", fmt.Sprintf("the type %q is not converted.", typ))
	return nil, false
}
