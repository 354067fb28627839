package importer

import (
	"fmt"
	"strconv"
	"strings"
)

// setNode is Edit Fields (Set v3), manual mapping: for each item (for_each)
// the fields given, each converted to its type as n8n's validateEntry
// converts it, over the input fields it includes (none, all, selected or
// all except some). A name with dots sets a field inside another (n8n's
// dot notation, on by default).
func (n *n8n) setNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if n.tooOld(node, "Edit Fields (Set)", 3) {
		return nil
	}
	if m := p.str("mode"); m != "" && m != "manual" {
		n.problem(node.where, p.get("mode"), "Unsupported mode", "the JSON mode of Edit Fields is not converted; manual mapping is.")
		return nil
	}
	s := n.scope(node, in, true)
	dots := p.boolean(true, "options", "dotNotation")
	include := p.str("include")
	if include == "" {
		include = "all"
	}
	if node.version >= 3.3 && !p.boolean(false, "includeOtherFields") {
		include = "none"
	}
	type field struct {
		path  []string
		value expr
	}
	var fields []field
	var assignments []*jv
	if node.version >= 3.3 {
		assignments = p.items("assignments", "assignments")
	} else {
		assignments = p.items("fields", "values")
	}
	for _, a := range assignments {
		name := a.str("name")
		typ := a.str("type")
		raw := a.get("value")
		if node.version < 3.3 {
			if typ == "" {
				typ = "stringValue"
			}
			raw = a.get(typ)
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
				n.problem(node.where, a.get("name"), "Unsupported field name", "a name with [index] is not converted; a.b sets b inside a.")
				return nil
			}
			path = strings.Split(name, ".")
		}
		fields = append(fields, field{path, v})
	}
	var base expr
	switch include {
	case "none":
	case "all":
		base = s.item
	case "selected", "except":
		key := "includeFields"
		if include == "except" {
			key = "excludeFields"
		}
		var names []expr
		for _, f := range strings.Split(p.str(key), ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			if dots && strings.Contains(f, ".") {
				n.problem(node.where, p.get(key), "Unsupported field name", "a field to include or exclude with dots is not converted.")
				return nil
			}
			names = append(names, str(f))
		}
		cond := "if contains("
		if include == "except" {
			cond = "if !contains("
		}
		base = join("{ for k, v in ", s.item, " : k => v ", cond, tuple(names), ", k) }")
	default:
		n.problem(node.where, p.get("include"), "Unsupported option", fmt.Sprintf("include %q is not one of n8n's.", include))
		return nil
	}
	var build func(fs []field, base expr) expr
	build = func(fs []field, base expr) expr {
		var ms []member
		seen := map[string]bool{}
		for i, f := range fs {
			key := f.path[0]
			if len(f.path) == 1 {
				ms = append(ms, member{key, f.value})
				continue
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			var sub []field
			for _, g := range fs[i:] {
				if g.path[0] == key && len(g.path) > 1 {
					sub = append(sub, field{g.path[1:], g.value})
				}
			}
			var inner expr
			if base != nil {
				inner = join("try(", index(base, key), ", {})")
			}
			ms = append(ms, member{key, build(sub, inner)})
		}
		if base == nil {
			return object(ms)
		}
		return call("merge", base, object(ms))
	}
	value := build(fields, base)
	b, body := newStep(node.step, "value")
	body.SetAttributeRaw("for_each", clone(in.e))
	body.SetAttributeRaw("value", clone(value))
	n.dependsOn(body, in)
	s.flush()
	n.step(n.nodeComment(node)+": the fields of each item", b)
	return []n8nItems{{e: join(ref("step", node.step), "[*].value"), lineage: appendLineage(in.lineage, node)}}
}

// setValue is a field's value converted to its type. A literal is read
// as n8n reads it; an expression is converted at run time (a reference
// to a field the item lacks is null, as in n8n).
func (n *n8n) setValue(s *n8nScope, node *n8nNode, typ string, raw *jv, path string) (expr, bool) {
	if raw == nil || raw.Kind == 'z' {
		return code("null"), true
	}
	literal := raw.Kind != 's' || !strings.HasPrefix(raw.Str, "=")
	if literal {
		text := raw.Str
		if raw.Kind != 's' {
			text = string(s.n.src.Bytes[raw.Rng.Start.Byte:raw.Rng.End.Byte])
		}
		switch typ {
		case "string":
			return str(text), true
		case "number":
			t := strings.TrimSpace(text)
			if t == "" {
				return code("0"), true
			}
			if f, err := strconv.ParseFloat(t, 64); err == nil {
				return code(strconv.FormatFloat(f, 'f', -1, 64)), true
			}
		case "boolean":
			switch strings.ToLower(strings.TrimSpace(text)) {
			case "true", "1":
				return code("true"), true
			case "false", "0":
				return code("false"), true
			}
		case "array", "object":
			if raw.Kind != 's' {
				return jsonLiteral(raw), true
			}
			if e, err := jsonTemplate(text, nil, nil, nil); err == nil {
				return e, true
			}
			if e, err := jsonTemplate(strings.ReplaceAll(text, "'", `"`), nil, nil, nil); err == nil && typ == "array" {
				return e, true
			}
		}
		n.problem(node.where, raw, "Invalid value", fmt.Sprintf("%q is not a valid %s; n8n fails on it too.", text, typ))
		return nil, false
	}
	v := s.value(raw, path)
	chunks := splitN8N(raw.Str[1:])
	if s.plainRef(raw) {
		v = call("try", v, code("null"))
	}
	switch typ {
	case "string":
		if len(chunks) == 2 && chunks[0].text == "" && chunks[1].code {
			return call("tostring", v), true
		}
		return v, true
	case "number":
		return call("tonumber", v), true
	case "boolean":
		return call("tobool", v), true
	case "array", "object":
		return call("try", call("jsondecode", v), v), true
	}
	n.problem(node.where, raw, "Unsupported field type", fmt.Sprintf("the type %q is not converted.", typ))
	return nil, false
}
