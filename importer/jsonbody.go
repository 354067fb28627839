package importer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// span is a placeholder found in a text: bytes [start, end).
type Span struct{ Start, End int }

// jsonTemplate reads text that is JSON once its placeholders are
// replaced by values, as AnythingLLM's JSON bodies and n8n's JSON
// parameters are, into an HCL expression of the value: objects and
// arrays as constructors (in the text's order), a placeholder inside a
// JSON string as an interpolation (inString gives its value as text), and
// a placeholder standing for a whole JSON value as that value (bare).
// It fails when the text is not JSON that way.
func JSONTemplate(text string, spans []Span, inString func(i int) Expr, bare func(i int) Expr) (Expr, error) {
	var b strings.Builder
	last := 0
	quoted := stringStates(text, spans)
	for i, s := range spans {
		b.WriteString(text[last:s.Start])
		if quoted[s.Start] {
			b.WriteString(fmt.Sprintf("\ue000%d\ue001", i))
		} else {
			b.WriteString(fmt.Sprintf("\"\ue002%d\ue003\"", i))
		}
		last = s.End
	}
	b.WriteString(text[last:])
	src, d := ParseSource("body", []byte(b.String()))
	if d.HasErrors() {
		return nil, fmt.Errorf("%s", strings.TrimSuffix(strings.TrimPrefix(d[0].Detail, "The file is not valid JSON: "), "."))
	}
	strFn := func(v *JV) Expr {
		if strings.HasPrefix(v.Str, "\ue002") && strings.HasSuffix(v.Str, "\ue003") {
			if i, err := strconv.Atoi(v.Str[len("\ue002") : len(v.Str)-len("\ue003")]); err == nil {
				return bare(i)
			}
		}
		return Template(splitSentinels(v.Str, inString), false)
	}
	obj := func(ms []Member) Expr {
		return objectWithTemplateKeys(ms, func(k string) []TPart { return splitSentinels(k, inString) })
	}
	return jsonExpr(src.Root, strFn, obj), nil
}

// objectWithTemplateKeys is an object constructor whose keys may hold
// placeholders.
func objectWithTemplateKeys(ms []Member, parts func(string) []TPart) Expr {
	plain := true
	for _, m := range ms {
		for _, p := range parts(m.Name) {
			if p.Expr != nil {
				plain = false
			}
		}
	}
	if plain {
		return Object(ms)
	}
	out := Code("{")
	for _, m := range ms {
		out = append(out, Join(Template(parts(m.Name), false), "=", m.Value, "\n")...)
	}
	return append(out, Code("}")...)
}

// splitSentinels splits a string holding in-string placeholder marks into
// template parts.
func splitSentinels(s string, inString func(i int) Expr) []TPart {
	var parts []TPart
	for {
		i := strings.Index(s, "\ue000")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "\ue001")
		if j < 0 {
			break
		}
		n, err := strconv.Atoi(s[i+len("\ue000") : i+j])
		if err != nil {
			break
		}
		parts = append(parts, TPart{Lit: s[:i]}, TPart{Expr: inString(n)})
		s = s[i+j+len("\ue001"):]
	}
	return append(parts, TPart{Lit: s})
}

// stringStates reports for each byte of a JSON text whether it is inside
// a string literal. The spans are skipped: their quotes do not count.
func stringStates(text string, spans []Span) []bool {
	in := make([]bool, len(text)+1)
	quoted, esc := false, false
	next := 0
	for i := 0; i < len(text); i++ {
		if next < len(spans) && i == spans[next].Start {
			for j := i; j < spans[next].End; j++ {
				in[j] = quoted
			}
			i = spans[next].End - 1
			next++
			continue
		}
		c := text[i]
		in[i] = quoted
		switch {
		case esc:
			esc = false
		case quoted && c == '\\':
			esc = true
		case c == '"':
			quoted = !quoted
		}
	}
	in[len(text)] = quoted
	return in
}

// jsonLiteral is the HCL literal of a JSON value.
func JsonLiteral(v *JV) Expr {
	return jsonExpr(v, func(s *JV) Expr { return Str(s.Str) }, Object)
}

// jsonExpr is the HCL of a JSON value: constructors for objects and
// arrays (in the value's order), strings as strFn makes them, objects as
// obj makes them from their members.
func jsonExpr(v *JV, strFn func(*JV) Expr, obj func([]Member) Expr) Expr {
	switch v.Kind {
	case 'o':
		var ms []Member
		for _, k := range v.Keys {
			ms = append(ms, Member{Name: k, Value: jsonExpr(v.Obj[k], strFn, obj)})
		}
		return obj(ms)
	case 'a':
		var es []Expr
		for _, e := range v.Arr {
			es = append(es, jsonExpr(e, strFn, obj))
		}
		return Tuple(es)
	case 's':
		return strFn(v)
	case 'n':
		return num(v.Num)
	case 'b':
		return Code(fmt.Sprint(v.Bool))
	}
	return Code("null")
}

func SortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
