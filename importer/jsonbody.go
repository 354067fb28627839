package importer

import (
	"fmt"
	"strconv"
	"strings"
)

// span is a placeholder found in a text: bytes [start, end).
type span struct{ start, end int }

// jsonTemplate reads text that is JSON once its placeholders are
// replaced by values, as AnythingLLM's JSON bodies and n8n's JSON
// parameters are, into an HCL expression of the value: objects and
// arrays as constructors (in the text's order), a placeholder inside a
// JSON string as an interpolation (inString gives its value as text), and
// a placeholder standing for a whole JSON value as that value (bare).
// It fails when the text is not JSON that way.
func jsonTemplate(text string, spans []span, inString func(i int) expr, bare func(i int) expr) (expr, error) {
	var b strings.Builder
	last := 0
	quoted := stringStates(text, spans)
	for i, s := range spans {
		b.WriteString(text[last:s.start])
		if quoted[s.start] {
			b.WriteString(fmt.Sprintf("\ue000%d\ue001", i))
		} else {
			b.WriteString(fmt.Sprintf("\"\ue002%d\ue003\"", i))
		}
		last = s.end
	}
	b.WriteString(text[last:])
	src, d := parseSource("body", []byte(b.String()))
	if d.HasErrors() {
		return nil, fmt.Errorf("%s", strings.TrimSuffix(strings.TrimPrefix(d[0].Detail, "The file is not valid JSON: "), "."))
	}
	strFn := func(v *jv) expr {
		if strings.HasPrefix(v.Str, "\ue002") && strings.HasSuffix(v.Str, "\ue003") {
			if i, err := strconv.Atoi(v.Str[len("\ue002") : len(v.Str)-len("\ue003")]); err == nil {
				return bare(i)
			}
		}
		return template(splitSentinels(v.Str, inString), false)
	}
	obj := func(ms []member) expr {
		return objectWithTemplateKeys(ms, func(k string) []tpart { return splitSentinels(k, inString) })
	}
	return jsonExpr(src.Root, strFn, obj), nil
}

// objectWithTemplateKeys is an object constructor whose keys may hold
// placeholders.
func objectWithTemplateKeys(ms []member, parts func(string) []tpart) expr {
	plain := true
	for _, m := range ms {
		for _, p := range parts(m.Name) {
			if p.Expr != nil {
				plain = false
			}
		}
	}
	if plain {
		return object(ms)
	}
	out := code("{")
	for _, m := range ms {
		out = append(out, join(template(parts(m.Name), false), "=", m.Value, "\n")...)
	}
	return append(out, code("}")...)
}

// splitSentinels splits a string holding in-string placeholder marks into
// template parts.
func splitSentinels(s string, inString func(i int) expr) []tpart {
	var parts []tpart
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
		parts = append(parts, tpart{Lit: s[:i]}, tpart{Expr: inString(n)})
		s = s[i+j+len("\ue001"):]
	}
	return append(parts, tpart{Lit: s})
}

// stringStates reports for each byte of a JSON text whether it is inside
// a string literal. The spans are skipped: their quotes do not count.
func stringStates(text string, spans []span) []bool {
	in := make([]bool, len(text)+1)
	quoted, esc := false, false
	next := 0
	for i := 0; i < len(text); i++ {
		if next < len(spans) && i == spans[next].start {
			for j := i; j < spans[next].end; j++ {
				in[j] = quoted
			}
			i = spans[next].end - 1
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
