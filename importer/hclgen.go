package importer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// expr is an HCL expression being generated, as hclwrite tokens. The file
// is formatted once it is complete (lang.Format), so the tokens need no
// spacing of their own.
type Expr = hclwrite.Tokens

// code lexes src, a complete sequence of HCL expression tokens (no string
// cut in two), into tokens.
func Code(src string) Expr {
	toks, _ := hclsyntax.LexExpression([]byte(src), "", hcl.InitialPos)
	var out Expr
	for _, t := range toks {
		if t.Type == hclsyntax.TokenEOF {
			break
		}
		out = append(out, &hclwrite.Token{Type: t.Type, Bytes: t.Bytes})
	}
	return spaced(out)
}

// spaced puts a space between two words (identifiers, keywords, numbers)
// that would otherwise run together; the formatter sets the rest.
func spaced(e Expr) Expr {
	word := func(t *hclwrite.Token) bool {
		return t.Type == hclsyntax.TokenIdent || t.Type == hclsyntax.TokenNumberLit
	}
	for i := 1; i < len(e); i++ {
		if word(e[i-1]) && word(e[i]) && e[i].SpacesBefore == 0 {
			e[i].SpacesBefore = 1
		}
	}
	return e
}

// clone copies an expression's tokens. The formatter sets each token's
// spacing where it stands, so no token may stand in two places.
func Clone(e Expr) Expr {
	out := make(Expr, len(e))
	for i, t := range e {
		c := *t
		out[i] = &c
	}
	return out
}

// join concatenates expressions and code fragments: each part is an expr
// or a string of code.
func Join(parts ...any) Expr {
	var out Expr
	for i, p := range parts {
		switch p := p.(type) {
		case Expr:
			out = append(out, Clone(p)...)
			if i < len(parts)-1 {
				out = closeHeredoc(out)
			}
		case string:
			out = append(out, Code(p)...)
		default:
			panic(fmt.Sprintf("join: %T", p))
		}
	}
	return spaced(out)
}

// ref is a traversal: ref("step", "fetch", "body") is step.fetch.body.
// A name that is not an identifier becomes an index (["a b"]), and an
// int an index ([0]).
func Ref(root string, path ...any) Expr {
	t := hcl.Traversal{hcl.TraverseRoot{Name: root}}
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if hclsyntax.ValidIdentifier(p) {
				t = append(t, hcl.TraverseAttr{Name: p})
			} else {
				t = append(t, hcl.TraverseIndex{Key: cty.StringVal(p)})
			}
		case int:
			t = append(t, hcl.TraverseIndex{Key: cty.NumberIntVal(int64(p))})
		default:
			panic(fmt.Sprintf("ref: %T", p))
		}
	}
	return hclwrite.TokensForTraversal(t)
}

// index appends path (as in ref) to e.
func Index(e Expr, path ...any) Expr {
	out := Clone(e)
	if len(path) > 0 {
		out = closeHeredoc(out)
	}
	if len(path) > 0 && splat(e) {
		// a[*].b[0] is each element's b[0]; (a[*].b)[0] is the first b.
		out = Join("(", e, ")")
	}
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if hclsyntax.ValidIdentifier(p) {
				out = append(out, Code("."+p)...)
			} else {
				out = append(out, Join("[", Str(p), "]")...)
			}
		case int:
			out = append(out, Code(fmt.Sprintf("[%d]", p))...)
		case Expr:
			out = append(out, Join("[", p, "]")...)
		}
	}
	return out
}

// splat reports whether e ends in a splat's traversal (a[*].b), which an
// index after it would join.
func splat(e Expr) bool {
	depth := 0
	for i, t := range e {
		switch t.Type {
		case hclsyntax.TokenOParen, hclsyntax.TokenOBrack, hclsyntax.TokenOBrace, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp:
			if depth == 0 && t.Type == hclsyntax.TokenOBrack && i+2 < len(e) && e[i+1].Type == hclsyntax.TokenStar && e[i+2].Type == hclsyntax.TokenCBrack {
				return true
			}
			depth++
		case hclsyntax.TokenCParen, hclsyntax.TokenCBrack, hclsyntax.TokenCBrace, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			depth--
		}
	}
	return false
}

// call is a function call.
func Call(name string, args ...Expr) Expr {
	cloned := make([]Expr, len(args))
	for i, a := range args {
		cloned[i] = closeHeredoc(Clone(a))
	}
	return hclwrite.TokensForFunctionCall(name, cloned...)
}

// str is a quoted string literal (HCL escapes its ${ and %{).
func Str(s string) Expr { return hclwrite.TokensForValue(cty.StringVal(s)) }

// num is a number literal written as the source wrote it.
func num(s string) Expr { return Code(s) }

// literal is the HCL literal of a cty value.
func literal(v cty.Value) Expr { return hclwrite.TokensForValue(v) }

// tuple is [e1, e2, …].
func Tuple(elems []Expr) Expr {
	cloned := make([]Expr, len(elems))
	for i, e := range elems {
		cloned[i] = closeHeredoc(Clone(e))
	}
	return hclwrite.TokensForTuple(cloned)
}

// member is one attribute of an object constructor.
type Member struct {
	Name  string
	Value Expr
}

// object is { name = value, … }; a name that is not an identifier is
// quoted.
func Object(members []Member) Expr {
	attrs := make([]hclwrite.ObjectAttrTokens, len(members))
	for i, m := range members {
		name := Str(m.Name)
		if hclsyntax.ValidIdentifier(m.Name) && !isKeyword(m.Name) {
			name = Code(m.Name)
		}
		attrs[i] = hclwrite.ObjectAttrTokens{Name: name, Value: closeHeredoc(Clone(m.Value))}
	}
	return hclwrite.TokensForObject(attrs)
}

func isKeyword(s string) bool {
	switch s {
	case "true", "false", "null", "for", "in", "if", "else", "endif", "endfor":
		return true
	}
	return false
}

// tpart is a piece of a string template: literal text, or an expression
// interpolated into it.
type TPart struct {
	Lit  string
	Expr Expr
}

// template is a string template of parts: a quoted string, or a heredoc
// when the text has several lines. A heredoc's value ends with a newline;
// the text of one that does not is passed through chomp, unless
// literalOnly (block definitions allow no function calls; there the value
// gains a final newline).
func Template(parts []TPart, literalOnly bool) Expr {
	parts = mergeLits(parts)
	var text strings.Builder
	interp := false
	for _, p := range parts {
		text.WriteString(p.Lit)
		interp = interp || p.Expr != nil
	}
	// A heredoc holds text of several lines; its value ends with a newline,
	// which chomp takes away when the text has none. chomp would also cut
	// the newlines an interpolation at the end gives, so such text is a
	// quoted string.
	endsWithExpr := parts[len(parts)-1].Expr != nil
	if !strings.Contains(text.String(), "\n") || (endsWithExpr && !literalOnly) {
		if !interp {
			return Str(text.String())
		}
		out := Expr{{Type: hclsyntax.TokenOQuote, Bytes: []byte(`"`)}}
		for _, p := range parts {
			if p.Expr != nil {
				out = append(out, interpTokens(p.Expr)...)
				continue
			}
			out = append(out, &hclwrite.Token{Type: hclsyntax.TokenQuotedLit, Bytes: []byte(escapeQuoted(p.Lit))})
		}
		return append(out, &hclwrite.Token{Type: hclsyntax.TokenCQuote, Bytes: []byte(`"`)})
	}
	last := parts[len(parts)-1]
	chomp := last.Expr != nil || !strings.HasSuffix(last.Lit, "\n")
	if !chomp {
		parts[len(parts)-1].Lit = strings.TrimSuffix(last.Lit, "\n")
	}
	delim := heredocDelimiter(text.String())
	out := Expr{{Type: hclsyntax.TokenOHeredoc, Bytes: []byte("<<" + delim + "\n")}}
	for _, p := range parts {
		if p.Expr != nil {
			out = append(out, interpTokens(p.Expr)...)
			continue
		}
		if p.Lit != "" {
			out = append(out, &hclwrite.Token{Type: hclsyntax.TokenStringLit, Bytes: []byte(escapeTemplate(p.Lit))})
		}
	}
	out = append(out,
		&hclwrite.Token{Type: hclsyntax.TokenStringLit, Bytes: []byte("\n")},
		&hclwrite.Token{Type: hclsyntax.TokenCHeredoc, Bytes: []byte(delim)})
	if chomp && !literalOnly {
		return Call("chomp", out)
	}
	if !literalOnly {
		// The closing marker ends its line: in parentheses, whatever
		// follows the text in an expression (", …)") comes on the next.
		return Join("(", append(out, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}), ")")
	}
	if !literalOnly {
		// The closing marker ends its line: inside an expression (a call's
		// argument) what follows goes on the next line, in parentheses.
		return Join("(", append(out, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}), ")")
	}
	return out
}

// text is a string value, as template of one literal part.
func Text(s string) Expr { return Template([]TPart{{Lit: s}}, false) }

func interpTokens(e Expr) Expr {
	out := Expr{{Type: hclsyntax.TokenTemplateInterp, Bytes: []byte("${")}}
	out = append(out, closeHeredoc(Clone(e))...)
	return append(out, &hclwrite.Token{Type: hclsyntax.TokenTemplateSeqEnd, Bytes: []byte("}")})
}

func mergeLits(parts []TPart) []TPart {
	var out []TPart
	for _, p := range parts {
		if p.Expr == nil && len(out) > 0 && out[len(out)-1].Expr == nil {
			out[len(out)-1].Lit += p.Lit
			continue
		}
		if p.Expr == nil && p.Lit == "" {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		out = []TPart{{}}
	}
	return out
}

// closeHeredoc ends e with a newline when it ends with a heredoc's
// closing marker, which must stand alone on its line: whatever follows
// the expression (a comma, a bracket) goes on the next line.
func closeHeredoc(e Expr) Expr {
	if len(e) > 0 && e[len(e)-1].Type == hclsyntax.TokenCHeredoc {
		return append(e, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
	}
	return e
}

// heredocDelimiter is EOT, or another word no line of s equals.
func heredocDelimiter(s string) string {
	lines := strings.Split(s, "\n")
	for _, d := range []string{"EOT", "TEXT", "CODE", "EOF"} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.TrimSpace(l) == d }) {
			return d
		}
	}
	for i := 1; ; i++ {
		d := fmt.Sprintf("EOT%d", i)
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.TrimSpace(l) == d }) {
			return d
		}
	}
}

// escapeTemplate escapes what a template reads as interpolations or
// directives, so that the text arrives unchanged.
func escapeTemplate(s string) string {
	s = strings.ReplaceAll(s, "${", "$${")
	return strings.ReplaceAll(s, "%{", "%%{")
}

// escapeQuoted escapes literal text for a quoted template.
func escapeQuoted(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '$', '%':
			b.WriteRune(r)
			if i+1 < len(s) && s[i+1] == '{' {
				b.WriteRune(r)
			}
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// oneLine makes s fit a one-line comment.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}

// comment appends "# text" lines to body.
func comment(body *hclwrite.Body, lines ...string) {
	for _, l := range lines {
		body.AppendUnstructuredTokens(hclwrite.Tokens{
			{Type: hclsyntax.TokenComment, Bytes: []byte("# " + oneLine(l) + "\n")},
		})
	}
}

// paren wraps e in parentheses when it is not a single operand (an
// operator outside brackets), for use inside a larger expression.
func Paren(e Expr) Expr {
	depth := 0
	for _, t := range e {
		switch t.Type {
		case hclsyntax.TokenOParen, hclsyntax.TokenOBrack, hclsyntax.TokenOBrace, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp:
			depth++
		case hclsyntax.TokenCParen, hclsyntax.TokenCBrack, hclsyntax.TokenCBrace, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			depth--
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
			hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
			hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr,
			hclsyntax.TokenBang, hclsyntax.TokenQuestion, hclsyntax.TokenColon:
			if depth == 0 {
				return Join("(", e, ")")
			}
		}
	}
	return e
}

// duration writes milliseconds as a duration literal: "5m", "30s", "1500ms".
func Duration(ms int64) string {
	switch {
	case ms%3600000 == 0:
		return fmt.Sprintf("%dh", ms/3600000)
	case ms%60000 == 0:
		return fmt.Sprintf("%dm", ms/60000)
	case ms%1000 == 0:
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}
